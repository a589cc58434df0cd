// Where a run's token comes from (src/auth/token.ts, src/auth/file-store.ts): HOSTCTL_TOKEN,
// else the clear-text file of a profile saved with --insecure-storage, with its warnings.
// The keychain's side needs a Secret Service: test/e2e/keychain.test.ts.

import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveToken, storedFileToken } from '../../src/auth/token.js';
import { readTokenFile, writeTokenFile } from '../../src/auth/file-store.js';
import { AuthError, UsageError } from '../../src/errors.js';
import { IO, releaseSinks } from '../../src/io.js';
import { tmpDir } from '../support/inproc.js';

const TOKEN = 'hct_unit_FILE_token_value_k3j4';
const FILE = { storage: 'file' } as const;

let dir: { path: string; cleanup(): void };
let env: NodeJS.ProcessEnv;
const streams: Writable[] = [];

beforeEach(() => {
  dir = tmpDir('hostctl-token-source-');
  env = { HOSTCTL_CONFIG_DIR: dir.path };
});
afterEach(() => {
  releaseSinks(...streams.splice(0));
  dir.cleanup();
});

/** An IO whose stderr the test reads. */
function io(quiet = false): { io: IO; stderr: () => string } {
  const chunks: string[] = [];
  const sink = () =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
  const stdout = sink();
  const stderr = sink();
  streams.push(stdout, stderr);
  return { io: new IO({ stdout, stderr, env: { NO_COLOR: '1' }, quiet }), stderr: () => chunks.join('') };
}

function tokenPath(profile = 'default'): string {
  return join(dir.path, 'tokens', profile);
}

describe('HOSTCTL_TOKEN', () => {
  it('is used trimmed, as pasted with a line break', async () => {
    const t = await resolveToken('default', FILE, { ...env, HOSTCTL_TOKEN: `  ${TOKEN}\n` });
    expect(t).toMatchObject({ value: TOKEN, source: 'env' });
  });
});

describe('a profile saved with --insecure-storage', () => {
  it('uses the token in its file, and says at every use that it lies there in clear text', async () => {
    writeTokenFile('default', TOKEN, env);
    const run = io();
    const t = await resolveToken('default', FILE, env, run.io);
    expect(t).toMatchObject({ value: TOKEN, source: 'file' });
    expect(run.stderr()).toContain(`stored in clear text in ${tokenPath()} (saved with --insecure-storage). Run "hostctl auth login" where a keychain is available to move it there.`);
    expect(run.stderr()).not.toMatch(/can be read by other users/);
  });

  it('-q silences the clear-text warning, but not when the command asks for it (auth status)', async () => {
    writeTokenFile('default', TOKEN, env);
    const quiet = io(true);
    await resolveToken('default', FILE, env, quiet.io);
    expect(quiet.stderr()).toBe('');
    const status = io(true);
    await resolveToken('default', FILE, env, status.io, true);
    expect(status.stderr()).toContain('stored in clear text');
  });

  it('a file other users can read is named with the chmod that fixes it, even with -q', async () => {
    writeTokenFile('default', TOKEN, env);
    chmodSync(tokenPath(), 0o644);
    const run = io(true);
    await resolveToken('default', FILE, env, run.io);
    expect(run.stderr()).toContain(`${tokenPath()} can be read by other users; run: chmod 600 '${tokenPath()}'`);
    expect(readTokenFile('default', env)?.loose).toBe(true);
    chmodSync(tokenPath(), 0o600);
    expect(readTokenFile('default', env)?.loose).toBe(false);
  });

  it('a missing or blank file is "not logged in" naming the file, not a crash or an empty token', async () => {
    await expect(resolveToken('default', FILE, env)).rejects.toThrow(AuthError);
    const err = await resolveToken('default', FILE, env).catch((e: unknown) => e);
    expect((err as AuthError).message).toBe(`No token for profile "default": it was saved with --insecure-storage, but ${tokenPath()} is missing or empty.`);
    expect((err as AuthError).hint).toBe('Run "hostctl auth login" again, or set HOSTCTL_TOKEN for this run.');
    mkdirSync(join(dir.path, 'tokens'));
    writeFileSync(tokenPath(), ' \n\n');
    await expect(resolveToken('default', FILE, env)).rejects.toThrow(`${tokenPath()} is missing or empty`);
    expect(readTokenFile('default', env)).toBeUndefined();
  });

  it('a token in the file that cannot be sent is a usage error whose next step is to log in again', async () => {
    mkdirSync(join(dir.path, 'tokens'));
    writeFileSync(tokenPath(), `${TOKEN}\u0007x\n`, { mode: 0o600 });
    const err = await resolveToken('default', FILE, env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toContain(`the file ${tokenPath()}`);
    expect((err as UsageError).message).not.toContain(TOKEN);
    expect((err as UsageError).hint).toMatch(/hostctl auth login/);
  });

  it('is written 0600 into a tokens directory made private, even one that was not', () => {
    mkdirSync(join(dir.path, 'tokens'), { mode: 0o755 });
    chmodSync(join(dir.path, 'tokens'), 0o755);
    expect(writeTokenFile('default', TOKEN, env)).toBe(tokenPath());
    expect(statSync(join(dir.path, 'tokens')).mode & 0o777).toBe(0o700);
    expect(statSync(tokenPath()).mode & 0o777).toBe(0o600);
    expect(readTokenFile('default', env)).toEqual({ token: TOKEN, path: tokenPath(), loose: false });
  });

  it('a token file that cannot be written is one sentence naming the tokens directory, not a stack', () => {
    writeFileSync(join(dir.path, 'tokens'), 'a file in the way');
    expect(() => writeTokenFile('default', TOKEN, env)).toThrow(
      `Cannot write the token file in ${join(dir.path, 'tokens')}: a file is in the way where a directory should be (EEXIST).`,
    );
  });

  it('the stored token is known (to be masked) only for a profile saved to a file', () => {
    writeTokenFile('default', TOKEN, env);
    expect(storedFileToken('default', FILE, env)).toBe(TOKEN);
    expect(storedFileToken('default', { storage: 'keychain' }, env)).toBeUndefined();
    expect(storedFileToken('default', undefined, env)).toBeUndefined();
    expect(storedFileToken('other', FILE, env)).toBeUndefined();
    expect(storedFileToken('../default', FILE, env)).toBeUndefined();
  });
});

// The files hostctl reads that this user may not open, with node:fs's openSync made to fail
// as it does for a file another user owns (EACCES) or one a security policy denies (EPERM,
// which no file can be made to give here): the state file (src/config/state.ts) refuses
// every token, naming "permission denied" and the chown that gives the file back, or,
// without user IDs, saying to move it away; the config file (src/config/config.ts) is
// refused the same way. The tests run as root, where every file opens. The real thing:
// config-read.test.ts (a write-only sysfs file) and, as a user other than root,
// test/e2e/trust-dirs.test.ts.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { withoutUserIds } from '../support/no-user-ids.js';

const denied = vi.hoisted(() => new Map<string, string>());

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const openSync = (path: import('node:fs').PathLike, ...rest: unknown[]): number => {
    const code = denied.get(String(path));
    if (code !== undefined) throw Object.assign(new Error(`${code}: operation not permitted, open '${String(path)}'`), { code, errno: -1, syscall: 'open', path: String(path) });
    return (fs.openSync as (...args: unknown[]) => number)(path, ...rest);
  };
  return { ...fs, default: { ...fs, openSync }, openSync };
});

// The unit layer shares its workers between files (isolate: false): another file may have
// loaded state.js and config.js with the real node:fs already, so this file loads its own, and errors.js
// with it (for instanceof).
vi.resetModules();
const { StateStore } = await import('../../src/config/state.js');
const { readConfig } = await import('../../src/config/config.js');
const { AuthError, UsageError } = await import('../../src/errors.js');

const dirs: string[] = [];
afterEach(() => {
  denied.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

afterAll(() => {
  vi.doUnmock('node:fs');
  vi.resetModules();
});

/** A directory of the test's own with `name` in it, holding `text`, which openSync will refuse with `code`. */
function deniedFile(name: string, text: string, code: string): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-denied-'));
  dirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  denied.set(path, code);
  return { dir, path };
}

/** A state file with a mark in it, which openSync will refuse with `code`. */
function deniedState(code: string): string {
  return deniedFile('state.json', JSON.stringify({ rejected: { 'fp-marked': { at: 5, status: 401 } } }), code).path;
}

function refusal(store: InstanceType<typeof StateStore>, fingerprint: string): InstanceType<typeof AuthError> {
  try {
    store.rejected(fingerprint);
  } catch (err) {
    if (err instanceof AuthError) return err;
    throw err;
  }
  throw new Error(`rejected(${fingerprint}) answered without refusing`);
}

describe('a state file this user may not open', () => {
  it('EACCES or EPERM: "permission denied", every token refused (exit 4), and the chown that gives the file back', () => {
    const uid = process.getuid?.();
    expect(uid).toBeTypeOf('number');
    for (const code of ['EACCES', 'EPERM']) {
      const path = deniedState(code);
      // Even the token marked in it: the file cannot be read to know.
      const err = refusal(new StateStore(path), 'fp-marked');
      expect(err.exitCode, code).toBe(4);
      expect(err.message, code).toBe(
        `hostctl cannot read its state file ${path} (permission denied), which records the tokens the API rejected, so it will not send a token that may be one of them.`,
      );
      expect(err.hint, code).toBe(`Give the file back to yourself (it was likely written by "sudo -E hostctl"): sudo chown ${uid} ${path}`);
    }
  });

  it('without user IDs (Windows), says to move it away instead', () => {
    const path = deniedState('EACCES');
    const err = withoutUserIds(() => refusal(new StateStore(path), 'fp-any'));
    expect(err.message).toContain(`${path} (permission denied),`);
    expect(err.hint).toBe(
      `Move it away (mv ${path} ${path}.damaged); hostctl then forgets which tokens were rejected, so check yours with "hostctl auth status --check" once.`,
    );
  });

  it('another code is named as it is, with the move-away hint', () => {
    const path = deniedState('EROFS');
    const err = refusal(new StateStore(path), 'fp-any');
    expect(err.message).toContain(`${path} (EROFS),`);
    expect(err.hint).toMatch(/^Move it away /);
  });
});

describe('a config file this user may not open', () => {
  it('EACCES or EPERM: "permission denied" (exit 2), with the chown that gives it back', () => {
    for (const code of ['EACCES', 'EPERM']) {
      const { dir, path } = deniedFile('config.json', '{}', code);
      let err: unknown;
      try {
        readConfig({ HOSTCTL_CONFIG_DIR: dir });
      } catch (e) {
        err = e;
      }
      expect(err, code).toBeInstanceOf(UsageError);
      expect((err as InstanceType<typeof UsageError>).message, code).toBe(`Cannot read the config file ${path} (permission denied).`);
      expect((err as InstanceType<typeof UsageError>).hint, code).toBe(`Give it back to yourself: sudo chown ${process.getuid?.()} ${path}`);
    }
  });
});

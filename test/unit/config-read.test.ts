// Reading the config file (src/config/config.ts): its text exactly as written, a missing
// file as no config; a config.json that cannot be read is an error naming the file and
// why in words, with the way out, never an empty config; the file is never left open.

import { chmodSync, mkdirSync, openSync, closeSync, readdirSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig, readConfigText } from '../../src/config/config.js';
import { UsageError } from '../../src/errors.js';
import { tmpDir } from '../support/cli.js';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

/** A config dir of the test's own, its config.json (not made), and the env that points hostctl at it. */
function world(): { dir: string; file: string; env: NodeJS.ProcessEnv } {
  const t = tmpDir('hostctl-read-');
  cleanups.push(t.cleanup);
  return { dir: t.path, file: join(t.path, 'config.json'), env: { HOSTCTL_CONFIG_DIR: t.path } };
}

function refusal(env: NodeJS.ProcessEnv): UsageError {
  try {
    readConfig(env);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('the config was read');
}

const CHECK_HINT = 'Check the file, or point HOSTCTL_CONFIG_DIR at a directory of yours.';

/**
 * Makes `file` one that this process may not open for reading; false when that cannot be
 * staged here. Modes do not stop root, so as root `file` is a link to a write-only
 * attribute of Linux's sysfs, which the kernel refuses to open for reading whoever asks.
 */
function denyReading(file: string): boolean {
  if (process.platform === 'win32') return false;
  if (process.getuid?.() !== 0) {
    writeFileSync(file, '{}', { mode: 0o600 });
    chmodSync(file, 0o000);
    return true;
  }
  const writeOnly = '/sys/bus/cpu/uevent';
  try {
    closeSync(openSync(writeOnly, 'r'));
    return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EACCES') return false;
  }
  symlinkSync(writeOnly, file);
  return true;
}

/** How many of this process's open file descriptors are on `path` (Linux: /proc/self/fd). */
function openOn(path: string): number {
  const real = realpathSync(path);
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === real;
    } catch {
      return false;
    }
  }).length;
}

describe('readConfigText', () => {
  it('is the text exactly as written, and undefined when there is no file', () => {
    const { file } = world();
    expect(readConfigText(file)).toBeUndefined();
    const text = '{\n\t"defaultProfile": "é-staging"\n}\n';
    writeFileSync(file, text, { mode: 0o600 });
    expect(readConfigText(file)).toBe(text);
  });

  it.runIf(process.platform === 'linux')('leaves the file closed after a read, and after a read that fails', () => {
    const { dir, file } = world();
    writeFileSync(file, '{}', { mode: 0o600 });
    for (let i = 0; i < 3; i++) readConfigText(file);
    expect(openOn(file)).toBe(0);
    chmodSync(file, 0o666);
    for (let i = 0; i < 3; i++) expect(() => readConfigText(file)).toThrow(UsageError);
    expect(openOn(file)).toBe(0);
    const asDir = join(dir, 'sub');
    mkdirSync(asDir, { mode: 0o700 });
    for (let i = 0; i < 3; i++) expect(() => readConfigText(asDir)).toThrow(UsageError);
    expect(openOn(asDir)).toBe(0);
  });
});

describe('readConfig: a config.json that cannot be read', () => {
  it('is named with the reason in words (and the code where words are not enough), and where to look', () => {
    const isDir = world();
    mkdirSync(isDir.file, { mode: 0o700 });
    const loop = world();
    symlinkSync(loop.file, loop.file);
    const under = world();
    writeFileSync(join(under.dir, 'hostctl'), '', { mode: 0o600 });
    const underFile = { HOSTCTL_CONFIG_DIR: join(under.dir, 'hostctl') };
    const cases: Array<[NodeJS.ProcessEnv, string, string]> = [
      [isDir.env, isDir.file, 'it is a directory'],
      [loop.env, loop.file, 'ELOOP'],
      [underFile, join(under.dir, 'hostctl', 'config.json'), 'a file is in the way where a directory should be, ENOTDIR'],
    ];
    for (const [env, file, reason] of cases) {
      const err = refusal(env);
      expect(err.message, reason).toBe(`Cannot read the config file ${file} (${reason}).`);
      expect(err.hint, reason).toBe(CHECK_HINT);
    }
  });

  it('one that others can write is refused as such, not as unreadable', () => {
    const { env, file } = world();
    writeFileSync(file, '{}', { mode: 0o600 });
    chmodSync(file, 0o666);
    const err = refusal(env);
    expect(err.message).toBe(
      `Refusing the config file ${file}: other users can write to it (mode 0666), so they could change where hostctl sends your token; fix it with "chmod go-w ${file}".`,
    );
  });

  it('one this user may not open is "permission denied", with the chown that gives it back', (ctx) => {
    const { env, file } = world();
    if (!denyReading(file)) ctx.skip('no file this process is refused reading can be made here');
    const err = refusal(env);
    expect(err.message).toBe(`Cannot read the config file ${file} (permission denied).`);
    expect(err.hint).toBe(`Give it back to yourself: sudo chown ${process.getuid?.()} ${file}`);
  });

  it('where there are no uids (process.getuid is missing, as on Windows), "permission denied" names no chown', (ctx) => {
    const { env, file } = world();
    if (!denyReading(file)) ctx.skip('no file this process is refused reading can be made here');
    const getuid = process.getuid;
    process.getuid = undefined;
    try {
      const err = refusal(env);
      expect(err.message).toBe(`Cannot read the config file ${file} (permission denied).`);
      expect(err.hint).toBe(CHECK_HINT);
    } finally {
      process.getuid = getuid;
    }
  });
});

// writeFileAtomic: the one write-then-rename behind the config, state, cache, token file,
// kept reference, extracted addon and the sandbox's --state file.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJsonFile, readTextFile, writeError, writeFileAtomic } from '../../src/config/atomic.js';
import { HostctlError } from '../../src/errors.js';

let dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-atomic-'));
  dirs.push(dir);
  return dir;
}

const posix = process.platform !== 'win32';

function withCode(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: raw`), { code });
}

const HINT = 'Check the directory and its permissions, or point HOSTCTL_CONFIG_DIR at a directory of yours.';

describe('writeFileAtomic', () => {
  it('replaces a file with text or bytes and leaves no temporary file', () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    writeFileSync(file, 'old');
    writeFileAtomic(file, '{"new":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"new":1}\n');
    writeFileAtomic(file, new Uint8Array([0, 1, 2, 255]));
    expect([...readFileSync(file)]).toEqual([0, 1, 2, 255]);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it.runIf(posix)('makes a missing directory 0700 and gives the file exactly its mode, whatever the umask', () => {
    const dir = tempDir();
    const file = join(dir, 'a', 'b', 'state.json');
    // A umask that takes the group's and others' read bits: the mode asked for still wins.
    const old = process.umask(0o066);
    try {
      writeFileAtomic(file, '{}\n', 0o644);
    } finally {
      process.umask(old);
    }
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(statSync(join(dir, 'a', 'b')).mode & 0o777).toBe(0o700);
    writeFileAtomic(join(dir, 'token'), 'secret\n');
    expect(statSync(join(dir, 'token')).mode & 0o777).toBe(0o600);
  });

  it('leaves the old file and no temporary file when the rename fails', () => {
    const dir = tempDir();
    const target = join(dir, 'taken');
    mkdirSync(join(target, 'inside'), { recursive: true });
    expect(() => writeFileAtomic(target, 'x')).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readdirSync(target)).toEqual(['inside']);
  });
});

describe('readTextFile / readJsonFile', () => {
  it('read what is there, and undefined for a missing file, a directory or damaged JSON', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ok.json'), '{"a":1}');
    writeFileSync(join(dir, 'bad.json'), '{"a":');
    expect(readTextFile(join(dir, 'ok.json'))).toBe('{"a":1}');
    expect(readJsonFile(join(dir, 'ok.json'))).toEqual({ a: 1 });
    expect(readTextFile(join(dir, 'bad.json'))).toBe('{"a":');
    expect(readJsonFile(join(dir, 'bad.json'))).toBeUndefined();
    for (const missing of [join(dir, 'none'), dir]) {
      expect(readTextFile(missing)).toBeUndefined();
      expect(readJsonFile(missing)).toBeUndefined();
    }
  });
});

describe('writeError', () => {
  it('turns a full disk or a spent quota into one sentence naming the file, the directory and the code, with the next step', () => {
    const full = writeError(withCode('ENOSPC'), '/c', 'the state file');
    expect(full).toBeInstanceOf(HostctlError);
    expect((full as HostctlError).message).toBe('Cannot write the state file in /c: the disk is full (ENOSPC).');
    expect((full as HostctlError).hint).toBe(HINT);
    const quota = writeError(withCode('EDQUOT'), '/c', 'the config');
    expect((quota as HostctlError).message).toBe('Cannot write the config in /c: the disk quota is spent (EDQUOT).');
    expect((quota as HostctlError).hint).toBe(HINT);
  });

  it('passes anything without a known code on as is, also a thrown undefined or null', () => {
    const other = withCode('EIO');
    expect(writeError(other, '/c', 'the config')).toBe(other);
    const plain = new Error('no code');
    expect(writeError(plain, '/c', 'the config')).toBe(plain);
    expect(writeError(undefined, '/c', 'the config')).toBeUndefined();
    expect(writeError(null, '/c', 'the config')).toBeNull();
  });
});

describe('writeFileAtomic at its edges', () => {
  it.runIf(posix)('a directory that is a dangling link: the error is the directory\'s, not the clean-up of a temporary file never made', () => {
    const dir = tempDir();
    const gone = join(dir, 'gone');
    symlinkSync(join(dir, 'nowhere'), gone);
    let caught: NodeJS.ErrnoException | undefined;
    try {
      writeFileAtomic(join(gone, 'state.json'), '{}\n');
    } catch (err) {
      caught = err as NodeJS.ErrnoException;
    }
    expect(caught).toBeDefined();
    expect(caught?.path).toBe(gone);
    expect(caught?.message).not.toContain('.tmp');
    expect(readdirSync(dir)).toEqual(['gone']);
  });

  it.runIf(posix)('never writes through a link someone planted at the temporary name: the write fails and the link\'s target is untouched', async () => {
    const dir = tempDir();
    const target = join(dir, 'state.json');
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious\n');
    // The temporary name is made unguessable by the time and a random part: fix both, watch
    // one write to learn the name, and plant a link there before the next.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-02T03:04:05.678Z'));
    vi.spyOn(Math, 'random').mockReturnValue(0.123456789);
    const seen: string[] = [];
    const watcher = watch(dir, (_event, name) => {
      if (typeof name === 'string') seen.push(name);
    });
    try {
      writeFileAtomic(target, 'first\n');
      for (let i = 0; i < 200 && !seen.some((n) => n.endsWith('.tmp')); i++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      watcher.close();
    }
    const tmp = seen.find((n) => n.endsWith('.tmp'));
    expect(tmp).toBeDefined();
    symlinkSync(victim, join(dir, tmp as string));
    expect(() => writeFileAtomic(target, 'second\n')).toThrow();
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(target, 'utf8')).toBe('first\n');
  });
});

// writeFileAtomic: the one write-then-rename behind the config, state, cache, token file,
// kept reference, extracted addon and the sandbox's --state file.

import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJsonFile, readTextFile, writeFileAtomic } from '../../src/config/atomic.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-atomic-'));
  dirs.push(dir);
  return dir;
}

const posix = process.platform !== 'win32';

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

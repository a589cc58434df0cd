// src/auth/embedded-addon.ts on a real file system, with the real keychain addon's bytes
// (the single-file executable carries the same file as an asset).

import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractAddon, loadAddon } from '../../src/auth/embedded-addon.js';
import { ROOT, tmpDir } from '../support/cli.js';

const addonBytes = readFileSync(createRequire(join(ROOT, 'package.json')).resolve('@napi-rs/keyring-linux-x64-gnu/keyring.linux-x64-gnu.node'));
const hash = createHash('sha256').update(addonBytes).digest('hex');

let scratch: { path: string; cleanup(): void };
beforeEach(() => {
  scratch = tmpDir('hostctl-addon-');
});
afterEach(() => scratch.cleanup());

// The addon bytes above are linux-x64's; resolving them fails elsewhere, before this.
describe('extractAddon and loadAddon', () => {
  it('writes the addon once into a new 0700 directory, named by its hash, and loads it', () => {
    const dir = join(scratch.path, 'cache', 'hostctl', 'addons');
    const file = extractAddon(dir, 'keyring', addonBytes, hash);
    expect(file).toBe(join(dir, `keyring-${hash}.node`));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual([`keyring-${hash}.node`]);
    const mtime = statSync(file).mtimeMs;
    expect(extractAddon(dir, 'keyring', addonBytes, hash)).toBe(file);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(typeof (loadAddon(file) as { AsyncEntry?: unknown }).AsyncEntry).toBe('function');
  });

  it('rewrites a file whose bytes do not match the hash', () => {
    const dir = join(scratch.path, 'addons');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, `keyring-${hash}.node`), 'swapped');
    const file = extractAddon(dir, 'keyring', addonBytes, hash);
    expect(readFileSync(file).equals(addonBytes)).toBe(true);
  });

  it('refuses embedded bytes that do not match the recorded hash, and writes nothing', () => {
    const dir = join(scratch.path, 'addons');
    const other = createHash('sha256').update('something else').digest('hex');
    expect(() => extractAddon(dir, 'keyring', addonBytes, other)).toThrow(/does not match its recorded hash/);
    expect(readdirSync(dir)).toEqual([]);
    expect(() => extractAddon(dir, 'keyring', addonBytes, 'not-a-hash')).toThrow(/not a SHA-256/);
  });

  it('makes a directory others can read private, and refuses one that is a symlink', () => {
    const loose = join(scratch.path, 'loose');
    mkdirSync(loose);
    chmodSync(loose, 0o755);
    extractAddon(loose, 'keyring', addonBytes, hash);
    expect(statSync(loose).mode & 0o777).toBe(0o700);

    const link = join(scratch.path, 'link');
    symlinkSync(loose, link);
    expect(() => extractAddon(link, 'keyring', addonBytes, hash)).toThrow(/not a directory/);
  });
});

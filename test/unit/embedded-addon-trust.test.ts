// What the single-file executable refuses before it loads its embedded keychain addon
// (src/auth/embedded-addon.ts): a recorded hash that is not exactly a SHA-256, and a cache
// directory another user owns (they could swap the file between the check and the load).

import { chownSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractAddon } from '../../src/auth/embedded-addon.js';
import { tmpDir } from '../support/cli.js';

const BYTES = new TextEncoder().encode('not really an addon');
const HASH = 'a'.repeat(64);

let scratch: { path: string; cleanup(): void };
beforeEach(() => {
  scratch = tmpDir('hostctl-addon-trust-');
});
afterEach(() => scratch.cleanup());

describe('extractAddon refuses', () => {
  it('a recorded hash with anything before or after its 64 hex digits, writing nothing', () => {
    const dir = join(scratch.path, 'addons');
    for (const hash of [`x${HASH}`, `${HASH}0`, HASH.toUpperCase()]) {
      expect(() => extractAddon(dir, 'keyring', BYTES, hash)).toThrow(/recorded hash of keyring is not a SHA-256/);
    }
    expect(() => readdirSync(dir)).toThrow(/ENOENT/);
  });

  it.runIf(process.platform !== 'win32')('a cache directory another user owns, before writing into it', () => {
    // As root, a directory made here is given away; as anyone else, the system's /tmp is root's.
    let dir = '/tmp';
    if (process.getuid?.() === 0) {
      dir = join(scratch.path, 'theirs');
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, 65534, 65534);
    }
    expect(() => extractAddon(dir, 'keyring', BYTES, HASH)).toThrow(`${dir} belongs to another user`);
    if (dir !== '/tmp') expect(readdirSync(dir)).toEqual([]);
  });
});

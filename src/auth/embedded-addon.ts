// A native addon carried inside the single-file executable (scripts/build-sea.mjs): Node
// loads addons only from a file, so the embedded bytes are written to a private cache and
// loaded from there. The directory is the user's alone (0700, owned by them, not a
// symlink), the file is named by its SHA-256 and written atomically, and it is read back
// and checked against the hash the build recorded before it is loaded, so a damaged or
// swapped file is never run.

import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Makes `dir` (and its parents) and checks that only this user can write to or read it. */
function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  // Windows has no POSIX owner or mode bits; its user profile is private already.
  if (process.platform === 'win32') return;
  if (process.getuid && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

function matches(file: string, hash: string): boolean {
  try {
    return sha256(readFileSync(file)) === hash;
  } catch {
    return false;
  }
}

/**
 * The file an addon is loaded from: `<cacheDir>/<name>-<sha256>.node`, written from
 * `bytes` unless a copy that matches `hash` is already there. Throws when the bytes do not
 * match the hash or the file cannot be made to.
 */
export function extractAddon(cacheDir: string, name: string, bytes: Uint8Array, hash: string): string {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`the recorded hash of ${name} is not a SHA-256`);
  privateDir(cacheDir);
  const file = join(cacheDir, `${name}-${hash}.node`);
  if (matches(file, hash)) return file;
  if (sha256(bytes) !== hash) throw new Error(`the embedded ${name} does not match its recorded hash`);
  writeFileAtomic(file, bytes, 0o600);
  if (!matches(file, hash)) throw new Error(`${file} changed while it was written`);
  return file;
}

/** Loads an addon as require() would load a .node file, and returns its exports. */
export function loadAddon(file: string): unknown {
  const mod: { exports: unknown } = { exports: {} };
  process.dlopen(mod, file);
  return mod.exports;
}

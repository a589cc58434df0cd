// Files that several hostctl processes may write at once are replaced atomically (write a
// temporary file, then rename), so a reader sees the old or the new file, never half.

import { mkdirSync, readFileSync, renameSync, writeFileSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function writeFileAtomic(path: string, text: string, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    writeFileSync(tmp, text, { mode });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

let sleeper: Int32Array | undefined;

/**
 * Runs `fn` while holding the lock directory `lock` (mkdir is atomic: one process wins),
 * for a read-modify-write that must not interleave with another process's. Synchronous,
 * so that a caller can save on the way to throwing. A lock older than `staleMs` was left
 * by a process that died. After `waitMs` without the lock, `fn` runs anyway: the callers
 * are small files that must never hang a command.
 */
export function withLockSync<T>(lock: string, fn: () => T, staleMs = 5_000, waitMs = 2_000): T {
  mkdirSync(dirname(lock), { recursive: true, mode: 0o700 });
  const started = Date.now();
  let held = false;
  for (let attempt = 0; !held && Date.now() - started < waitMs; attempt++) {
    try {
      mkdirSync(lock);
      held = true;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > staleMs) rmSync(lock, { recursive: true, force: true });
      } catch {
        // Released meanwhile.
      }
      // A synchronous sleep: nothing else in this process may run while it waits.
      Atomics.wait((sleeper ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, Math.min(1 + attempt, 10) + Math.random() * 5);
    }
  }
  try {
    return fn();
  } finally {
    if (held) rmSync(lock, { recursive: true, force: true });
  }
}

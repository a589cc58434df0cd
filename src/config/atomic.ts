// Files that several hostctl processes may write at once are replaced atomically (write a
// temporary file, then rename), so a reader sees the old or the new file, never half.

import { chmodSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { HostctlError } from '../errors.js';

const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  EEXIST: 'a file is in the way where a directory should be',
  ENOTDIR: 'a file is in the way where a directory should be',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is spent',
};

/** What a file-system error code means to a user, for the codes a wrong config dir gives. */
export function fsReason(code: string | undefined): string | undefined {
  return code === undefined ? undefined : FS_REASONS[code];
}

/**
 * A failure to write under `dir` as one sentence with the next step, instead of the
 * "unexpected error" a bare EACCES or EEXIST would give; anything else is returned as is.
 */
export function writeError(err: unknown, dir: string, what: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const reason = fsReason(code);
  if (reason === undefined) return err;
  return new HostctlError(
    `Cannot write ${what} in ${dir}: ${reason} (${code}).`,
    'Check the directory and its permissions, or point HOSTCTL_CONFIG_DIR at a directory of yours.',
  );
}

/** The file's text, or undefined when it cannot be read (missing, a directory, no permission). */
export function readTextFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The file's parsed JSON, or undefined when it cannot be read or is not JSON. */
export function readJsonFile(path: string): unknown {
  const text = readTextFile(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Replaces `path` with `data` (write a temporary file beside it, then rename), making its
 * directory (0700) when missing. The file gets exactly `mode`, whatever the umask.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = `${path}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    // 'wx': never write through a file (or link) someone else put at the temporary name.
    // The directory is made only when missing: hostctl writes these files on every run.
    inDir(path, () => writeFileSync(tmp, data, { mode, flag: 'wx' }));
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Runs `fn`, which makes an entry in the directory of `path`; if that directory is missing, makes it (0700) and runs `fn` again. */
function inDir<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return fn();
  }
}

function errorCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}

/**
 * How a caller waits for a lock directory. `unavailable` says what happens when the lock
 * cannot be had in `waitMs`, or its directory cannot be made: 'proceed' runs the work
 * without it (for small files that must never hang a command), or a function returns the
 * error to throw.
 */
export interface LockPolicy {
  /** A lock older than this was left by a process that died: the lock is held for milliseconds. */
  staleMs: number;
  waitMs: number;
  unavailable: 'proceed' | ((lock: string, waitedMs: number) => Error);
}

/**
 * Runs `fn` while holding the lock directory `lock`, for a read-modify-write that must not
 * interleave with another process's. Synchronous, so that a caller can save on the way to
 * throwing.
 */
export function withLockSync<T>(lock: string, policy: LockPolicy, fn: () => T): T {
  const attempts = acquire(lock, policy);
  let step = attempts.next();
  while (!step.done) {
    // A synchronous sleep: nothing else in this process may run while it waits.
    Atomics.wait((sleeper ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, step.value);
    step = attempts.next();
  }
  try {
    return fn();
  } finally {
    if (step.value) release(lock);
  }
}

/** withLockSync for a caller that may wait long: the event loop runs while it waits. */
export async function withLock<T>(lock: string, policy: LockPolicy, fn: () => T | Promise<T>): Promise<T> {
  const attempts = acquire(lock, policy);
  let step = attempts.next();
  while (!step.done) {
    const ms = step.value;
    await new Promise((resolve) => setTimeout(resolve, ms));
    step = attempts.next();
  }
  try {
    return await fn();
  } finally {
    if (step.value) release(lock);
  }
}

let sleeper: Int32Array | undefined;

/**
 * The attempts to take `lock`, shared by both forms: yields the milliseconds to sleep
 * before the next one; returns whether the lock is held (false: run without it).
 */
function* acquire(lock: string, policy: LockPolicy): Generator<number, boolean, void> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      if (tryLock(lock, policy.staleMs)) return true;
    } catch (err) {
      if (policy.unavailable === 'proceed') return false;
      throw err;
    }
    const waited = Date.now() - started;
    if (waited >= policy.waitMs) {
      if (policy.unavailable === 'proceed') return false;
      throw policy.unavailable(lock, waited);
    }
    // Short at first: the lock is held for milliseconds.
    yield Math.min(2 + attempt * 2, 20) + Math.random() * 5;
  }
}

/** One attempt: mkdir is atomic, so exactly one process creates the directory. */
function tryLock(lock: string, staleMs: number): boolean {
  if (makeDir(lock)) return true;
  try {
    if (Date.now() - statSync(lock).mtimeMs <= staleMs) return false;
    // The lock is an empty directory. (A recursive rm would load fs's recursive remove,
    // a module of its own, on every save.)
    rmdirSync(lock);
  } catch {
    return false; // released, or removed by another waiter, meanwhile
  }
  return makeDir(lock);
}

function makeDir(path: string): boolean {
  try {
    inDir(path, () => mkdirSync(path));
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  }
}

function release(lock: string): void {
  try {
    rmdirSync(lock);
  } catch {
    // Already removed as stale by another process, after this one held it too long.
  }
}

/**
 * A read-modify-write of one small JSON file under its lock: `fn` gets the parsed file
 * (undefined when missing or damaged) and returns the new content and a result. Writes
 * nothing when `fn` returns no content.
 */
export function updateJsonFileSync<T>(path: string, policy: LockPolicy, fn: (current: unknown) => { content?: unknown; result: T }): T {
  return withLockSync(`${path}.lock`, policy, () => {
    const { content, result } = fn(readJsonFile(path));
    if (content !== undefined) writeFileAtomic(path, `${JSON.stringify(content)}\n`);
    return result;
  });
}

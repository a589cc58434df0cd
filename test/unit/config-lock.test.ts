// The one lock primitive behind config writes (wait, then fail) and state saves (wait
// briefly, then proceed). Another process holding the lock is played by a lock directory
// made here; the cross-process behaviour is in test/e2e/concurrency.test.ts.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { updateJsonFileSync, withLock, withLockSync, type LockPolicy } from '../../src/config/atomic.js';

let dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function lockPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-lock-'));
  dirs.push(dir);
  return join(dir, 'sub', 'file.json.lock');
}

const proceed: LockPolicy = { staleMs: 60_000, waitMs: 30, unavailable: 'proceed' };
const fail: LockPolicy = { staleMs: 60_000, waitMs: 30, unavailable: (lock, waited) => new Error(`held: ${lock} after ${waited >= 30}`) };

describe('withLockSync / withLock', () => {
  it('hold the lock while the work runs and release it after, also when the work throws', async () => {
    const lock = lockPath();
    expect(withLockSync(lock, proceed, () => existsSync(lock))).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(await withLock(lock, fail, () => existsSync(lock))).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(() =>
      withLockSync(lock, fail, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(existsSync(lock)).toBe(false);
  });

  it('a held lock: "proceed" runs the work without it and leaves the other holder\'s lock alone', () => {
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    let ran = false;
    withLockSync(lock, proceed, () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(existsSync(lock)).toBe(true);
  });

  it('a held lock: a failing policy throws its error once waited out, without running the work', async () => {
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    let ran = false;
    await expect(
      withLock(lock, fail, () => {
        ran = true;
      }),
    ).rejects.toThrow(`held: ${lock} after true`);
    expect(() => withLockSync(lock, fail, () => (ran = true))).toThrow(`held: ${lock} after true`);
    expect(ran).toBe(false);
    expect(existsSync(lock)).toBe(true);
  });

  it('a stale lock (its holder died) is taken over', async () => {
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    expect(await withLock(lock, fail, () => 'done')).toBe('done');
    expect(existsSync(lock)).toBe(false);
  });

  it('waiters take turns: the work of one never overlaps another', async () => {
    const lock = lockPath();
    const patient: LockPolicy = { ...fail, waitMs: 10_000 };
    let inside = 0;
    let most = 0;
    const work = async (): Promise<void> => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inside--;
    };
    await Promise.all(Array.from({ length: 8 }, () => withLock(lock, patient, work)));
    expect(most).toBe(1);
    expect(existsSync(lock)).toBe(false);
  });

  it('a lock that is not an empty directory is never removed, even when old', () => {
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, 'not-ours'), '');
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    expect(() => withLockSync(lock, fail, () => 'ran')).toThrow('held:');
    expect(existsSync(join(lock, 'not-ours'))).toBe(true);
  });
});

describe('the lock policies: the file\'s own lock, a lock that cannot be made, no wait, a stale lock', () => {
  const fail = (waitMs: number): LockPolicy => ({ staleMs: 60_000, waitMs, unavailable: (lock) => new Error(`held: ${lock}`) });

  it("updateJsonFileSync takes the file's own lock, <file>.lock: one held by another process is waited for, and the file is left alone", () => {
    const file = join(dirname(dirname(lockPath())), 'budget.json');
    writeFileSync(file, '{"n":1}\n');
    mkdirSync(`${file}.lock`);
    let ran = false;
    expect(() =>
      updateJsonFileSync(file, fail(0), () => {
        ran = true;
        return { content: { n: 2 }, result: undefined };
      }),
    ).toThrow(`held: ${file}.lock`);
    expect(ran).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n');
    rmdirSync(`${file}.lock`);
    expect(updateJsonFileSync(file, fail(0), (current) => ({ content: { n: (current as { n: number }).n + 1 }, result: 'done' }))).toBe('done');
    expect(readFileSync(file, 'utf8')).toBe('{"n":2}\n');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a lock that cannot be made: "proceed" runs the work without it, and leaves alone a lock someone else takes meanwhile', () => {
    const lock = lockPath();
    const parent = dirname(lock);
    writeFileSync(parent, 'a file where the lock\'s directory should be');
    const result = withLockSync(lock, { staleMs: 60_000, waitMs: 20, unavailable: 'proceed' }, () => {
      // Meanwhile another process clears the way and takes the lock.
      rmSync(parent);
      mkdirSync(lock, { recursive: true });
      return 'ran';
    });
    expect(result).toBe('ran');
    expect(existsSync(lock)).toBe(true);
  });

  it('a lock that cannot be made: a failing policy gets the file-system error, and the work does not run', () => {
    const dir = dirname(dirname(lockPath()));
    writeFileSync(join(dir, 'sub'), '');
    let ran = false;
    expect(() => withLockSync(join(dir, 'sub', 'file.json.lock'), fail(20), () => (ran = true))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect(ran).toBe(false);
  });

  it('withLock with "proceed" on a held lock runs the work and leaves the holder\'s lock in place', async () => {
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    expect(await withLock(lock, { staleMs: 60_000, waitMs: 20, unavailable: 'proceed' }, () => 'ran')).toBe('ran');
    expect(existsSync(lock)).toBe(true);
  });

  it('waitMs 0 means one attempt: a lock released right after is not waited for', async () => {
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    let ran = false;
    const attempt = withLock(lock, fail(0), () => (ran = true));
    rmdirSync(lock); // the holder lets go just after the one attempt
    await expect(attempt).rejects.toThrow(`held: ${lock}`);
    expect(ran).toBe(false);
  });

  it('a lock exactly staleMs old is still its holder\'s; one a millisecond older is taken over as left by a dead process', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.UTC(2026, 10, 26, 12, 0, 0);
    vi.setSystemTime(now);
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    const policy: LockPolicy = { staleMs: 5_000, waitMs: 0, unavailable: (l) => new Error(`held: ${l}`) };
    utimesSync(lock, (now - 5_000) / 1000, (now - 5_000) / 1000);
    expect(() => withLockSync(lock, policy, () => 'ran')).toThrow(`held: ${lock}`);
    utimesSync(lock, (now - 5_001) / 1000, (now - 5_001) / 1000);
    expect(withLockSync(lock, policy, () => 'ran')).toBe('ran');
  });

  it('a waiter does not sleep out its whole wait: a lock let go of is taken long before the wait would end', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    let ran = false;
    const done = withLock(lock, fail(10_000), () => (ran = true));
    rmdirSync(lock); // the holder lets go at once
    await vi.advanceTimersByTimeAsync(100);
    expect(ran).toBe(true);
    await done;
    expect(existsSync(lock)).toBe(false);
  });
});

// The one lock primitive behind config writes (wait, then fail) and state saves (wait
// briefly, then proceed). Another process holding the lock is played by a lock directory
// made here; the cross-process behaviour is in test/e2e/concurrency.test.ts.

import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withLock, withLockSync, type LockPolicy } from '../../src/config/atomic.js';

let dirs: string[] = [];
afterEach(() => {
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

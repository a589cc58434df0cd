// The edges of src/config/atomic.ts that the main tests leave open: the sentence and hint a
// full disk gives, anything without a known code passed on as is (even a thrown undefined),
// a failed write that reports its own cause rather than the clean-up of a temporary file,
// a file planted at the temporary name never written through, and the lock policies at
// their edges (a lock that cannot be made, a lock released just after a zero wait, and a
// held lock that an async 'proceed' must leave to its holder; and the first retries come
// soon, on a fake clock).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmdirSync, rmSync, symlinkSync, utimesSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { updateJsonFileSync, withLock, withLockSync, writeError, writeFileAtomic, type LockPolicy } from '../../src/config/atomic.js';
import { HostctlError } from '../../src/errors.js';

let dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-atomic-edges-'));
  dirs.push(dir);
  return dir;
}

function withCode(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: raw`), { code });
}

const posix = process.platform !== 'win32';
const HINT = 'Check the directory and its permissions, or point HOSTCTL_CONFIG_DIR at a directory of yours.';

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

describe('the lock policies at their edges', () => {
  function lockPath(): string {
    return join(tempDir(), 'sub', 'file.json.lock');
  }
  const fail = (waitMs: number): LockPolicy => ({ staleMs: 60_000, waitMs, unavailable: (lock) => new Error(`held: ${lock}`) });

  it("updateJsonFileSync takes the file's own lock, <file>.lock: one held by another process is waited for, and the file is left alone", () => {
    const file = join(tempDir(), 'budget.json');
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
    const dir = tempDir();
    const parent = join(dir, 'sub');
    const lock = join(parent, 'file.json.lock');
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
    const dir = tempDir();
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

  it('a waiter sleeps 2, 4, 6 … ms between attempts, 20 at most, each with up to 5 ms of jitter added', async () => {
    const sleeps = async (random: number): Promise<number[]> => {
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
      vi.spyOn(Math, 'random').mockReturnValue(random);
      const asked: number[] = [];
      const faked = globalThis.setTimeout;
      vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
        asked.push(ms ?? 0);
        return faked(fn, ms);
      }) as typeof setTimeout);
      const lock = lockPath();
      mkdirSync(lock, { recursive: true });
      const done = withLock(lock, fail(10_000), () => 'ran');
      await vi.advanceTimersByTimeAsync(200);
      rmdirSync(lock);
      await vi.advanceTimersByTimeAsync(30);
      expect(await done).toBe('ran');
      vi.restoreAllMocks();
      vi.useRealTimers();
      return asked.slice(0, 12);
    };
    expect(await sleeps(0)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 20, 20]);
    expect(await sleeps(0.999)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 20, 20].map((ms) => ms + 4.995));
  });

  it('a waiter retries soon at first: a lock let go of is taken within a few milliseconds, not after a long sleep', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const lock = lockPath();
    mkdirSync(lock, { recursive: true });
    let ran = false;
    const done = withLock(lock, fail(1_000), () => (ran = true));
    rmdirSync(lock); // the holder lets go at once
    await vi.advanceTimersByTimeAsync(7);
    expect(ran).toBe(true);
    await done;
    expect(existsSync(lock)).toBe(false);
  });
});

// Issue 31, the state store's writes: a state file that cannot be read is never replaced,
// and no save writes without holding the lock. A lock held by another process (played by
// a lock directory made here) that stays held is never written past: the rejected mark
// goes to a fallback place instead. The save waits on the clock for as long as a live
// holder may keep the lock; the test's clock runs a hundred times as fast as the real one.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StateStore } from '../../src/config/state.js';

let dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** From now on, Date.now() runs `times` as fast as the real clock (until the test ends). */
function fastClock(times: number): void {
  const realNow = Date.now.bind(Date);
  const start = realNow();
  vi.spyOn(Date, 'now').mockImplementation(() => start + (realNow() - start) * times);
}

function place(): { state: string; fallback: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-statelock-'));
  dirs.push(dir);
  return { state: join(dir, 'config', 'state.json'), fallback: join(dir, 'fallback') };
}

/** A lock directory that another process holds, `ageMs` old (negative: it looks newer than now). */
function heldLock(state: string, ageMs: number): string {
  const lock = `${state}.lock`;
  mkdirSync(lock, { recursive: true });
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(lock, t, t);
  return lock;
}

describe('StateStore.save and the lock', () => {
  it('a lock that stays held is never written past: the mark goes to the fallback place, state.json is untouched', () => {
    const { state, fallback } = place();
    // Younger than 5 s however long the save waits: a live holder, not a killed one.
    const lock = heldLock(state, -60_000);
    fastClock(100);
    new StateStore(state, [fallback]).markRejected('fp-held', 401);
    expect(existsSync(state)).toBe(false);
    expect(existsSync(lock)).toBe(true);
    expect(readFileSync(join(fallback, 'rejected.json'), 'utf8')).toContain('fp-held');
    expect(new StateStore(state, [fallback]).rejected('fp-held')).toMatchObject({ status: 401 });
  });
});

describe('StateStore.save and a file it cannot read', () => {
  it('a state.json damaged after the run read it is not replaced: the mark goes to the fallback place', () => {
    const { state, fallback } = place();
    const store = new StateStore(state, [fallback]);
    store.rememberIds(new URL('https://api.example.invalid/v1'), 'apps', ['ap-1']);
    // Another process (an older hostctl, a full disk) leaves it unreadable meanwhile.
    const damaged = '{"rejected":{"fp-other":{"at":1764000000000,"sta';
    mkdirSync(join(state, '..'), { recursive: true });
    writeFileSync(state, damaged);
    store.markRejected('fp-new', 401);
    expect(readFileSync(state, 'utf8')).toBe(damaged);
    expect(readFileSync(join(fallback, 'rejected.json'), 'utf8')).toContain('fp-new');
  });
});

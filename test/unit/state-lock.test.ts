// Issue 31: no run writes the state file without holding its lock. A lock held by another
// process (played by a lock directory made here) that stays held is never written past:
// the rejected mark goes to a fallback place instead.
// The wait is real (the lock's age is the file system's): this file costs about 6 s.

import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StateStore } from '../../src/config/state.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

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
    new StateStore(state, [fallback]).markRejected('fp-held', 401);
    expect(existsSync(state)).toBe(false);
    expect(existsSync(lock)).toBe(true);
    expect(readFileSync(join(fallback, 'rejected.json'), 'utf8')).toContain('fp-held');
    expect(new StateStore(state, [fallback]).rejected('fp-held')).toMatchObject({ status: 401 });
  }, 20_000);
});

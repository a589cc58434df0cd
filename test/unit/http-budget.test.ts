// The shared budget's decisions, on an injected clock: no test here waits.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BudgetFile, SLOT_MARGIN_MS, decide, normalizeBudget, observe, on429, reserve, type BudgetData, type Send } from '../../src/http/budget.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const headers = (limit: number, remaining: number, reset: number) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(reset),
});

/** A sliding-window server of `limit` per `windowMs`, answering each request at once. */
function server(limit: number, windowMs: number) {
  const seen: number[] = [];
  return {
    take(now: number): { ok: boolean; headers: Record<string, string> } {
      while (seen.length > 0 && seen[0]! <= now - windowMs) seen.shift();
      if (seen.length >= limit) return { ok: false, headers: headers(limit, 0, Math.ceil((seen[0]! + windowMs - now) / 1000)) };
      seen.push(now);
      return { ok: true, headers: headers(limit, limit - seen.length, Math.ceil((seen[0]! + windowMs - now) / 1000)) };
    },
  };
}

describe('the budget on an injected clock', () => {
  it('an empty budget lets a request go', () => {
    expect(decide({ sends: [] }, T0)).toEqual({ ok: true });
  });

  it('learns the window from a request alone in it, then paces the eleventh to the first slot freed', () => {
    let d: BudgetData = { sends: [] };
    for (let i = 0; i < 10; i++) {
      const now = T0 + i * 10;
      expect(decide(d, now).ok).toBe(true);
      d = reserve(d, now);
      d = observe(d, headers(10, 9 - i, 5), now, now + 2);
    }
    // Reset 5 s: the window is 5 s from the answer, from which each slot's freeing is counted.
    expect(d.windowMs).toBe(5_000);
    const verdict = decide(d, T0 + 200);
    expect(verdict.ok).toBe(false);
    // The first answer arrived at T0 + 2: its slot frees a window (and the margin) after that.
    if (!verdict.ok) expect(verdict.waitMs).toBe(T0 + 2 + d.windowMs! + SLOT_MARGIN_MS - (T0 + 200));
  });

  it('five clients sharing one budget against a 10-per-5s server: no 429, and near the minimum time', () => {
    const srv = server(10, 5_000);
    let d: BudgetData = { sends: [] };
    let now = T0;
    let sent = 0;
    let refused = 0;
    // Round-robin over five clients, each asking again as soon as the budget says.
    const due = [0, 0, 0, 0, 0].map(() => T0);
    while (sent < 40) {
      const i = due.indexOf(Math.min(...due));
      now = Math.max(now, due[i]!);
      const verdict = decide(d, now);
      if (!verdict.ok) {
        due[i] = now + verdict.waitMs;
        continue;
      }
      d = reserve(d, now);
      const answer = srv.take(now + 1);
      if (!answer.ok) {
        refused++;
        d = on429(d, now, 1_000, now + 2);
      } else {
        sent++;
        d = observe(d, answer.headers, now, now + 2);
      }
      due[i] = now + 3;
    }
    expect(refused).toBe(0);
    // 40 requests at 10 per 5 s: the last goes out at 15 s at the earliest.
    expect(now - T0).toBeGreaterThanOrEqual(15_000);
    expect(now - T0).toBeLessThan(15_000 * 1.05);
  });

  it('a request that reached the server late frees its slot a window after its answer, not after its reservation', () => {
    let d: BudgetData = { sends: [], limit: 1, windowMs: 5_000 };
    d = reserve(d, T0);
    // The answer came 400 ms after the reservation (a busy machine): the server may have counted it as late as that.
    d = observe(d, headers(1, 0, 5), T0, T0 + 400);
    expect(decide(d, T0 + 5_100)).toEqual({ ok: false, waitMs: 400 + 5_000 + SLOT_MARGIN_MS - 5_100 });
  });

  it('counts what other machines spent with the same token', () => {
    let d: BudgetData = { sends: [], limit: 10, windowMs: 5_000 };
    d = reserve(d, T0);
    // The server has seen 8 requests in the window: 7 came from elsewhere.
    d = observe(d, headers(10, 2, 3), T0, T0 + 5);
    d = reserve(d, T0 + 10);
    d = reserve(d, T0 + 20);
    expect(decide(d, T0 + 30).ok).toBe(false);
  });

  it('without a known window, the server view decides: remaining less what was sent since', () => {
    let d: BudgetData = { sends: [], view: { remaining: 1, resetAt: T0 + 3_000, sentAt: T0 - 10, at: T0 - 5 } };
    expect(decide(d, T0).ok).toBe(true);
    d = reserve(d, T0);
    expect(decide(d, T0 + 1)).toEqual({ ok: false, waitMs: 2_999 });
    // Past the reset one request goes; the others wait for its answer.
    d = reserve(d, T0 + 3_000);
    expect(decide(d, T0 + 3_001).ok).toBe(false);
  });

  it('a 429 blocks everyone until Retry-After and lengthens the window, and the refused request is not counted', () => {
    let d: BudgetData = { sends: [], limit: 10, windowMs: 5_000 };
    d = reserve(d, T0);
    d = on429(d, T0, 2_000, T0 + 5);
    expect(d.sends).toEqual([]);
    expect(d.windowMs).toBe(5_500);
    expect(decide(d, T0 + 1_000)).toEqual({ ok: false, waitMs: 1_005 });
    expect(decide(d, T0 + 2_005).ok).toBe(true);
  });

  it('a reservation drops the sends older than two windows, and only those, once the window is known', () => {
    const old: Send[] = [
      [T0 - 30_000, T0 - 30_000],
      [T0 - 10_100, T0 - 10_020],
      [T0 - 10_050, T0 - 9_990],
      [T0 - 1_000, T0 - 900],
    ];
    expect(reserve({ sends: old, limit: 10, windowMs: 5_000 }, T0).sends).toEqual([...old.slice(2), [T0, T0]]);
    // Without a window, an hour's sends are kept: the server view counts from its own request.
    expect(reserve({ sends: old }, T0).sends).toEqual([...old, [T0, T0]]);
  });

  it('an older answer arriving late does not overwrite a newer view', () => {
    let d: BudgetData = { sends: [[T0, T0], [T0 + 10, T0 + 10]] };
    d = observe(d, headers(10, 5, 4), T0 + 10, T0 + 20);
    d = observe(d, headers(10, 6, 4), T0, T0 + 30);
    expect(d.view?.remaining).toBe(5);
  });

  it('a damaged or hostile file is an empty or bounded budget', () => {
    expect(normalizeBudget('nonsense')).toEqual({ sends: [] });
    const d = normalizeBudget({ sends: [[1, 2], 'x', [3, 1], [4, 4]], windowMs: 1e15, blockedUntil: Date.now() + 1e12 });
    expect(d.sends).toEqual([[1, 2], [4, 4]]);
    expect(d.windowMs).toBeUndefined();
    expect(d.blockedUntil).toBeUndefined();
  });
});

describe('BudgetFile', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('two clients on one file share the window: the second sees the first one\'s reservations', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostctl-budget-'));
    dirs.push(dir);
    let now = T0;
    const a = new BudgetFile(join(dir, 'state.json'), 'fp', () => now);
    const b = new BudgetFile(join(dir, 'state.json'), 'fp', () => now);
    const first = a.tryReserve();
    expect(first).toEqual({ sentAt: T0 });
    a.observe(headers(2, 1, 5), T0);
    now += 10;
    expect(b.tryReserve()).toEqual({ sentAt: T0 + 10 });
    now += 10;
    const third = a.tryReserve();
    expect('waitMs' in third).toBe(true);
  });
});

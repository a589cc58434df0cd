// The shared budget's decisions, on an injected clock: no test here waits.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  Budget,
  FileBudgetStore,
  PROBE_LAPSE_MS,
  PROBE_STEP_MS,
  SLOT_MARGIN_MS,
  allRates,
  budgetLayer,
  budgetLeft,
  decide,
  freeSlots,
  lastRate,
  normalizeBudget,
  observe,
  on429,
  pollInterval,
  prune,
  register,
  reserve,
  unprobe,
  unreserve,
  windowUse,
  type BudgetData,
  type BudgetStore,
  type Send,
} from '../../src/http/budget.js';
import { MAX_HORIZON_MS } from '../../src/http/ratelimit.js';
import { compose, type Answer, type Exchange } from '../../src/http/layers.js';
import { rateHeaders, slidingWindowServer } from '../support/window-server.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const headers = rateHeaders;
const server = slidingWindowServer;

/** A budget that knows a window of 10 per 5 s: one request at T0, answered at T0 + 2 (with its rate state). */
const known = (): BudgetData => observe(reserve({ sends: [] }, T0), headers(10, 9, 5), T0, T0 + 2);

describe('the budget on an injected clock', () => {
  it('an empty budget lets a request go, as the probe of the window', () => {
    expect(decide({ sends: [] }, T0)).toEqual({ ok: true, probe: true });
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
    // At the reset the view says nothing more: one request goes, as the probe.
    expect(decide(d, T0 + 3_000)).toEqual({ ok: true, probe: true });
    // Past the reset one request goes; the others wait for its answer.
    d = reserve(d, T0 + 3_000);
    expect(decide(d, T0 + 3_001).ok).toBe(false);
  });

  it('with the window known, a Reset that has passed changes nothing: an answer to an earlier request still updates the view', () => {
    // Five of the server's count were other machines' at T0 - 90; a request reserved at T0 - 50 is in flight.
    let d: BudgetData = {
      sends: [[T0 - 100, T0 - 90], [T0 - 50, T0 - 50]],
      limit: 10,
      windowMs: 5_000,
      view: { remaining: 4, resetAt: T0 + 1_000, sentAt: T0 - 100, at: T0 - 90, foreign: 5 },
      answeredAt: T0 - 90,
    };
    d = reserve(d, T0 + 1_000);
    // Its answer: three counted, all this machine's. The others have gone.
    d = observe(d, headers(10, 7, 4), T0 - 50, T0 + 1_005);
    expect(d.view?.foreign).toBe(0);
    expect(freeSlots(d, T0 + 1_010)).toBe(7);
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

  it('a reservation keeps only the sends still in the window, at most as many as the limit: the last to free', () => {
    const old: Send[] = [
      [T0 - 30_000, T0 - 30_000],
      [T0 - 10_100, T0 - 10_020],
      [T0 - 5_050, T0 - 4_990],
      [T0 - 1_000, T0 - 900],
    ];
    expect(reserve({ sends: old, limit: 10, windowMs: 5_000 }, T0).sends).toEqual([...old.slice(2), [T0, T0]]);
    // Counted exactly a window and the margin ago: it no longer counts, and goes. Counted more
    // than an hour ahead (a clock that jumped back, a damaged file): no decision can trust it.
    const edges: Send[] = [
      [T0 - 5_100, T0 - 5_000 - SLOT_MARGIN_MS],
      [T0 + MAX_HORIZON_MS, T0 + MAX_HORIZON_MS],
      [T0 + MAX_HORIZON_MS + 1, T0 + MAX_HORIZON_MS + 1],
    ];
    expect(reserve({ sends: edges, limit: 10, windowMs: 5_000 }, T0).sends).toEqual([[T0, T0], edges[1]]);
    // More in the window than the limit: the ones that free last are kept (by when they were counted).
    const many: Send[] = [
      [T0 - 400, T0 - 100],
      [T0 - 300, T0 - 250],
      [T0 - 200, T0 - 190],
    ];
    expect(prune(many, T0, 5_000, 2)).toEqual([many[0], many[2]]);
    // Without a window, an hour's sends, the last `limit` by reservation: the server view counts from its own request.
    expect(reserve({ sends: old }, T0).sends).toEqual([...old, [T0, T0]]);
    expect(reserve({ sends: old, limit: 2 }, T0).sends).toEqual([old[3], [T0, T0]]);
    // Even when an older reservation was counted later: it is the last by reservation that the view's remaining counts.
    const late: Send[] = [
      [T0 - 300, T0 - 10],
      [T0 - 200, T0 - 190],
    ];
    expect(reserve({ sends: late, limit: 2 }, T0).sends).toEqual([late[1], [T0, T0]]);
  });

  it('a reservation stamped before one already in the budget (another machine\'s clock) takes its place by time: the last by reservation are kept', () => {
    let d: BudgetData = { sends: [[T0 + 100, T0 + 100]], limit: 2, view: { remaining: 5, resetAt: T0 + 3_000, sentAt: T0 + 50, at: T0 + 52 } };
    d = reserve(d, T0);
    expect(d.sends).toEqual([[T0, T0], [T0 + 100, T0 + 100]]);
    d = reserve(d, T0 + 1);
    expect(d.sends).toEqual([[T0 + 1, T0 + 1], [T0 + 100, T0 + 100]]);
    // The one reserved after the view's request still counts against what it said was left.
    expect(freeSlots(d, T0 + 2)).toBe(4);
  });

  it('pruning to the limit changes no decision: slots and foreign requests alike', () => {
    // A 10-per-5s window kept full by this machine for a minute, with other machines' requests seen in the views.
    const srv = server(10, 5_000);
    let d: BudgetData = { sends: [] };
    let unpruned: Send[] = [];
    let now = T0;
    for (let i = 0; i < 200; i++) {
      const v = decide(d, now);
      if (v.ok) {
        d = reserve(d, now);
        unpruned = [...unpruned, [now, now]];
        if (i % 7 === 0) srv.take(now); // another machine's request
        const a = srv.take(now + 1);
        d = a.ok ? observe(d, a.headers, now, now + 3) : on429(d, now, 1_000, now + 3);
        // A refused request is not counted (on429 drops it).
        unpruned = a.ok ? unpruned.map((s): Send => (s[0] === now ? [s[0], now + 3] : s)) : unpruned.filter((s) => s[0] !== now);
      }
      // The decision from the pruned file equals the decision from every send ever made.
      expect(decide(d, now + 5)).toEqual(decide({ ...d, sends: unpruned }, now + 5));
      expect(d.sends.length).toBeLessThanOrEqual(10);
      now += v.ok ? 7 : Math.max(5, v.waitMs);
    }
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
    // A file that lists no sends (written by another version, or cut short) has none.
    expect(normalizeBudget({ limit: 20 }, T0)).toEqual({ sends: [], limit: 20 });
  });

  it('a damaged file keeps only well-formed sends, in order of reservation', () => {
    const sends = [[40, 45], [1, 2], [5], [6, 7, 8], ['a', 9], ['3', 9], [null, 9], [10, 'b'], [3, '9'], [12, 11], { 0: 20, 1: 21, length: 2 }, [30, 30]];
    expect(normalizeBudget({ sends }, T0).sends).toEqual([[1, 2], [30, 30], [40, 45]]);
  });

  it('a damaged file keeps a view only with its remaining, its request and its answer; a rate state only with when it was seen', () => {
    const view = { remaining: 3, sentAt: T0, at: T0 + 2 };
    expect(normalizeBudget({ sends: [], view: { ...view, resetAt: T0 + 5_000, foreign: 1 } }, T0).view).toEqual({ ...view, resetAt: T0 + 5_000, foreign: 1 });
    expect(normalizeBudget({ sends: [], view: { ...view, resetAt: 'soon', foreign: null } }, T0).view).toEqual(view);
    for (const key of ['remaining', 'sentAt', 'at'] as const) expect(normalizeBudget({ sends: [], view: { ...view, [key]: 'x' } }, T0).view).toBeUndefined();
    expect(normalizeBudget({ sends: [], view: 'x' }, T0).view).toBeUndefined();
    expect(normalizeBudget({ sends: [], rate: { seenAt: T0, limit: 'x', remaining: 5, resetAt: T0 + 1_000 } }, T0).rate).toEqual({ seenAt: T0, remaining: 5, resetAt: T0 + 1_000 });
    expect(normalizeBudget({ sends: [], rate: { seenAt: 'x', remaining: 5 } }, T0)).toEqual({ sends: [] });
    expect(normalizeBudget({ sends: [], rate: 'x' }, T0)).toEqual({ sends: [] });
  });

  it('a damaged file keeps times no further ahead of the run\'s clock than they can be: an hour, a probe\'s lapse', () => {
    const hour = 3_600_000;
    const at = (extra: object) => normalizeBudget({ sends: [], ...extra }, T0);
    // An answer after the run's clock is the clock stepping back: up to an hour, the budget moves onto it.
    expect(at({ answeredAt: T0 + hour }).answeredAt).toBe(T0);
    expect(at({ answeredAt: T0 + hour + 1 }).answeredAt).toBeUndefined();
    expect(at({ answeredAt: 'x' })).toEqual({ sends: [] });
    expect(at({ blockedUntil: T0 + hour }).blockedUntil).toBe(T0 + hour);
    expect(at({ blockedUntil: T0 + hour + 1 }).blockedUntil).toBeUndefined();
    expect(at({ probe: { id: 'p', lapses: T0 + PROBE_LAPSE_MS } }).probe).toEqual({ id: 'p', lapses: T0 + PROBE_LAPSE_MS });
    expect(at({ probe: { id: 'p', lapses: T0 + PROBE_LAPSE_MS + 1 } }).probe).toBeUndefined();
    expect(at({ probe: { id: 'p' } }).probe).toBeUndefined();
    expect(at({ probe: { id: 5, lapses: T0 } }).probe).toBeUndefined();
    expect(at({ probe: 'p' }).probe).toBeUndefined();
    // The window: longer than nothing, up to an hour.
    expect(at({ windowMs: hour }).windowMs).toBe(hour);
    expect(at({ windowMs: hour + 1 }).windowMs).toBeUndefined();
    expect(at({ windowMs: 0 }).windowMs).toBeUndefined();
    expect(at({ windowMs: -5 }).windowMs).toBeUndefined();
    expect(at({ windowMs: 1 }).windowMs).toBe(1);
  });

  it('a damaged file keeps waiters with a lapse up to an hour ahead of the run\'s clock, at most the latest 64', () => {
    // The run's clock an hour and a half from the machine's (a shared store's clock, or a test's).
    const now = Date.now() + 5_400_000;
    const d = normalizeBudget({ sends: [], waiters: { a: now + 1_000, b: 'x', c: now + 3_600_000, e: now + 3_600_001 } }, now);
    expect(d.waiters).toEqual({ a: now + 1_000, c: now + 3_600_000 });
    expect(normalizeBudget({ sends: [], waiters: { b: 'x' } }, now)).toEqual({ sends: [] });
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`w${i}`, now + i]));
    expect(Object.keys(normalizeBudget({ sends: [], waiters: many }, now).waiters!)).toEqual(Object.keys(many).slice(1));
  });

  it('with the window unknown, windowUse says the limit and the waiters, and no count of the window', () => {
    const d = register({ sends: [[T0, T0 + 2]], limit: 20 }, 'w', T0 + 5_000, T0);
    expect(windowUse(d, T0 + 10)).toEqual({ spent: undefined, limit: 20, waiting: 1 });
  });
});

describe('what the window holds, exactly', () => {
  it('what other machines spent counts for a window after the answer that told it, not a millisecond longer', () => {
    const d: BudgetData = { sends: [], limit: 10, windowMs: 5_000, view: { remaining: 3, sentAt: T0 - 2, at: T0, foreign: 7 }, answeredAt: T0 };
    expect(freeSlots(d, T0 + 4_999)).toBe(3);
    expect(freeSlots(d, T0 + 5_000)).toBe(10);
  });

  it('a view taken while the window was unknown counts no other machines, even once a late answer teaches the window', () => {
    let d: BudgetData = reserve(reserve({ sends: [] }, T0), T0 + 10);
    // The second request's answer comes first: 2 counted, so neither is alone, and the window stays unknown.
    d = observe(d, headers(10, 8, 5), T0 + 10, T0 + 15);
    expect(d.windowMs).toBeUndefined();
    expect(d.view?.foreign).toBeUndefined();
    // The first one's answer, late, was alone in the window: it teaches the length, and leaves the newer view.
    d = observe(d, headers(10, 9, 5), T0, T0 + 20);
    expect(d.windowMs).toBe(5_000);
    expect(d.view?.sentAt).toBe(T0 + 10);
    // Both requests are this machine's: 8 left, none spent elsewhere.
    expect(freeSlots(d, T0 + 30)).toBe(8);
    expect(windowUse(d, T0 + 30)).toEqual({ spent: 2, limit: 10, waiting: 0 });
  });

  it('without a limit known, an answer counts no other machines: the window holds what this machine sent', () => {
    const d = observe(reserve({ sends: [], windowMs: 5_000 }, T0), { 'x-ratelimit-remaining': '4' }, T0, T0 + 2);
    expect(d.view).toEqual({ remaining: 4, resetAt: undefined, sentAt: T0, at: T0 + 2, foreign: undefined });
    expect(windowUse(d, T0 + 10)).toEqual({ spent: 1, limit: undefined, waiting: 0 });
    // Nor is the window full: the request goes.
    expect(decide(d, T0 + 10)).toEqual({ ok: true });
  });

  it('the next slot to free is the one the server counted first, whatever the order of the reservations', () => {
    // Three of 3 in a 1-second window: a request reserved at T0 whose answer came at T0 + 300,
    // one reserved at T0 + 20 and answered at T0 + 50, one reserved at T0 + 100 and answered at once.
    const d: BudgetData = {
      sends: [[T0, T0 + 300], [T0 + 20, T0 + 50], [T0 + 100, T0 + 100]],
      limit: 3,
      windowMs: 1_000,
      answeredAt: T0 + 300,
    };
    expect(decide(d, T0 + 400)).toEqual({ ok: false, waitMs: 50 + 1_000 + SLOT_MARGIN_MS - 400 });
    expect(decide(d, T0 + 1_060)).toEqual({ ok: true });
    expect(decide(reserve(d, T0 + 1_060), T0 + 1_061)).toEqual({ ok: false, waitMs: 100 + 1_000 + SLOT_MARGIN_MS - 1_061 });
  });

  it('a window other machines filled frees a window after the answer that said so', () => {
    const d: BudgetData = { sends: [], limit: 10, windowMs: 5_000, view: { remaining: 0, sentAt: T0 - 5, at: T0, foreign: 10 }, answeredAt: T0 };
    expect(decide(d, T0 + 100)).toEqual({ ok: false, waitMs: 4_900 });
  });

  it('a damaged file that says a limit of 0 makes a request wait a window; it does not fail', () => {
    const d = normalizeBudget({ sends: [], limit: 0, windowMs: 5_000 }, T0);
    expect(decide(d, T0)).toEqual({ ok: false, waitMs: 5_000 });
  });

  it('with the window unknown, what was sent after the view\'s request counts against what the view said was left', () => {
    const d: BudgetData = {
      // Two before the view's request, the view's own, and four after it.
      sends: [[T0 - 30, T0], [T0 - 20, T0], [T0, T0 + 2], [T0 + 10, T0 + 10], [T0 + 12, T0 + 12], [T0 + 15, T0 + 15], [T0 + 20, T0 + 20]],
      view: { remaining: 5, resetAt: T0 + 3_000, sentAt: T0, at: T0 + 2 },
    };
    expect(freeSlots(d, T0 + 30)).toBe(1);
  });

  it('an answer takes as ours only the requests the server surely counts: reserved by the answer, counted within its window', () => {
    // At T0 + 20 the server counts 3 in its window of 5 s (from T0 - 4,980, less the margin).
    const d: BudgetData = {
      sends: [
        // Counted at the window's start less the margin: the server may have let it go.
        [T0 - 4_990, T0 - 4_990],
        // Within the margin: ours.
        [T0 - 4_980, T0 - 4_980],
        // The request answered.
        [T0, T0],
        // Reserved after the answer arrived (an answer written with a later update): not in its count.
        [T0 + 50, T0 + 50],
      ],
      limit: 10,
      windowMs: 5_000,
    };
    expect(observe(d, headers(10, 7, 5), T0, T0 + 20).view?.foreign).toBe(1);
  });
});

describe('what the budget tells the commands', () => {
  it('windowUse counts this machine\'s requests in the window and its margin, the other machines\' of the view, and the waiters', () => {
    const d: BudgetData = {
      // Counted a window and the margin ago: gone; a millisecond later, and 10 ms ago: in it.
      sends: [[T0 - 5_010, T0 - 5_010], [T0 - 5_009, T0 - 5_009], [T0 - 10, T0 - 10]],
      limit: 10,
      windowMs: 5_000,
      view: { remaining: 5, sentAt: T0 - 10, at: T0 - 5, foreign: 3 },
    };
    expect(windowUse(register(d, 'w', T0 + 1_000, T0), T0)).toEqual({ spent: 2 + 3, limit: 10, waiting: 1 });
  });

  it('budgetLeft: the limit less what the window holds, never below 0; with the window unknown, what the last view said, if anything', () => {
    // Counted exactly a window ago: free again.
    const d: BudgetData = { sends: [[T0 - 5_000, T0 - 5_000], [T0 - 4_999, T0 - 4_999], [T0 - 10, T0 - 10]], limit: 10, windowMs: 5_000 };
    expect(budgetLeft(d, T0)).toBe(8);
    expect(budgetLeft({ ...d, limit: 1 }, T0)).toBe(0);
    const view = { remaining: 4, sentAt: T0 - 10, at: T0 - 5 };
    expect(budgetLeft({ sends: [], limit: 10, view }, T0)).toBe(4);
    expect(budgetLeft({ sends: [], windowMs: 5_000, view }, T0)).toBe(4);
    expect(budgetLeft({ sends: [] }, T0)).toBeUndefined();
  });

  it('pollInterval: a share of the window learnt per request, rounded up; before one is learnt, of the platform\'s 20 a minute', () => {
    // 10 a 5-second window: a request each 500 ms; a quarter of the budget, one each 2 s.
    expect(pollInterval({ sends: [], limit: 10, windowMs: 5_000 }, 0.25)).toBe(2_000);
    expect(pollInterval({ sends: [], limit: 3, windowMs: 1_000 }, 1)).toBe(334);
    // No budget, no limit, no window, or a limit of 0 (a damaged file): 3 s a request, half of the budget one each 6 s.
    const unknown: (BudgetData | undefined)[] = [undefined, { sends: [] }, { sends: [], limit: 10 }, { sends: [], windowMs: 5_000 }, { sends: [], limit: 0, windowMs: 5_000 }];
    for (const u of unknown) expect(pollInterval(u, 0.5), JSON.stringify(u)).toBe(6_000);
  });
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A new directory of the test's own, removed after the file's tests. */
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hostctl-budget-'));
  dirs.push(d);
  return d;
}

/** One process's budget in the file of token `fp` beside `stateFile`, on the clock `now`; with the file's path. */
function fileBudget(stateFile: string, fp: string, now: () => number = Date.now): Budget & { path: string } {
  const store = new FileBudgetStore(stateFile, fp, now);
  return Object.assign(new Budget(store), { path: store.path });
}

/** What a budget's file holds, read as a later process would at `now`. */
const stored = (a: { path: string }, now: number): BudgetData => normalizeBudget(JSON.parse(readFileSync(a.path, 'utf8')), now);

/** Two processes' budgets on one new file, on one clock the test moves. */
function twoOnOneFile() {
  const clock = { now: T0 };
  const file = join(tempDir(), 'state.json');
  return { clock, a: fileBudget(file, 'fp', () => clock.now), b: fileBudget(file, 'fp', () => clock.now) };
}

describe('what an answer teaches, and what a 429 undoes', () => {
  it('an answer without rate headers changes only when it was counted: the limit, the window, the view and the rate state stay', () => {
    const d = reserve(known(), T0 + 100);
    expect(observe(d, {}, T0 + 100, T0 + 104)).toEqual({ ...d, sends: [[T0, T0 + 2], [T0 + 100, T0 + 104]], answeredAt: T0 + 104 });
  });

  it('an answer with some of the headers takes what they say and keeps the rest', () => {
    const d = reserve(known(), T0 + 100);
    // Remaining and Reset without a Limit: a new view, the limit kept.
    const noLimit = observe(d, { 'x-ratelimit-remaining': '6', 'x-ratelimit-reset': '4' }, T0 + 100, T0 + 104);
    expect(noLimit.limit).toBe(10);
    expect(noLimit.view).toEqual({ remaining: 6, resetAt: T0 + 104 + 4_000, sentAt: T0 + 100, at: T0 + 104, foreign: 2 });
    // A Limit alone: the limit learnt, the view kept.
    const limitOnly = observe(d, { 'x-ratelimit-limit': '20' }, T0 + 100, T0 + 104);
    expect(limitOnly.limit).toBe(20);
    expect(limitOnly.view).toEqual(d.view);
    // A Limit of 0 is no limit: the one known stays.
    expect(observe(d, headers(0, 0, 5), T0 + 100, T0 + 104).limit).toBe(10);
  });

  it('the window is learnt only from a Reset ahead of the answer, up to an hour, and only ever shortened', () => {
    const first = reserve({ sends: [] }, T0);
    // Reset 0: the window frees the request's slot at once, which says nothing of its length.
    expect(observe(first, headers(10, 9, 0), T0, T0 + 2).windowMs).toBeUndefined();
    expect(observe(first, headers(10, 9, 3_600), T0, T0 + 2).windowMs).toBe(3_600_000);
    // A longer Reset (a request that reached the server later) does not lengthen a window learnt.
    const d = reserve({ ...known(), windowMs: 4_000 }, T0 + 10_000);
    expect(observe(d, headers(10, 9, 5), T0 + 10_000, T0 + 10_002).windowMs).toBe(4_000);
  });

  it('of two answers to requests reserved in the same millisecond, the later one sets the view', () => {
    let d = reserve(reserve(known(), T0 + 100), T0 + 100);
    d = observe(d, headers(10, 8, 5), T0 + 100, T0 + 103);
    d = observe(d, headers(10, 7, 5), T0 + 100, T0 + 104);
    expect(d.view).toMatchObject({ remaining: 7, at: T0 + 104 });
  });

  it('answeredAt is the latest answer\'s arrival, even when a store\'s clock steps back', () => {
    const d = observe(known(), headers(10, 9, 5), T0, T0 + 100);
    expect(d.answeredAt).toBe(T0 + 100);
    expect(observe(d, headers(10, 9, 5), T0, T0 + 50).answeredAt).toBe(T0 + 100);
  });

  it('a 429 drops only the refused request, and keeps a longer block and a window it cannot know', () => {
    const sends: Send[] = [[T0, T0 + 2], [T0 + 100, T0 + 100], [T0 + 200, T0 + 200]];
    const d: BudgetData = { ...known(), sends };
    expect(on429(d, T0 + 100, 1_000, T0 + 202).sends).toEqual([sends[0], sends[2]]);
    // No reservation of that time (another machine's clock): nothing to drop.
    expect(on429(d, T0 + 150, 1_000, T0 + 202).sends).toEqual(sends);
    // An earlier 429's longer block stays.
    expect(on429({ ...d, blockedUntil: T0 + 10_000 }, T0 + 100, 1_000, T0 + 202).blockedUntil).toBe(T0 + 10_000);
    // The window unknown stays unknown; one near an hour grows to the hour, no further.
    expect(on429({ sends }, T0 + 100, 1_000, T0 + 202).windowMs).toBeUndefined();
    expect(on429({ ...d, windowMs: 3_500_000 }, T0 + 100, 1_000, T0 + 202).windowMs).toBe(3_600_000);
  });

  it('a 429 records its rate headers in the rate state, and without any keeps the one known', () => {
    const d = known();
    expect(on429(d, T0, 1_000, T0 + 100, headers(10, 0, 3))).toMatchObject({ rate: { limit: 10, remaining: 0, resetAt: T0 + 3_100, seenAt: T0 + 100 } });
    expect(on429(d, T0, 1_000, T0 + 100).rate).toEqual(d.rate);
  });
});

describe('two processes on one budget file', () => {
  it('two clients on one file share the window: the second sees the first one\'s reservations', async () => {
    const { clock, a, b } = twoOnOneFile();
    const first = await a.tryReserve();
    expect(first).toEqual({ sentAt: T0, probe: true });
    await a.observe(headers(2, 1, 5), T0);
    clock.now += 10;
    expect(await b.tryReserve()).toEqual({ sentAt: T0 + 10 });
    clock.now += 10;
    const third = await a.tryReserve();
    expect('waitMs' in third).toBe(true);
  });
});

describe('the budget file', () => {
  it('one that cannot be written does not fail the command: the request goes unbudgeted', async () => {
    const home = tempDir();
    // Where the budget's directory should be, a file: nothing can be written beneath it.
    writeFileSync(join(home, 'budget'), '');
    const store = new FileBudgetStore(join(home, 'state.json'), 'fp', () => T0);
    expect(await store.update(() => ({ data: { sends: [] }, result: 'written' }), 'fallback')).toBe('fallback');
    const a = fileBudget(join(home, 'state.json'), 'fp', () => T0);
    expect(await a.tryReserve()).toEqual({ sentAt: T0 });
  });

  it('is named by the fingerprint\'s letters, digits, _ and -, at most 64 of them: no fingerprint names a file outside the budget directory', () => {
    const state = join(tmpdir(), 'hostctl-nowhere', 'state.json');
    const budgetDir = join(tmpdir(), 'hostctl-nowhere', 'budget');
    expect(new FileBudgetStore(state, 'Ab-9_z').path).toBe(join(budgetDir, 'Ab-9_z.json'));
    expect(new FileBudgetStore(state, '../../etc/pass wd').path).toBe(join(budgetDir, 'etcpasswd.json'));
    expect(new FileBudgetStore(state, `${'f'.repeat(64)}0`).path).toBe(join(budgetDir, `${'f'.repeat(64)}.json`));
  });

  it('an update with nothing to change writes nothing: a batch that must wait, a withdraw with no claim, an unprobe with no probe', async () => {
    const a = fileBudget(join(tempDir(), 'state.json'), 'fp', () => T0 + 10);
    // A window of one, spent; with a field of a later version's, which a rewrite would drop.
    const text = `${JSON.stringify({ sends: [[T0, T0 + 2]], limit: 1, windowMs: 5_000, answeredAt: T0 + 2, later: 'kept' })}\n`;
    mkdirSync(dirname(a.path));
    writeFileSync(a.path, text);
    expect(await a.tryReserve()).toEqual({ waitMs: 2 + 5_000 + SLOT_MARGIN_MS - 10 });
    await a.withdraw();
    await a.unprobe();
    expect(readFileSync(a.path, 'utf8')).toBe(text);
  });

  it('whose lock another process keeps holding: an update gives up waiting for it and goes without it, leaving the holder its lock', async () => {
    const a = fileBudget(join(tempDir(), 'state.json'), 'fp', () => T0);
    // A live holder's lock: newer than now however long the wait, never taken over as left by a dead process.
    const lock = `${a.path}.lock`;
    mkdirSync(lock, { recursive: true });
    const ahead = Date.now() / 1000 + 3_600;
    utimesSync(lock, ahead, ahead);
    // The wait (2 s) is on this machine's clock, which here runs half a second at each look: no real wait.
    let clock = Date.now();
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => (clock += 500));
    try {
      expect(await a.tryReserve()).toEqual({ sentAt: T0, probe: true });
    } finally {
      spy.mockRestore();
    }
    expect(existsSync(lock)).toBe(true);
    expect(stored(a, T0).sends).toEqual([[T0, T0]]);
  });

  it('a store that cannot be reached at all (its every update the fallback): the request goes unbudgeted, and its answer fails nothing', async () => {
    const unreachable: BudgetStore = { now: () => T0, read: async () => ({ sends: [] }), update: async (_fn, fallback) => fallback };
    const a = new Budget(unreachable);
    expect(await a.tryReserve()).toEqual({ sentAt: T0 });
    expect(await a.observe(headers(10, 9, 5), T0)).toBeUndefined();
  });

  it('seen() is what this process last wrote, and an empty budget before its first update', async () => {
    let now = T0;
    const a = fileBudget(join(tempDir(), 'state.json'), 'fp', () => now);
    expect(a.seen()).toEqual({ sends: [] });
    await a.tryReserve();
    now += 2;
    await a.observe(headers(10, 9, 5), T0);
    expect(a.seen()).toEqual(stored(a, now));
    expect(a.seen().sends).toEqual([[T0, T0 + 2]]);
  });

  it('allRates: the last rate state of every token seen on the machine, newest first, whatever order the directory lists them in', async () => {
    const home = tempDir();
    const state = join(home, 'state.json');
    const fingerprints = ['fa', 'fb', 'fc', 'fd'];
    for (const fp of fingerprints) await fileBudget(state, fp, () => T0).updateRate(() => ({ seenAt: T0 }));
    // The order the directory lists them in: each a second newer than the one before, so newest first is its reverse.
    const listed = readdirSync(join(home, 'budget')).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5));
    expect([...listed].sort()).toEqual(fingerprints);
    for (const [i, fp] of listed.entries()) await fileBudget(state, fp, () => T0).updateRate(() => ({ seenAt: T0 + i * 1_000, remaining: 10 - i }));
    // A token whose remaining is not known shows nothing, nor one with no rate state yet.
    await fileBudget(state, 'fe', () => T0).updateRate(() => ({ seenAt: T0 + 9_000 }));
    await fileBudget(state, 'ff', () => T0).tryReserve();
    // Nor is a file other than a budget one (an editor's backup) a token.
    writeFileSync(join(home, 'budget', 'fa.json~'), readFileSync(join(home, 'budget', 'fa.json')));
    expect(await allRates(state)).toEqual(listed.map((fp, i) => ({ fingerprint: fp, rate: { seenAt: T0 + i * 1_000, remaining: 10 - i } })).reverse());
    expect(await lastRate(state, 'fe')).toEqual({ seenAt: T0 + 9_000 });
  });

  it('allRates: none on a machine where no token was seen yet (no budget directory)', async () => {
    expect(await allRates(join(tempDir(), 'state.json'))).toEqual([]);
  });
});

describe('the probe: the first request into a window the budget has no fresh view of', () => {
  it('one goes; the others wait for its answer, in short steps; then they share what it says is left', () => {
    let d: BudgetData = { sends: [] };
    const first = decide(d, T0, 'batch', 'a');
    expect(first).toEqual({ ok: true, probe: true });
    d = reserve(d, T0, 'a');
    expect(d.probe).toEqual({ id: 'a', lapses: T0 + PROBE_LAPSE_MS });
    // The caller that sent it is not held back by it.
    expect(decide(d, T0 + 1, 'batch', 'a')).toEqual({ ok: true, probe: true });
    expect(decide(d, T0 + 1, 'batch', 'b')).toEqual({ ok: false, waitMs: PROBE_STEP_MS, deferred: true });
    expect(decide(d, T0 + 1, 'interactive', 'c')).toEqual({ ok: false, waitMs: PROBE_STEP_MS, deferred: true });
    // Another client spent all but this one: the window is spent, until its Reset.
    d = observe(d, headers(10, 0, 3), T0, T0 + 5);
    expect(d.probe).toBeUndefined();
    expect(decide(d, T0 + 6, 'batch', 'b')).toEqual({ ok: false, waitMs: 3_000 - 1 });
  });

  it('a probe that died holds the others back until it lapses, no longer; unprobe() lets them go at once', () => {
    const d = reserve({ sends: [] }, T0, 'a');
    expect(decide(d, T0 + PROBE_LAPSE_MS - 10, 'batch', 'b')).toEqual({ ok: false, waitMs: 10, deferred: true });
    expect(decide(d, T0 + PROBE_LAPSE_MS, 'batch', 'b')).toEqual({ ok: true, probe: true });
    expect(decide(unprobe(d, 'b'), T0 + 1, 'batch', 'b').ok).toBe(false);
    expect(decide(unprobe(d, 'a'), T0 + 1, 'batch', 'b')).toEqual({ ok: true, probe: true });
    // With no probe out (it was answered, or lapsed and forgotten), there is nothing to undo.
    expect(unprobe({ sends: [[T0, T0]] }, 'a')).toEqual({ sends: [[T0, T0]] });
  });

  it('a reservation given back unsent frees its slot and lifts its probe; one the server answered stays counted', () => {
    let d = reserve({ sends: [] }, T0, 'a');
    expect(decide(d, T0 + 1, 'batch', 'b').ok).toBe(false);
    expect(unreserve(d, T0, 'a')).toEqual({ sends: [] });
    expect(decide(unreserve(d, T0, 'a'), T0 + 1, 'batch', 'b')).toEqual({ ok: true, probe: true });
    d = observe(reserve(known(), T0 + 100), headers(10, 8, 5), T0 + 100, T0 + 104);
    expect(unreserve(d, T0 + 100, 'a')).toEqual(d);
  });

  it('on the file: a probe that fails is undone at once: the next process probes without waiting for it to lapse', async () => {
    const { clock, a, b } = twoOnOneFile();
    expect(await a.tryReserve()).toEqual({ sentAt: T0, probe: true });
    clock.now += 1;
    expect(await b.tryReserve()).toEqual({ waitMs: PROBE_STEP_MS, deferred: true });
    await a.unprobe();
    expect(await b.tryReserve()).toEqual({ sentAt: T0 + 1, probe: true });
  });

  it('a view older than a window is no view; a 429 forgets it, so after the block one request probes again', () => {
    let d: BudgetData = { sends: [] };
    d = reserve(d, T0, 'a');
    d = observe(d, headers(10, 9, 5), T0, T0 + 2);
    expect(decide(d, T0 + 100)).toEqual({ ok: true });
    expect(decide(d, T0 + 2 + 5_000)).toEqual({ ok: true, probe: true });
    d = on429(reserve(d, T0 + 100), T0 + 100, 1_000, T0 + 102);
    expect(decide(d, T0 + 1_200)).toEqual({ ok: true, probe: true });
  });

  it('six clients with a fresh budget, one request left in a window another client spent: not one 429', async () => {
    const srv = server(10, 5_000);
    for (let i = 0; i < 9; i++) srv.take(T0 - 1_000 + i);
    let d: BudgetData = { sends: [] };
    let refused = 0;
    let sent = 0;
    // All six ask at once, and again as each is told; an answer takes 20 ms.
    const due = new Map(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => [id, T0]));
    const inFlight: { id: string; sentAt: number; at: number }[] = [];
    let now = T0;
    while (sent < 6) {
      const nextDue = Math.min(...due.values());
      const nextAnswer = inFlight.length > 0 ? Math.min(...inFlight.map((f) => f.at)) : Infinity;
      now = Math.min(nextDue, nextAnswer);
      if (nextAnswer <= nextDue) {
        const f = inFlight.splice(inFlight.findIndex((x) => x.at === nextAnswer), 1)[0]!;
        const a = srv.take(f.sentAt);
        if (a.ok) {
          sent++;
          d = observe(d, a.headers, f.sentAt, now);
        } else {
          refused++;
          d = on429(d, f.sentAt, 1_000, now, a.headers);
          due.set(f.id, now + 1_000);
        }
        continue;
      }
      const id = [...due].find(([, t]) => t === nextDue)![0];
      const v = decide(d, now, 'batch', id);
      if (!v.ok) {
        due.set(id, now + Math.max(5, v.waitMs));
        continue;
      }
      d = reserve(d, now, v.probe ? id : undefined);
      inFlight.push({ id, sentAt: now, at: now + 20 });
      due.delete(id);
    }
    expect(refused).toBe(0);
    expect(sent).toBe(6);
  });
});

describe('one process, many callers at once (an MCP server\'s calls)', () => {
  const ORIGIN = 'https://api.example.invalid';

  /**
   * `calls` requests at once through one process's budget layer, on one clock that a wait
   * moves on, against a sliding-window server of 5 a second that answers each request a
   * turn of the event loop after it is sent; `warm` first sends one request alone.
   */
  async function burst(calls: number, warm: boolean) {
    const clock = { now: T0 };
    const srv = server(5, 1_000);
    const wait = async (ms: number) => {
      const wake = clock.now + ms;
      await new Promise((resolve) => setImmediate(resolve));
      clock.now = Math.max(clock.now, wake);
    };
    const budget = new Budget(new FileBudgetStore(join(tempDir(), 'state.json'), 'fp', () => clock.now));
    const send = compose([budgetLayer({ budget, origin: ORIGIN, pace: wait, defer: wait, now: () => clock.now })], async (): Promise<Answer> => {
      await new Promise((resolve) => setImmediate(resolve));
      const r = srv.take(clock.now);
      return { status: r.ok ? 200 : 429, headers: r.headers, text: '' };
    });
    const get = (): Exchange => ({ method: 'GET', url: new URL(`${ORIGIN}/v1/apps`), headers: {}, body: undefined });
    if (warm) await send(get());
    const statuses = (await Promise.all(Array.from({ length: calls }, () => send(get())))).map((a) => a.status);
    return { statuses, refused: srv.refused };
  }

  it('on a cold budget, one caller goes first and the others wait for its answer: the server refuses none', async () => {
    expect(await burst(25, false)).toEqual({ statuses: Array.from({ length: 25 }, () => 200), refused: 0 });
  });

  it('on a warm budget, each caller reserves a slot of its own: the server refuses none', async () => {
    expect(await burst(25, true)).toEqual({ statuses: Array.from({ length: 25 }, () => 200), refused: 0 });
  });
});

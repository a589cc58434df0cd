// Interactive commands go first in the shared budget: the pure decisions on an injected
// clock, then two processes' budgets sharing one file on that clock. No test here waits.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Budget, FileBudgetStore, DEFER_STEP_MS, SLOT_MARGIN_MS, WAITER_GRACE_MS, decide, normalizeBudget, observe, pendingWaiters, register, reserve, withdraw, type BudgetData } from '../../src/http/budget.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const W = 5_000;
const headers = (limit: number, remaining: number, resetS: number) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(resetS),
});

/** A budget that knows a window of `limit` per 5 s, with `used` requests sent at T0 (answered at T0 + 2). */
function full(limit: number, used: number): BudgetData {
  let d: BudgetData = { sends: [] };
  for (let i = 0; i < used; i++) {
    d = reserve(d, T0);
    d = observe(d, headers(limit, limit - 1 - i, W / 1000), T0, T0 + 2);
  }
  return d;
}

describe('the decisions', () => {
  it('without waiters, batch and interactive decide alike', () => {
    const d = full(2, 1);
    expect(decide(d, T0 + 10, 'batch')).toEqual({ ok: true });
    expect(decide(d, T0 + 10, 'interactive')).toEqual({ ok: true });
    const spent = full(2, 2);
    expect(decide(spent, T0 + 10, 'batch')).toEqual(decide(spent, T0 + 10, 'interactive'));
  });

  it('a pending interactive waiter gets the next free slot: a batch defers, briefly, until it is taken', () => {
    const freeAt = T0 + 2 + W + 10;
    let d = register(full(1, 1), 'person', freeAt + WAITER_GRACE_MS, T0 + 100);
    // The slot frees: the batch defers (a short step), the interactive one takes it.
    const batch = decide(d, freeAt, 'batch');
    expect(batch).toEqual({ ok: false, waitMs: DEFER_STEP_MS, deferred: true });
    // A window after the last answer: it goes as the probe of the window, the batch waiting for its answer.
    expect(decide(d, freeAt, 'interactive', 'person')).toEqual({ ok: true, probe: true });
    d = reserve(withdraw(d, 'person', freeAt), freeAt);
    expect(pendingWaiters(d, freeAt).count).toBe(0);
    // Now the window is full again: the batch waits for the next slot, not deferred.
    const after = decide(d, freeAt + 1, 'batch');
    expect(after.ok).toBe(false);
    if (!after.ok) expect(after.deferred).toBeUndefined();
  });

  it('a batch still takes the slots beyond those the waiters claim', () => {
    const d = register(register(full(4, 1), 'a', T0 + 60_000, T0), 'b', T0 + 60_000, T0);
    // 3 free, 2 claimed: one is the batch's.
    expect(decide(d, T0 + 10, 'batch')).toEqual({ ok: true });
    const d2 = reserve(d, T0 + 10);
    expect(decide(d2, T0 + 20, 'batch')).toMatchObject({ ok: false, deferred: true });
  });

  it('an interactive command takes a free slot though others wait for one; a batch, the default, defers; nobody defers to their own claim', () => {
    const d = register(full(2, 1), 'a', T0 + 60_000, T0);
    expect(decide(d, T0 + 10, 'interactive', 'b')).toEqual({ ok: true });
    expect(decide(d, T0 + 10)).toEqual({ ok: false, waitMs: DEFER_STEP_MS, deferred: true });
    expect(decide(d, T0 + 10, 'batch', 'a')).toEqual({ ok: true });
  });

  it('a waiter that lapsed (it died, or gave up silently) holds nobody up', () => {
    const d = register(full(2, 1), 'gone', T0 + 1_000, T0);
    expect(decide(d, T0 + 500, 'batch')).toMatchObject({ ok: false, deferred: true });
    expect(decide(d, T0 + 1_000, 'batch')).toEqual({ ok: true });
    // The deferral never outlasts the claim.
    expect(decide(d, T0 + 950, 'batch')).toEqual({ ok: false, waitMs: 50, deferred: true });
  });

  it('a claim renewed keeps the others; lapsed claims go; at most 64 are kept, the oldest pushed out', () => {
    const renewed = register({ ...full(1, 1), waiters: { gone: T0 + 100, me: T0 + 500, other: T0 + 9_000 } }, 'me', T0 + 9_000, T0 + 100);
    expect(renewed.waiters).toEqual({ other: T0 + 9_000, me: T0 + 9_000 });
    let d = full(1, 1);
    for (let i = 0; i < 70; i++) d = register(d, `w${i}`, T0 + 60_000, T0);
    expect(Object.keys(d.waiters!)).toEqual(Array.from({ length: 64 }, (_, i) => `w${i + 6}`));
    // One of them renewing its claim pushes out nobody.
    const again = register(d, 'w10', T0 + 90_000, T0 + 1);
    expect(Object.keys(again.waiters!).length).toBe(64);
    expect(again.waiters).toMatchObject({ w6: T0 + 60_000, w10: T0 + 90_000 });
  });

  it('a waiter that withdraws leaves the others pending and the rest of the budget as it was; lapsed claims go with it', () => {
    const d: BudgetData = { ...full(1, 1), waiters: { me: T0 + 9_000, lapsed: T0 + 100, other: T0 + 9_000 } };
    expect(withdraw(d, 'me', T0 + 100)).toEqual({ ...full(1, 1), waiters: { other: T0 + 9_000 } });
    expect(withdraw(d, 'me', T0 + 99)).toEqual({ ...full(1, 1), waiters: { lapsed: T0 + 100, other: T0 + 9_000 } });
    // The last claim gone: no waiters at all.
    expect(withdraw(d, 'me', T0 + 9_000)).toEqual(full(1, 1));
  });

  it('waiters survive the file round trip; damaged entries are dropped', () => {
    const d = register(full(1, 1), 'person', T0 + 9_000, T0);
    expect(normalizeBudget(JSON.parse(JSON.stringify(d))).waiters).toEqual({ person: T0 + 9_000 });
    expect(normalizeBudget({ sends: [], waiters: { x: 'soon', y: null } }).waiters).toBeUndefined();
  });
});

/** A sliding-window server of `limit` per W, answering each request at once. */
function server(limit: number) {
  const seen: number[] = [];
  return (now: number) => {
    while (seen.length > 0 && seen[0]! <= now - W) seen.shift();
    if (seen.length >= limit) return { ok: false, headers: headers(limit, 0, Math.ceil((seen[0]! + W - now) / 1000)) };
    seen.push(now);
    return { ok: true, headers: headers(limit, limit - seen.length, Math.ceil((seen[0]! + W - now) / 1000)) };
  };
}

describe('a batch loop and a person on one clock', () => {
  it('four batch clients keep the window full; an interactive request that arrives later is sent at the next free slot, before any queued batch one', () => {
    const take = server(1);
    let d: BudgetData = { sends: [] };
    const order: string[] = [];
    let refused = 0;
    // Four batch clients from T0, each asking again as soon as the budget says; the person
    // asks once at T0 + 6 s, when every batch client is already queued.
    const due = new Map<string, number>([
      ['b1', T0],
      ['b2', T0],
      ['b3', T0],
      ['b4', T0],
      ['person', T0 + 6_000],
    ]);
    let personSentAt: number | undefined;
    let now = T0;
    let queuedBeforePerson = 0;
    while (order.length < 12) {
      const [who, at] = [...due].sort((a, b) => a[1] - b[1] || (a[0] === 'person' ? 1 : b[0] === 'person' ? -1 : 0))[0]!;
      now = Math.max(now, at);
      const interactive = who === 'person';
      const v = decide(d, now, interactive ? 'interactive' : 'batch', who);
      if (!v.ok) {
        if (interactive) d = register(d, who, now + v.waitMs + WAITER_GRACE_MS, now);
        due.set(who, now + Math.max(5, v.waitMs));
        continue;
      }
      if (interactive) {
        // Every batch client is waiting for a slot when the person arrives.
        queuedBeforePerson = [...due].filter(([k, t]) => k !== 'person' && t > now).length;
        d = withdraw(d, who, now);
      }
      d = reserve(d, now);
      const a = take(now + 1);
      if (!a.ok) refused++;
      d = observe(d, a.headers, now, now + 2);
      order.push(who);
      if (interactive) {
        personSentAt = now;
        due.delete(who);
      } else {
        due.set(who, now + 3);
      }
    }
    expect(refused).toBe(0);
    expect(personSentAt).toBeDefined();
    // Before the person: the batch requests of the first two windows (T0, T0 + 5 s); the
    // person's is the very next one sent, although four batch clients queued earlier.
    expect(order.indexOf('person')).toBe(2);
    expect(queuedBeforePerson).toBe(4);
    // It went at the first slot freed after it came (the third window opens at T0 + 10 s).
    expect(personSentAt!).toBeLessThan(T0 + 10_000 + 100);
  });
});

describe('two processes sharing the budget file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-priority-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A batch and an interactive client on one file and one clock; the batch's request fills a window of 1, then the person asks. */
  async function scene(name: string) {
    const clock = { now: T0 };
    const state = join(dir, name, 'state.json');
    const batch = new Budget(new FileBudgetStore(state, 'fp', () => clock.now), 'batch');
    const person = new Budget(new FileBudgetStore(state, 'fp', () => clock.now), 'interactive');
    const first = await batch.tryReserve();
    if (!('sentAt' in first)) throw new Error('the first reservation must succeed');
    clock.now += 2;
    await batch.observe(headers(1, 0, 5), first.sentAt);
    clock.now += 100;
    const waiting = await person.tryReserve();
    return { clock, batch, person, waiting, freeAt: T0 + 2 + W + 10 };
  }

  it('the interactive waiter registers, a batch defers to it, and once it has its slot the batch goes on', async () => {
    const { clock, batch, person, waiting, freeAt } = await scene('served');
    expect('waitMs' in waiting).toBe(true);
    expect(Object.keys((await person.read()).waiters ?? {})).toEqual([person.id]);
    // The slot frees: the batch, first to ask, defers; the person takes it.
    clock.now = freeAt;
    expect(await batch.tryReserve()).toEqual({ waitMs: DEFER_STEP_MS, deferred: true });
    expect(await person.tryReserve()).toEqual({ sentAt: freeAt, probe: true });
    expect((await person.read()).waiters).toBeUndefined();
    // No longer deferred: it waits, like anyone, for the one slot the person now holds.
    expect(await batch.tryReserve()).toEqual({ waitMs: W + SLOT_MARGIN_MS });
  });

  it('a Budget made without a priority is a batch: it waits without a claim, and defers to an interactive waiter', async () => {
    const { clock, person, freeAt } = await scene('default');
    const plain = new Budget(new FileBudgetStore(join(dir, 'default', 'state.json'), 'fp', () => clock.now));
    expect(await plain.tryReserve()).toEqual({ waitMs: freeAt - clock.now });
    expect(Object.keys((await person.read()).waiters ?? {})).toEqual([person.id]);
    clock.now = freeAt;
    expect(await plain.tryReserve()).toEqual({ waitMs: DEFER_STEP_MS, deferred: true });
  });

  it('a waiter that gives up withdraws, and the batch goes at once', async () => {
    const { clock, batch, person, freeAt } = await scene('gave-up');
    clock.now = freeAt;
    expect(await batch.tryReserve()).toMatchObject({ deferred: true });
    await person.withdraw();
    expect(await batch.tryReserve()).toEqual({ sentAt: freeAt, probe: true });
  });
});

// The budget's bounded size (groups) and its leases, on an injected clock: no test here waits.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  Budget,
  BudgetFile,
  FileStore,
  KEEP_SENDS,
  LEASE_FIRST,
  LEASE_MIN_LIMIT,
  MAX_GROUPS,
  SLOT_MARGIN_MS,
  compact,
  decide,
  freeSlots,
  leaseSize,
  normalizeBudget,
  observe,
  on429,
  register,
  reserve,
  windowUse,
  type BudgetData,
  type BudgetStore,
  type Send,
} from '../../src/http/budget.js';
import { MAX_HORIZON_MS } from '../../src/http/ratelimit.js';
import { rateHeaders, slidingWindowServer } from '../support/window-server.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const headers = rateHeaders;
const server = slidingWindowServer;

/** A seeded generator, so that a failure can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function stateFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-lease-'));
  dirs.push(dir);
  return join(dir, 'state.json');
}

/** The store's contract without the file: its content goes through JSON and normalizeBudget, as the file's does. */
class MemoryStore implements BudgetStore<true> {
  private text = '';
  updates = 0;
  constructor(readonly now: () => number) {}
  update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }): T {
    this.updates++;
    const now = this.now();
    const { data, result } = fn(this.read(), now);
    if (data !== undefined) this.text = JSON.stringify(data);
    return result;
  }
  read(): BudgetData {
    return normalizeBudget(this.text === '' ? undefined : JSON.parse(this.text), this.now());
  }
}

/** A file store that counts its locked updates. */
function counting(store: FileStore): BudgetStore<true> & { updates: number } {
  const out = {
    updates: 0,
    now: () => store.now(),
    read: () => store.read(),
    update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): T {
      out.updates++;
      return store.update(fn, fallback);
    },
  };
  return out;
}

describe('a busy window in a bounded budget: older reservations folded into groups', () => {
  it(`a window of a million: the file keeps the newest ${KEEP_SENDS} one by one and at most ${MAX_GROUPS} groups, and counts every request`, () => {
    let d: BudgetData = observe(reserve({ sends: [] }, T0), headers(1_000_000, 999_999, 60), T0, T0 + 1);
    for (let i = 1; i < 5_000; i++) {
      const now = T0 + i * 3;
      d = reserve(d, now);
      d = observe(d, headers(1_000_000, 999_999 - i, 60), now, now + 1);
    }
    expect(d.sends.length).toBe(KEEP_SENDS);
    expect(d.groups!.length).toBeLessThanOrEqual(MAX_GROUPS);
    expect(windowUse(d, T0 + 15_000).spent).toBe(5_000);
    expect(JSON.stringify(d).length).toBeLessThan(20_000);
    // A window later every request has freed its slot, and the groups are gone.
    const later = compact(d, T0 + 15_000 + 60_000 + 20);
    expect(later.groups).toBeUndefined();
    expect(normalizeBudget(JSON.parse(JSON.stringify(d)), T0 + 15_000)).toEqual(d);
  });

  it(`the sends beyond the newest ${KEEP_SENDS} fold into one group: all of them, reserved as late as the latest, counted until the latest count`, () => {
    const old: Send[] = [
      [T0 - 600, T0 - 100],
      [T0 - 500, T0 - 400],
    ];
    const recent = Array.from({ length: KEEP_SENDS }, (_, i): Send => [T0 - 400 + i, T0 - 400 + i]);
    const out = compact({ sends: [...old, ...recent], limit: 1_000, windowMs: 60_000 }, T0);
    expect(out.sends).toEqual(recent);
    expect(out.groups).toEqual([{ n: 2, from: T0 - 600, to: T0 - 500, last: T0 - 100 }]);
  });

  it('a folded group takes its place among the others by its last count, and merges with its nearest', () => {
    const at = (last: number) => ({ n: 1, from: last, to: last, last });
    const groups = Array.from({ length: MAX_GROUPS }, (_, i) => at(T0 - 100_000 + i * 1_000));
    // One send beyond the newest kept one by one, counted between the first two groups, 500 ms from each.
    const sends: Send[] = [[T0 - 99_600, T0 - 99_500], ...Array.from({ length: KEEP_SENDS }, (_, i): Send => [T0 - 1_000 + i, T0 - 1_000 + i])];
    const out = compact({ sends, groups, limit: 1_000, windowMs: 200_000 }, T0);
    expect(out.groups).toEqual([{ n: 2, from: T0 - 100_000, to: T0 - 99_600, last: T0 - 99_500 }, ...groups.slice(1)]);
  });

  it('groups go once no decision can need them: counted a window and the margin ago, or more than an hour ahead; with the window unknown, an hour back', () => {
    const at = (last: number) => ({ n: 1, from: last - 10, to: last - 10, last });
    const edge = T0 - 60_000 - SLOT_MARGIN_MS;
    const d: BudgetData = { sends: [], groups: [at(edge), at(edge + 1), at(T0 + MAX_HORIZON_MS), at(T0 + MAX_HORIZON_MS + 1)], limit: 1_000, windowMs: 60_000 };
    expect(compact(d, T0).groups).toEqual([at(edge + 1), at(T0 + MAX_HORIZON_MS)]);
    const unknown: BudgetData = { sends: [], groups: [at(T0 - MAX_HORIZON_MS), at(T0 - MAX_HORIZON_MS + 1), at(T0 - 1_000)] };
    expect(compact(unknown, T0).groups).toEqual([at(T0 - MAX_HORIZON_MS + 1), at(T0 - 1_000)]);
  });

  it('never frees a slot sooner than every reservation one by one would', () => {
    // 400 a 2-second window, clients sending in bursts, answers arriving 0–40 ms late: the
    // bounded budget's verdict is never more generous than the one of every send kept.
    const srv = server(400, 2_000);
    const rnd = random(29);
    let d: BudgetData = { sends: [] };
    let all: BudgetData = { sends: [] };
    let now = T0;
    const inFlight: { sentAt: number; due: number }[] = [];
    for (let step = 0; step < 3_000; step++) {
      now += Math.floor(rnd() * 4);
      while (inFlight.length > 0 && inFlight[0]!.due <= now) {
        const { sentAt } = inFlight.shift()!;
        // The server counts it as it arrives, and answers at once.
        const a = srv.take(now);
        d = a.ok ? observe(d, a.headers, sentAt, now) : on429(d, sentAt, 1_000, now);
        all = a.ok ? observe(all, a.headers, sentAt, now) : on429(all, sentAt, 1_000, now);
      }
      const verdict = decide(d, now);
      const exact = decide(all, now);
      expect(freeSlots(d, now) ?? 0).toBeLessThanOrEqual(freeSlots(all, now) ?? 0);
      if (verdict.ok) expect(exact.ok).toBe(true);
      else if (!exact.ok) expect(verdict.waitMs).toBeGreaterThanOrEqual(exact.waitMs);
      if (!verdict.ok) continue;
      d = reserve(d, now);
      // The reference keeps every send of the window: the same rules without the bound.
      all = { ...all, sends: [...all.sends.filter(([, c]) => c > now - 3_000), [now, now] as Send] };
      inFlight.push({ sentAt: now, due: now + Math.floor(rnd() * 40) });
      inFlight.sort((x, y) => x.due - y.due);
    }
    expect(d.groups?.length ?? 0).toBeGreaterThan(0);
    expect(srv.refused).toBe(0);
  });

  it('a group frees its slots a window after its latest count, as its latest member would', () => {
    const group = { n: 10, from: T0, to: T0 + 10, last: T0 + 500 };
    const d: BudgetData = { sends: [], groups: [group], limit: 10, windowMs: 1_000, answeredAt: T0 + 500 };
    const exact: BudgetData = { ...d, groups: undefined, sends: Array.from({ length: 10 }, (_, i): Send => [T0 + i, i === 9 ? T0 + 500 : T0 + 20]) };
    expect(decide(d, T0 + 600)).toEqual({ ok: false, waitMs: 500 + 1_000 + SLOT_MARGIN_MS - 600 });
    // One by one, nine would free sooner: the group never does.
    const one = decide(exact, T0 + 600);
    expect(one.ok).toBe(false);
    if (!one.ok) expect(one.waitMs).toBeLessThan(500 + 1_000 + SLOT_MARGIN_MS - 600);
    // And then all ten are free, not a millisecond later.
    expect(decide(d, T0 + 500 + 1_000 + SLOT_MARGIN_MS - 1)).toEqual({ ok: false, waitMs: 1 });
    expect(freeSlots(d, T0 + 500 + 1_000 + SLOT_MARGIN_MS)).toBe(10);
  });

  it('a group that may have left the server\'s window is not counted as ours: other machines are never taken for less than they may be', () => {
    // At T0 the server counts 10 in its window (the last 1,000 ms); five of ours were
    // reserved from T0 - 1,100 to T0 - 900, some of which it may no longer count.
    const d: BudgetData = { sends: [], groups: [{ n: 5, from: T0 - 1_100, to: T0 - 900, last: T0 - 900 }], limit: 100, windowMs: 1_000 };
    expect(observe(d, headers(100, 90, 1), T0 - 950, T0).view?.foreign).toBe(10);
    // Reserved after the window's start, all five are in it.
    const inside: BudgetData = { ...d, groups: [{ n: 5, from: T0 - 900, to: T0 - 800, last: T0 - 800 }] };
    expect(observe(inside, headers(100, 90, 1), T0 - 800, T0).view?.foreign).toBe(5);
  });

  it('an answer takes as ours this process\'s lease by the slots it sent, other leases whole once they lapsed, and no group that began at the window\'s start', () => {
    // At T0 the server counts 40 in its window (the last 1,000 ms, less the margin).
    const own = { owner: 'me', from: T0 - 500, used: 2 };
    const d: BudgetData = {
      sends: [],
      groups: [
        // Reserved as the window began, less the margin: the server may have let them go.
        { n: 7, from: T0 - 1_000 - SLOT_MARGIN_MS, to: T0 - 900, last: T0 - 900 },
        // An older lease of this process's, lapsed: all of it.
        { n: 5, from: T0 - 800, to: T0 - 600, last: T0 - 600, owner: 'me' },
        // This process's lease: the two slots it sent.
        { n: 4, from: T0 - 500, to: T0 - 100, last: T0 - 100, owner: 'me' },
        // Another process's lease granted at the same time, lapsed: all of it.
        { n: 3, from: T0 - 500, to: T0 - 100, last: T0 - 100, owner: 'other' },
        // Another process's lease still running: none of it surely counted.
        { n: 6, from: T0 - 200, to: T0 + 500, last: T0 + 500, owner: 'other' },
      ],
      limit: 100,
      windowMs: 1_000,
    };
    expect(observe(d, headers(100, 60, 1), T0 - 300, T0, own).view?.foreign).toBe(40 - 5 - 2 - 3);
  });

  it(`beyond ${MAX_GROUPS} groups the nearest two merge; a running lease only when no other pair can, a lapsed one like any group`, () => {
    const plain = Array.from({ length: MAX_GROUPS - 1 }, (_, i) => ({ n: 1, from: T0 - 50_000 + i * 100, to: T0 - 50_000 + i * 100, last: T0 - 50_000 + i * 100 }));
    const leased = { n: 1, from: T0 - 1_000, to: T0, last: T0, owner: 'x' };
    const next = { n: 2, from: T0 - 5, to: T0 + 1, last: T0 + 1 };
    const d: BudgetData = { sends: [], groups: [...plain, leased, next], limit: 1_000, windowMs: 60_000 };
    // The lease lapses at T0: from then on it merges with its nearest neighbour, and loses its holder.
    expect(compact(d, T0).groups).toEqual([...plain, { n: 3, from: T0 - 1_000, to: T0 + 1, last: T0 + 1 }]);
    // Still running: the nearest pair without it merges.
    expect(compact(d, T0 - 1).groups).toEqual([{ n: 2, from: T0 - 50_000, to: T0 - 49_900, last: T0 - 49_900 }, ...plain.slice(2), leased, next]);
    // Exactly MAX_GROUPS groups: none merges.
    expect(compact({ ...d, groups: [...plain, leased] }, T0).groups).toEqual([...plain, leased]);
  });

  it('when every pair holds a running lease, the nearest two merge all the same: the budget stays bounded', () => {
    const leases = Array.from({ length: MAX_GROUPS + 1 }, (_, i) => ({ n: 1, from: T0 - 10, to: T0 + 1_000, last: T0 + 1_000 + i * 10 - (i === MAX_GROUPS ? 9 : 0), owner: `p${i}` }));
    const out = compact({ sends: [], groups: leases, limit: 1_000, windowMs: 60_000 }, T0);
    expect(out.groups).toEqual([...leases.slice(0, -2), { n: 2, from: T0 - 10, to: T0 + 1_000, last: leases.at(-1)!.last }]);
  });
});

describe('leases: several slots in one update', () => {
  let now = T0;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    now = T0;
  });
  afterEach(() => vi.useRealTimers());

  /** A budget whose window (1,000 a minute) the first answer taught. */
  const taught = (limit = 1_000): BudgetData => observe(reserve({ sends: [] }, T0), headers(limit, limit - 1, 60), T0, T0 + 1);

  it('only where a slot is worth less than a lock: a limit of 100 or more, a fresh view, no waiter, no probe, half the window left after it', () => {
    expect(leaseSize(taught(), T0 + 10, 8)).toBe(8);
    expect(leaseSize(taught(), T0 + 10, 1)).toBe(0);
    // Two wanted: the smallest lease there is.
    expect(leaseSize(taught(), T0 + 10, 2)).toBe(2);
    // The platform's 20 a minute: never.
    expect(leaseSize(taught(20), T0 + 10, 8)).toBe(0);
    // Nor just below 100, where a sixteenth of the limit would allow six.
    expect(leaseSize(taught(LEASE_MIN_LIMIT - 1), T0 + 10, 8)).toBe(0);
    expect(leaseSize(taught(LEASE_MIN_LIMIT), T0 + 10, 8)).toBe(Math.floor(LEASE_MIN_LIMIT / 16));
    // No fresh view: the window may have been spent elsewhere.
    expect(leaseSize(taught(), T0 + 61_000, 8)).toBe(0);
    expect(leaseSize(register(taught(), 'w', T0 + 5_000, T0 + 10), T0 + 10, 8, 'me')).toBe(0);
    expect(leaseSize(register(taught(), 'me', T0 + 5_000, T0 + 10), T0 + 10, 8, 'me')).toBe(8);
    // A probe out: none until its answer, or until it lapses.
    const probed: BudgetData = { ...taught(), probe: { id: 'p', lapses: T0 + 10 } };
    expect(leaseSize(probed, T0 + 9, 8)).toBe(0);
    expect(leaseSize(probed, T0 + 10, 8)).toBe(8);
    // 495 counted: 5 more leave half the window.
    let d = taught();
    for (let i = 1; i < 495; i++) d = reserve(d, T0 + i);
    expect(leaseSize(d, T0 + 600, 8)).toBe(5);
    expect(leaseSize(reserve(d, T0 + 600), T0 + 601, 8)).toBe(4);
    // Two that leave half the window are a lease; one is not.
    d = reserve(reserve(reserve(d, T0 + 600), T0 + 601), T0 + 602);
    expect(leaseSize(d, T0 + 603, 8)).toBe(2);
    expect(leaseSize(reserve(d, T0 + 603), T0 + 604, 8)).toBe(0);
    // A 429 seen by anyone: none until its block ends.
    expect(leaseSize(on429(d, T0 + 494, 5_000, T0 + 600), T0 + 601, 8)).toBe(0);
  });

  it('BudgetFile: the first reservation alone, then leases of 4, 8, …, whose slots need no update; the others count a lease whole until it is handed back', () => {
    const file = stateFile();
    const store = counting(new FileStore(file, 'fp', () => now));
    const a = new Budget<true>(store);
    const b = new BudgetFile(file, 'fp', () => now);
    const onDisk = (): BudgetData => normalizeBudget(JSON.parse(readFileSync(b.path, 'utf8')), now);
    let served = 1_000;
    const send = () => {
      const r = a.tryReserve();
      if (!('sentAt' in r)) throw new Error('no slot');
      now += 2;
      a.observe(headers(1_000, --served, 60), r.sentAt);
      now += 1;
    };
    send();
    expect(store.updates).toBe(2); // the probe, and its answer, written at once
    send();
    expect(store.updates).toBe(3);
    expect(onDisk().groups).toEqual([{ n: LEASE_FIRST, from: T0 + 3, to: T0 + 3 + 1_000, last: T0 + 3 + 1_000, owner: a.id }]);
    expect(windowUse(b.read(), now).spent).toBe(1 + LEASE_FIRST);
    for (let i = 0; i < LEASE_FIRST - 1; i++) send();
    // Three slots of the lease and their answers: no update.
    expect(store.updates).toBe(3);
    send();
    // The used-up lease handed back (all four sent), the next one twice as large.
    expect(store.updates).toBe(4);
    expect(onDisk().groups!.map((g) => g.n)).toEqual([LEASE_FIRST, 2 * LEASE_FIRST]);
    expect(onDisk().groups![0]!.owner).toBeUndefined();
    send();
    send();
    a.flush();
    // Three of the eight sent: the others count three, and the last answer.
    expect(onDisk().groups!.map((g) => g.n)).toEqual([LEASE_FIRST, 3]);
    expect(windowUse(onDisk(), now).spent).toBe(1 + LEASE_FIRST + 3);
    expect(onDisk().view?.remaining).toBe(served);
  });

  /** A Budget on a memory store whose first request (the probe, at T0) taught it 1,000 a minute, answered at T0 + 2. */
  function taughtBudget() {
    const store = new MemoryStore(() => now);
    const a = new Budget<true>(store);
    a.tryReserve();
    now += 2;
    a.observe(headers(1_000, 999, 60), T0);
    return { store, a };
  }

  it('a command\'s first reservation never leases, even on a window another process taught; its slots are its own from the millisecond of the grant, not before', () => {
    const { store } = taughtBudget();
    now = T0 + 3;
    const b = new Budget<true>(store);
    expect(b.tryReserve()).toEqual({ sentAt: T0 + 3 });
    expect(store.read().groups).toBeUndefined();
    expect(b.tryReserve()).toEqual({ sentAt: T0 + 3 });
    expect(store.read().groups).toEqual([{ n: LEASE_FIRST, from: T0 + 3, to: T0 + 1_003, last: T0 + 1_003, owner: b.id }]);
    // In the same millisecond: a slot of the lease, without the store.
    const updates = store.updates;
    expect(b.tryReserve()).toEqual({ sentAt: T0 + 3 });
    expect(store.updates).toBe(updates);
    // A clock that stepped back before the grant: not a slot of it.
    now = T0 + 2;
    expect(b.tryReserve()).toEqual({ sentAt: T0 + 2 });
    expect(store.updates).toBe(updates + 1);
  });

  it('a lease handed back keeps the slots sent, reserved until the last of them; the next lease doubles only after one used up', () => {
    const { store, a } = taughtBudget();
    for (const t of [T0 + 3, T0 + 5, T0 + 9]) {
      now = t;
      a.tryReserve();
    }
    a.flush();
    expect(store.read().groups).toEqual([{ n: 3, from: T0 + 3, to: T0 + 9, last: T0 + 1_003 }]);
    // A lease that lapses with slots unsent: the next is no larger.
    now = T0 + 20;
    a.tryReserve();
    now = T0 + 1_020;
    a.tryReserve();
    expect(store.read().groups!.at(-1)).toEqual({ n: LEASE_FIRST, from: T0 + 1_020, to: T0 + 2_020, last: T0 + 2_020, owner: a.id });
  });

  it('flush() with nothing folded and no lease held asks nothing of the store', () => {
    const store = new MemoryStore(() => now);
    const a = new Budget<true>(store);
    a.flush();
    expect(store.updates).toBe(0);
    a.tryReserve();
    now += 2;
    // The first answer teaches the window: written at once, nothing left for flush().
    a.observe(headers(1_000, 999, 60), T0);
    a.flush();
    expect(store.updates).toBe(2);
  });

  it('an answer folded for a request sent before the lease was granted is written with the next update, not replaced by a lease slot\'s', () => {
    const { store, a } = taughtBudget();
    now = T0 + 3;
    // A reservation of its own (forced: an unpaced request), then a lease.
    a.tryReserve(true);
    now = T0 + 4;
    a.tryReserve();
    now = T0 + 5;
    a.observe(headers(1_000, 998, 60), T0 + 3);
    expect(store.read().sends.at(-1)).toEqual([T0 + 3, T0 + 3]);
    now = T0 + 6;
    a.observe(headers(1_000, 997, 60), T0 + 4);
    a.flush();
    expect(store.read().sends.at(-1)).toEqual([T0 + 3, T0 + 5]);
  });

  it('answers to a lease\'s slots that come after it lapsed, the later request\'s first: both are written, and the view is the later request\'s', () => {
    const { store, a } = taughtBudget();
    now = T0 + 3;
    a.tryReserve();
    now = T0 + 4;
    a.tryReserve();
    // The lease lapses at T0 + 1,003; the second slot's answer comes then, the first one's after it.
    now = T0 + 1_003;
    a.observe(headers(1_000, 997, 60), T0 + 4);
    now = T0 + 1_004;
    a.observe(headers(1_000, 998, 60), T0 + 3);
    a.flush();
    expect(store.read().view).toMatchObject({ remaining: 997, sentAt: T0 + 4, at: T0 + 1_003 });
  });

  it('a lease granted with no view kept (a 429 forgot it; the answer since had no rate headers) is granted all the same', () => {
    const { store, a } = taughtBudget();
    now = T0 + 3;
    a.tryReserve();
    a.on429(T0 + 3, 1_000);
    now = T0 + 1_100;
    expect(a.tryReserve()).toEqual({ sentAt: T0 + 1_100, probe: true });
    a.observe({}, T0 + 1_100, false);
    expect(store.read().view).toBeUndefined();
    now = T0 + 1_110;
    expect(a.tryReserve()).toEqual({ sentAt: T0 + 1_110 });
    expect(store.read().groups!.at(-1)).toMatchObject({ n: LEASE_FIRST, from: T0 + 1_110, owner: a.id });
  });

  it('a probe that fails after another answer let the others go has nothing left to undo, and fails nothing (a shared store would take a failure for its own)', () => {
    const store = new MemoryStore(() => now);
    const a = new Budget<true>(store);
    const b = new Budget<true>(store);
    expect(a.tryReserve()).toEqual({ sentAt: T0, probe: true });
    // b's request, forced out while the probe was in flight, is answered first.
    b.tryReserve(true);
    b.observe(headers(1_000, 998, 60), T0, false);
    expect(store.read().probe).toBeUndefined();
    a.unprobe();
    expect(store.read().probe).toBeUndefined();
  });

  it('with a store that answers late (a shared one), an answer folded while a lease was being granted is written with the next, not taken for a slot of that lease', async () => {
    const memory = new MemoryStore(() => now);
    const late: (() => void)[] = [];
    let holding = false;
    // The memory store, but while `holding` its updates wait for the test: a round trip during which this process goes on.
    const store: BudgetStore<false> = {
      now: () => now,
      read: () => memory.read(),
      update: (fn, _fallback) => (holding ? new Promise((resolve) => late.push(() => resolve(memory.update(fn)))) : Promise.resolve(memory.update(fn))),
    };
    const a = new Budget<false>(store);
    await a.tryReserve();
    now = T0 + 2;
    await a.observe(headers(1_000, 999, 60), T0);
    now = T0 + 3;
    await a.tryReserve(true);
    holding = true;
    now = T0 + 4;
    const granting = a.tryReserve();
    // The forced request's answer comes while the lease is being granted: folded, no lease held.
    now = T0 + 5;
    await a.observe(headers(1_000, 998, 60), T0 + 3);
    holding = false;
    for (const go of late.splice(0)) go();
    expect(await granting).toEqual({ sentAt: T0 + 5 });
    now = T0 + 6;
    await a.observe(headers(1_000, 997, 60), T0 + 5);
    await a.flush();
    expect(memory.read().sends).toEqual([[T0, T0 + 2], [T0 + 3, T0 + 5]]);
  });

  it('a lease lapses within a sixteenth of a short window: in a second, after 62 ms', () => {
    const a = new BudgetFile(stateFile(), 'fp', () => now);
    a.tryReserve();
    now += 2;
    a.observe(headers(1_000, 999, 1), T0);
    now += 1;
    a.tryReserve();
    expect(a.read().groups).toEqual([{ n: LEASE_FIRST, from: T0 + 3, to: T0 + 3 + 62, last: T0 + 3 + 62, owner: a.id }]);
  });

  it('a holder hands back only its own lease: not another holder\'s granted at the same moment, nor an older one of its own left unreturned, nor one merged away', () => {
    const store = new MemoryStore(() => now);
    const a = new Budget<true>(store);
    a.tryReserve();
    now += 2;
    a.observe(headers(1_000, 999, 60), T0);
    now += 1;
    a.tryReserve();
    const own = { n: LEASE_FIRST, from: T0 + 3, to: T0 + 1_003, last: T0 + 1_003, owner: a.id };
    expect(store.read().groups).toEqual([own]);
    // An older lease of its own that lapsed unreturned (a shared store's overlapping updates), and another holder's granted at T0 + 3 too.
    const older = { n: 2, from: T0 - 500, to: T0 + 500, last: T0 + 500, owner: a.id };
    const other = { n: 3, from: T0 + 3, to: T0 + 1_003, last: T0 + 1_003, owner: 'other' };
    store.update((d) => ({ data: { ...d, groups: [older, other, own] }, result: undefined }));
    now += 2;
    a.flush();
    // One slot sent: the lease keeps it, reserved at T0 + 3.
    expect(store.read().groups).toEqual([older, other, { n: 1, from: T0 + 3, to: T0 + 3, last: T0 + 1_003 }]);
    // A lease merged away keeps all its slots until it lapses: nothing to hand back.
    a.tryReserve();
    const merged = { n: 9, from: T0 - 500, to: T0 + 1_005, last: T0 + 1_005 };
    store.update((d) => ({ data: { ...d, groups: [merged] }, result: undefined }));
    a.flush();
    expect(store.read().groups).toEqual([merged]);
  });

  it('a lease lapses: its slots are not used after it, and what was not sent is handed back', () => {
    const file = stateFile();
    const a = new BudgetFile(file, 'fp', () => now);
    a.tryReserve();
    a.observe(headers(1_000, 999, 60), T0);
    now += 5;
    a.tryReserve(); // a lease of four, one used
    a.observe(headers(1_000, 998, 60), T0 + 5);
    now += 1_000;
    const late = a.tryReserve();
    expect(late).toEqual({ sentAt: T0 + 1_005 });
    const d = a.read();
    expect(d.groups?.find((g) => g.from === T0 + 5)?.n).toBe(1);
  });

  it('an answer saying someone else spends ends the lease at once: the others then count what it sent', () => {
    const file = stateFile();
    const store = counting(new FileStore(file, 'fp', () => now));
    const a = new Budget<true>(store);
    a.tryReserve();
    a.observe(headers(1_000, 999, 60), T0);
    now += 5;
    a.tryReserve();
    a.observe(headers(1_000, 998, 60), T0 + 5);
    now += 5;
    const r = a.tryReserve();
    expect(store.updates).toBe(3);
    // Two requests from another machine since: fewer than the lease's unsent slots, which
    // are not ours in the server's count.
    a.observe(headers(1_000, 995, 60), 'sentAt' in r ? r.sentAt : 0);
    expect(store.updates).toBe(4);
    expect(a.read().groups?.[0]).toMatchObject({ n: 2, to: T0 + 10 });
    expect(a.read().view?.foreign).toBe(2);
    now += 5;
    a.tryReserve();
    expect(store.updates).toBe(5);
  });

  it('with the window unknown (the first answer was not alone in it): leases still, and an answer that shows less left than the lease foresaw is written at once', () => {
    const file = stateFile();
    const store = counting(new FileStore(file, 'fp', () => now));
    const a = new Budget<true>(store);
    let remaining = 900; // 99 sent by someone else before
    const send = () => {
      const r = a.tryReserve();
      if (!('sentAt' in r)) throw new Error('no slot');
      now += 2;
      a.observe(headers(1_000, --remaining, 60), r.sentAt);
      now += 1;
    };
    send();
    expect(a.read().windowMs).toBeUndefined();
    send();
    const afterGrant = store.updates;
    send();
    send();
    expect(store.updates).toBe(afterGrant);
    remaining -= 10; // someone else spent ten
    send();
    expect(store.updates).toBe(afterGrant + 1);
    // The unknown window counts the requests after the last view: none of the lease is left over.
    expect(freeSlots(a.read(), now)).toBe(remaining);
  });

  it(`four processes on one file, one dying with its lease, against a sliding window of ${LEASE_MIN_LIMIT * 3} a second: no 429, and the window used`, () => {
    const store = new MemoryStore(() => now);
    const srv = server(LEASE_MIN_LIMIT * 3, 1_000);
    const rnd = random(7);
    let clients = [0, 1, 2, 3].map(() => new Budget<true>(store));
    const due = clients.map(() => T0);
    let sent = 0;
    let leased = 0;
    let died = false;
    while (now < T0 + 6_000) {
      const i = due.indexOf(Math.min(...due));
      now = due[i]!;
      const c = clients[i]!;
      const updates = store.updates;
      const r = c.tryReserve();
      if (!('sentAt' in r)) {
        due[i] = now + Math.max(1, r.waitMs);
        continue;
      }
      const a = srv.take(now);
      sent++;
      if (store.updates === updates) leased++;
      const at = now + Math.floor(rnd() * 3);
      now = at;
      if (a.ok) c.observe(a.headers, r.sentAt, !('probe' in r));
      else c.on429(r.sentAt, 1_000, a.headers);
      // For three seconds about 120 a second from the four together, in bursts (leases),
      // then as fast as they may, with leases still out: the window full.
      due[i] = at + (now > T0 + 3_000 ? Math.floor(rnd() * 2) : rnd() < 0.1 ? Math.floor(rnd() * 400) : Math.floor(rnd() * 30));
      if (!died && now > T0 + 3_000) {
        // One process ends without handing anything back: its lease lapses.
        died = true;
        clients = clients.map((x, j) => (j === i ? new Budget<true>(store) : x));
      }
    }
    expect(srv.refused).toBe(0);
    // Three windows at about 120, three full ones of 300, less what the margins hold back.
    expect(sent).toBeGreaterThan(800);
    // While the window was less than half full, many slots came from leases, without an update (about 200 of 360).
    expect(leased).toBeGreaterThan(100);
  });
});

// The budget at any limit the server announces, on an injected clock: processes (one Budget
// each) share one real budget file against a sliding-window server. No test here waits.
// The file lives in memory (/dev/shm) where the machine has it: what is tested is each
// locked update's content, and on a disk each rename costs a few milliseconds of flushing.

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Budget, FileBudgetStore, normalizeBudget } from '../../src/http/budget.js';
import { slidingWindowServer } from '../support/window-server.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

/** A seeded generator, so that a failure can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const dirs: string[] = [];

/** A new directory, in memory where the machine lets this process make one there. */
function scratchDir(): string {
  try {
    return mkdtempSync(join('/dev/shm', 'hostctl-limits-'));
  } catch {
    return mkdtempSync(join(tmpdir(), 'hostctl-limits-'));
  }
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Scenario {
  processes: number;
  server: ReturnType<typeof slidingWindowServer>;
  until: number;
  /** When a process that was just answered at `now` asks again. */
  next(now: number, rnd: () => number): number;
  /** Called before each step, with the clock. */
  tick?(now: number): void;
}

/**
 * Runs `processes` batch commands on one budget file until `until`, each asking again as
 * `next` says, or when the budget says; every answer comes 0-2 ms after its request.
 * Returns when each request was sent, and the most the file ever held.
 */
async function run(o: Scenario) {
  const dir = scratchDir();
  dirs.push(dir);
  let now = T0;
  const budgets = Array.from({ length: o.processes }, () => new Budget(new FileBudgetStore(join(dir, 'state.json'), 'fp', () => now)));
  const path = (budgets[0]!.store as FileBudgetStore).path;
  const due = budgets.map(() => T0);
  const rnd = random(7);
  const sent: number[] = [];
  let mostSends = 0;
  let mostBytes = 0;
  while (Math.min(...due) < o.until) {
    const i = due.indexOf(Math.min(...due));
    now = Math.max(now, due[i]!);
    o.tick?.(now);
    const budget = budgets[i]!;
    const r = await budget.tryReserve();
    if (!('sentAt' in r)) {
      due[i] = now + Math.max(1, r.waitMs);
      continue;
    }
    const a = o.server.take(now);
    sent.push(now);
    now += Math.floor(rnd() * 3);
    if (a.ok) await budget.observe(a.headers, r.sentAt);
    else await budget.on429(r.sentAt, 1_000, a.headers);
    mostSends = Math.max(mostSends, normalizeBudget(JSON.parse(readFileSync(path, 'utf8')), now).sends.length);
    mostBytes = Math.max(mostBytes, statSync(path).size);
    due[i] = o.next(now, rnd);
  }
  const between = (from: number, to: number) => sent.filter((t) => t >= from && t < to).length;
  return { refused: o.server.refused, sent: sent.length, between, mostSends, mostBytes };
}

describe('the budget at the limit the server announces', () => {
  it('at the platform\'s 20 a minute, two processes in a long loop: no 429, the window used, and a file that never holds more reservations than the limit', async () => {
    const server = slidingWindowServer(20, 60_000);
    // Each asks again within 5 s: together they want more than the window gives, window after window.
    const r = await run({ processes: 2, server, until: T0 + 3 * 60_000, next: (now, rnd) => now + Math.floor(rnd() * 5_000) });
    expect(r.refused).toBe(0);
    expect(r.sent).toBeGreaterThan(2 * 20);
    expect(r.mostSends).toBeLessThanOrEqual(20);
    expect(r.mostBytes).toBeLessThan(2_048);
  });

  it('at 150 a second, four processes in bursts and then as fast as they may: no 429, and the full window used', async () => {
    const server = slidingWindowServer(150, 1_000);
    const r = await run({
      processes: 4,
      server,
      until: T0 + 2_000,
      next: (now, rnd) => now + (now > T0 + 1_000 ? Math.floor(rnd() * 2) : rnd() < 0.1 ? Math.floor(rnd() * 400) : Math.floor(rnd() * 30)),
    });
    expect(r.refused).toBe(0);
    // The last second: a full window, less what the margins hold back.
    expect(r.between(T0 + 1_000, T0 + 2_000)).toBeGreaterThan(150 * 0.9);
    expect(r.mostSends).toBeLessThanOrEqual(150);
  });

  it('a limit the server raises is used at once, and one it lowers after a pause is kept: no 429', async () => {
    const server = slidingWindowServer(20, 1_000);
    const r = await run({
      processes: 2,
      server,
      until: T0 + 7_500,
      // Quiet from 4 s to 5.5 s: the limit drops back to 20 at 5 s, when the server's window is empty.
      next: (now, rnd) => (now >= T0 + 4_000 && now < T0 + 5_500 ? T0 + 5_500 : now + Math.floor(rnd() * 2)),
      tick: (now) => server.setLimit(now >= T0 + 2_000 && now < T0 + 5_000 ? 150 : 20),
    });
    expect(r.refused).toBe(0);
    expect(r.between(T0, T0 + 2_000)).toBeLessThanOrEqual(2 * 20);
    expect(r.between(T0 + 3_000, T0 + 4_000)).toBeGreaterThan(150 * 0.9);
    expect(r.between(T0 + 5_500, T0 + 7_500)).toBeLessThanOrEqual(2 * 20);
    expect(r.between(T0 + 5_500, T0 + 7_500)).toBeGreaterThan(20);
  });
});

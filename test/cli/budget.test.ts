// One budget for every hostctl process (issue 13): parallel loops of commands with one
// token share the token's window through the state dir, so they wait instead of
// collecting 429s. Judged from the sandbox's own request log; no timing is asserted
// (the ratios to the theoretical minimum are in `npm run bench`).

import { describe, expect } from 'vitest';
import { sandboxAdmin, VirtualClock, type RunResult } from '../support/inproc.js';
import { cliTest } from '../support/fixtures.js';

const LIMIT = 10;
const WINDOW_SECONDS = 5;

const test = cliTest({ sandbox: ['--rate-limit', String(LIMIT), '--window', String(WINDOW_SECONDS)] }).extend('loop', async ({ sandbox, hostctl }) => {
  const apps = (await (await fetch(`${sandbox.origin}/_sandbox/objects/apps`)).json()) as { publicId: string }[];
  const appId = String(apps[0]?.publicId);
  /** `n` runs of "apps get" one after another with `token`, in config dir `dir`. */
  return async (n: number, token: string, dir: string): Promise<RunResult[]> => {
    const results: RunResult[] = [];
    for (let i = 0; i < n; i++) {
      results.push(await hostctl(['apps', 'get', appId, '--json'], { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: dir }, { timeoutMs: 60_000 }));
    }
    return results;
  };
});

describe(`one token, ${LIMIT} requests per ${WINDOW_SECONDS}s`, () => {
  test('5 parallel loops of 8 commands: every command exits 0, 40 requests served, not one 429', { timeout: 180_000 }, async ({ sandbox, config, loop }) => {
    const token = await sandboxAdmin(sandbox).newToken('budget-parallel');
    const loops = await Promise.all([0, 1, 2, 3, 4].map(() => loop(8, token, config.path)));
    for (const r of loops.flat()) expect(r.code, r.stderr).toBe(0);
    const mine = (await sandboxAdmin(sandbox).requests()).filter((r) => r.token === 'budget-parallel');
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
    expect(mine).toHaveLength(40);
  });

  test('a second, unrelated config dir with the same token still meets no 429: the headers count the other budget', { timeout: 180_000 }, async ({ sandbox, newDir, loop }) => {
    const token = await sandboxAdmin(sandbox).newToken('budget-two-dirs');
    const [a, b] = [newDir('hostctl-budget-a-'), newDir('hostctl-budget-b-')];
    // Sequential loops in two dirs that alternate: each sees the other's use only in the headers.
    const results: RunResult[] = [];
    for (let i = 0; i < 12; i++) results.push(...(await loop(1, token, i % 2 === 0 ? a : b)));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const mine = (await sandboxAdmin(sandbox).requests()).filter((r) => r.token === 'budget-two-dirs');
    expect(mine.filter((r) => r.status === 200)).toHaveLength(12);
    // Two budgets that only learn of each other from the headers may meet a 429 at a
    // window's edge; they must not meet many.
    expect(mine.filter((r) => r.status === 429).length).toBeLessThanOrEqual(2);
  });
});

// The budget learns the window from the headers, whatever their wording: the alt server
// sends Reset as a Unix time and Retry-After as an HTTP date, over a 60-second window, and
// shares a virtual clock with the runs, so a window that would take minutes takes none.
describe('one token against a server that words its limit differently (alt: Reset as a Unix time, 60 s window)', () => {
  test('4 parallel loops of 6 commands at 10 requests a minute: every command exits 0, 24 requests served, not one 429', { timeout: 180_000 }, async ({ alt, config, hostctl }) => {
    const clock = new VirtualClock();
    const server = await alt({ limit: 10, now: clock.now });
    const [first] = (await server.all('apps')) as { publicId?: string; id?: string }[];
    const id = String(first?.publicId ?? first?.id);
    await server.clearRequests();
    // The window starts empty, as for the sandbox's loops above: those reads are past.
    clock.advance(60_000);
    const start = clock.now();
    const loop = async (): Promise<RunResult[]> => {
      const results: RunResult[] = [];
      for (let i = 0; i < 6; i++) {
        results.push(await hostctl(['apps', 'get', id, '--json'], { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path }, { clock, timeoutMs: 60_000 }));
      }
      return results;
    };
    const loops = await Promise.all([0, 1, 2, 3].map(loop));
    for (const r of loops.flat()) expect(r.code, r.stderr).toBe(0);
    expect(server.alt.requests).toHaveLength(24);
    expect(server.alt.requests.filter((r) => r.status === 429)).toEqual([]);
    // 24 requests at 10 a minute: a window had to pass, and the budget waited it out.
    expect(clock.now() - start).toBeGreaterThanOrEqual(60_000);
  });
});

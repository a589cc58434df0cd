// The rate limit and the lockout guard under pressure (issue 8): long loops of hostctl
// runs sharing one config dir, as a script would run them, against the sandbox, judged
// from the sandbox's own request log (statuses and token names).
//
// The runs and the sandbox share a virtual clock (test/support/inproc.ts), so the
// platform's 60-second window costs no real time. What is under test (the state file lets
// each run pace itself, a 429 is waited out and never turns into a 401 or a lockout)
// depends on the count against the limit, not on the limit itself: a loop five times the
// limit spends five windows and must wait out four, whether the limit is the platform's 20
// or this sandbox's 5 (which spares 75 runs). Separate processes sharing the budget:
// test/e2e/budget.test.ts and concurrency.test.ts.

import { describe, expect } from 'vitest';
import { sandboxAdmin, type RunResult, type SandboxRequest } from '../support/inproc.js';
import { cliTest } from '../support/fixtures.js';

const LIMIT = 5;
const LOOP = 5 * LIMIT;
/** Enough runs after the first to show that none of them sends the rejected token again. */
const REJECTED_LOOP = 10;
const WINDOW_SECONDS = 60;

const test = cliTest({ sandbox: ['--rate-limit', String(LIMIT), '--window', String(WINDOW_SECONDS)] }).extend('pressure', async ({ sandbox, hostctl }) => {
  const admin = sandboxAdmin(sandbox);
  // The request log is the file's sandbox's: each test judges only what it sent.
  await admin.clearRequests();
  const apps = (await (await fetch(`${sandbox.origin}/_sandbox/objects/apps`)).json()) as { publicId: string }[];
  const appId = String(apps[0]?.publicId);
  return {
    admin,
    appId,
    /** Runs `n` hostctl processes one after another, sharing the test's config dir. */
    async loop(n: number, token: string, extra: string[]): Promise<RunResult[]> {
      const results: RunResult[] = [];
      for (let i = 0; i < n; i++) {
        results.push(
          await hostctl(['apps', 'get', appId, '--json', ...extra], { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token }, {
            // The longest wait is one window; a process that outlives two has hung.
            timeoutMs: 2 * WINDOW_SECONDS * 1000 + 15_000,
          }),
        );
      }
      return results;
    },
    /** The platform locks out an address by refusing everything from it: a 429 with no token. */
    async expectNoLockout(seen: SandboxRequest[]): Promise<void> {
      expect(seen.filter((r) => r.status === 429 && r.token === null)).toEqual([]);
      // And the address is not locked out now: the sandbox's own token is still served.
      const res = await fetch(`${sandbox.baseUrl}/apps?publicId[]=${appId}`, { headers: { accept: 'application/json', authorization: `Bearer ${sandbox.token}` } });
      expect(res.status).toBe(200);
    },
  };
});

describe(`a loop of ${LOOP} "apps get" (five windows) against ${LIMIT} requests per window`, () => {
  test('every command exits 0, waiting as needed: exactly one request served per command, never a 401, never a lockout', { timeout: 240_000 }, async ({ pressure: { admin, appId, loop, expectNoLockout } }) => {
    const token = await admin.newToken('pressure-wait');
    const results = await loop(LOOP, token, []);
    results.forEach((r, i) => {
      expect(r.code, `call ${i + 1}: ${r.stderr}`).toBe(0);
      expect((JSON.parse(r.stdout) as { publicId: string }).publicId).toBe(appId);
    });
    // Calls past the first window had to wait, and said so on stderr.
    expect(results.filter((r) => /waiting \d+s/.test(r.stderr)).length).toBeGreaterThan(0);

    const seen = await admin.requests();
    expect(seen.filter((r) => r.status === 401)).toEqual([]);
    const mine = seen.filter((r) => r.token === 'pressure-wait');
    // Not even a 429: each process paced itself from the state file the one before left
    // (X-RateLimit-Reset rounds up, so a paced request never arrives early).
    expect(mine.map((r) => r.status)).toEqual(Array<number>(LOOP).fill(200));
    await expectNoLockout(seen);
  });

  test('with --no-wait every command exits 0 or 5 at once: no wait, never a 401, never a lockout', { timeout: 240_000 }, async ({ sandbox, pressure: { admin, appId, loop, expectNoLockout } }) => {
    const token = await admin.newToken('pressure-nowait');
    const mark = sandbox.clock.sleeps.length;
    const results = await loop(LOOP, token, ['--no-wait']);
    // At once: not one of them slept (the clock is the runs' and the sandbox's own).
    expect(sandbox.clock.sleeps.slice(mark)).toEqual([]);
    const codes = results.map((r) => r.code);
    expect(codes.filter((c) => c !== 0 && c !== 5), results.map((r) => r.stderr).join('')).toEqual([]);
    expect(codes.filter((c) => c === 0).length).toBeGreaterThanOrEqual(LIMIT);
    expect(codes.filter((c) => c === 5).length).toBeGreaterThan(0);
    for (const r of results) {
      if (r.code === 0) expect((JSON.parse(r.stdout) as { publicId: string }).publicId).toBe(appId);
      else {
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(/--no-wait is set/);
        expect(r.stderr).not.toMatch(/waiting/);
      }
    }

    const seen = await admin.requests();
    expect(seen.filter((r) => r.status === 401)).toEqual([]);
    const mine = seen.filter((r) => r.token === 'pressure-nowait');
    // Each exit 0 is one request served; each exit 5 sent nothing, because the state file
    // said the window was spent.
    expect(mine.map((r) => r.status)).toEqual(Array<number>(codes.filter((c) => c === 0).length).fill(200));
    await expectNoLockout(seen);
  });
});

describe(`a rejected token in a loop of ${REJECTED_LOOP}`, () => {
  test('exactly one request reaches the server; every command exits 4 and says how to replace the token', { timeout: 120_000 }, async ({ pressure: { admin, loop, expectNoLockout } }) => {
    const token = await admin.newToken('pressure-revoked');
    await admin.revoke('pressure-revoked');

    const results = await loop(REJECTED_LOOP, token, []);
    results.forEach((r, i) => {
      expect(r.code, `call ${i + 1}: ${r.stderr}`).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/auth login/);
      expect(r.stderr).not.toContain(token);
    });
    expect(results.slice(1).every((r) => /will not send it again/.test(r.stderr))).toBe(true);

    const seen = await admin.requests();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ status: 401, token: null });
    await expectNoLockout(seen);
  });
});

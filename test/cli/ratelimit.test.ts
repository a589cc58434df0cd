// The rate limit end to end: 429 waited out, --no-wait, --max-wait, and pacing from the
// saved state, against the sandbox (Retry-After in seconds, Reset as seconds) and the alt
// server (Retry-After as an HTTP date, Reset as a Unix time).

import { describe, expect } from 'vitest';
import { cliTest, type Env } from '../support/fixtures.js';
import { sandboxAdmin, VirtualClock } from '../support/inproc.js';

interface StatusLog {
  status: number;
}

async function sandboxStatuses(server: { origin: string }): Promise<number[]> {
  // The sandbox's log carries the status of each request; the shared face does not need it elsewhere.
  const res = await fetch(`${server.origin}/_sandbox/requests`);
  return ((await res.json()) as StatusLog[]).map((r) => r.status);
}

const on = (server: { baseUrl: string; token: string }): Env => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token });

// The sandbox and every run share a virtual clock: the window is 3 s of that clock, so a
// busy machine cannot make a test miss it, and a wait costs no real time.
const test = cliTest({ sandbox: ['--rate-limit', '2', '--window', '3'], runOnSandbox: true })
  /**
   * hostctl at the sandbox in a config dir of its own (no saved state), as another machine
   * would run it: a test's third such run meets the window its first two spent.
   */
  .extend('elsewhere', ({ hostctl, newDir }) => () => {
    const config = newDir('hostctl-config-');
    return (args: string[]) => hostctl(args, { HOSTCTL_CONFIG_DIR: config });
  })
  /** Lets the sandbox's window empty: 3 s of its clock pass. */
  .extend('drain', ({ sandbox }) => () => sandbox.clock.advance(3001));

describe('rate limit against the sandbox (2 requests per 3 s window)', () => {
  test('a 429 is waited out (Retry-After) and the same request sent again', async ({ sandbox, elsewhere, drain }) => {
    drain();
    await sandboxAdmin(sandbox).clearRequests();
    const runs = [elsewhere(), elsewhere(), elsewhere()];
    for (const run of runs.slice(0, 2)) expect((await run(['apps', 'list', '--limit', '1', '--json'])).code).toBe(0);
    const start = sandbox.clock.now();
    const third = await runs[2]!(['apps', 'list', '--limit', '1', '--json']);
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toHaveLength(1);
    expect(third.stderr).toMatch(/wait/i);
    expect(await sandboxStatuses(sandbox)).toEqual([200, 200, 429, 200]);
    // It waited what Retry-After said (whole seconds, at most the 3 s window), not more.
    const waited = sandbox.clock.now() - start;
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThanOrEqual(3000 + 1000);
  });

  test('--no-wait exits 5 at once', async ({ sandbox, elsewhere, drain }) => {
    drain();
    const runs = [elsewhere(), elsewhere(), elsewhere()];
    for (const run of runs.slice(0, 2)) await run(['apps', 'list', '--limit', '1']);
    await sandboxAdmin(sandbox).clearRequests();
    const [before, slept] = [sandbox.clock.now(), sandbox.clock.sleeps.length];
    const r = await runs[2]!(['apps', 'list', '--limit', '1', '--no-wait']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/rate limit/i);
    // At once: no sleep at all, not a moment of the clock, and the one 429 not retried.
    expect(sandbox.clock.sleeps.length).toBe(slept);
    expect(sandbox.clock.now()).toBe(before);
    expect(await sandboxStatuses(sandbox)).toEqual([429]);
  });

  test('--max-wait shorter than Retry-After: exit 5 without waiting', async ({ sandbox, elsewhere, drain }) => {
    drain();
    const runs = [elsewhere(), elsewhere(), elsewhere()];
    for (const run of runs.slice(0, 2)) await run(['apps', 'list', '--limit', '1']);
    await sandboxAdmin(sandbox).clearRequests();
    const [before, slept] = [sandbox.clock.now(), sandbox.clock.sleeps.length];
    const r = await runs[2]!(['apps', 'list', '--limit', '1', '--max-wait', '0']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/--max-wait/);
    expect(sandbox.clock.sleeps.length).toBe(slept);
    expect(sandbox.clock.now()).toBe(before);
    expect(await sandboxStatuses(sandbox)).toEqual([429]);
  });

  test('with the saved state, the next command waits before sending instead of collecting a 429', async ({ sandbox, hostctl, drain }) => {
    drain();
    await sandboxAdmin(sandbox).clearRequests();
    const slept = sandbox.clock.sleeps.length;
    for (let i = 0; i < 3; i++) {
      const r = await hostctl(['apps', 'list', '--limit', '1', '--json']);
      expect(r.code).toBe(0);
    }
    const rate = await hostctl(['rate-limit', '--json']);
    expect(await sandboxStatuses(sandbox)).toEqual([200, 200, 200]);
    // The third command waited for the window before it sent anything.
    expect(sandbox.clock.sleptSince(slept)).toBeGreaterThanOrEqual(1000);
    expect(rate.code).toBe(0);
  });
});

describe('rate limit against the alt server (HTTP-date Retry-After, Unix-time Reset)', () => {
  test('a forced 429 is waited out', async ({ hostctl, alt }) => {
    const server = await alt({ limit: 1000 });
    server.alt.force429(1, 2);
    const r = await hostctl(['apps', 'list', '--limit', '2', '--json'], on(server));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    expect(server.alt.requests).toHaveLength(2);
  });

  test('--no-wait exits 5', async ({ hostctl, alt }) => {
    const server = await alt({ limit: 1000 });
    server.alt.force429(1, 2);
    const r = await hostctl(['apps', 'list', '--no-wait'], on(server));
    expect(r.code).toBe(5);
  });

  test('-R reads a Unix-time Reset as seconds from now', async ({ hostctl, alt }) => {
    // A server and a client on one clock, on a whole second: its first request opens a
    // 60 s window, so Reset is exactly 60 s away.
    const clock = new VirtualClock(Math.ceil(Date.now() / 1000) * 1000);
    const own = await alt({ limit: 1000, now: clock.now });
    const r = await hostctl(['apps', 'list', '--limit', '1', '-R'], on(own), { clock });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Rate limit: 999\/1000 requests left, resets in 60s \(this command: 1 request\)$/m);
  });
});

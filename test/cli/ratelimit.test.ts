// The rate limit end to end: 429 waited out, --no-wait, --max-wait, and pacing from the
// saved state, against the sandbox (Retry-After in seconds, Reset as seconds) and the alt
// server (Retry-After as an HTTP date, Reset as a Unix time).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startAlt, startSandboxServer, tmpDir, VirtualClock, type PlatformServer } from '../support/inproc.js';

interface StatusLog {
  status: number;
}

async function sandboxStatuses(server: PlatformServer): Promise<number[]> {
  // The sandbox's log carries the status of each request; the shared face does not need it elsewhere.
  const origin = new URL(server.baseUrl).origin;
  const res = await fetch(`${origin}/_sandbox/requests`);
  return ((await res.json()) as StatusLog[]).map((r) => r.status);
}

describe('rate limit against the sandbox (2 requests per 3 s window)', () => {
  // The sandbox and every run share a virtual clock: the window is 3 s of that clock, so a
  // busy machine cannot make a test miss it, and a wait costs no real time.
  let server: PlatformServer & { clock: VirtualClock };
  beforeAll(async () => {
    server = await startSandboxServer(['--rate-limit', '2', '--window', '3']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const run = (args: string[], configDir: string) =>
    runCli(args, { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: configDir } });

  /** Lets the sandbox's window empty: 3 s of its clock pass. */
  const drain = () => server.clock.advance(3001);

  it('a 429 is waited out (Retry-After) and the same request sent again', async () => {
    drain();
    await server.clearRequests();
    // Fresh config dirs: no saved state, so the third command collects a 429.
    const dirs = [tmpDir(), tmpDir(), tmpDir()];
    for (const d of dirs.slice(0, 2)) expect((await run(['apps', 'list', '--limit', '1', '--json'], d.path)).code).toBe(0);
    const start = server.clock.now();
    const third = await run(['apps', 'list', '--limit', '1', '--json'], dirs[2]!.path);
    for (const d of dirs) d.cleanup();
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toHaveLength(1);
    expect(third.stderr).toMatch(/wait/i);
    expect(await sandboxStatuses(server)).toEqual([200, 200, 429, 200]);
    // It waited what Retry-After said (whole seconds, at most the 3 s window), not more.
    const waited = server.clock.now() - start;
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThanOrEqual(3000 + 1000);
  });

  it('--no-wait exits 5 at once', async () => {
    drain();
    const dirs = [tmpDir(), tmpDir(), tmpDir()];
    for (const d of dirs.slice(0, 2)) await run(['apps', 'list', '--limit', '1'], d.path);
    await server.clearRequests();
    const [before, slept] = [server.clock.now(), server.clock.sleeps.length];
    const r = await run(['apps', 'list', '--limit', '1', '--no-wait'], dirs[2]!.path);
    for (const d of dirs) d.cleanup();
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/rate limit/i);
    // At once: no sleep at all, not a moment of the clock, and the one 429 not retried.
    expect(server.clock.sleeps.length).toBe(slept);
    expect(server.clock.now()).toBe(before);
    expect(await sandboxStatuses(server)).toEqual([429]);
  });

  it('--max-wait shorter than Retry-After: exit 5 without waiting', async () => {
    drain();
    const dirs = [tmpDir(), tmpDir(), tmpDir()];
    for (const d of dirs.slice(0, 2)) await run(['apps', 'list', '--limit', '1'], d.path);
    await server.clearRequests();
    const [before, slept] = [server.clock.now(), server.clock.sleeps.length];
    const r = await run(['apps', 'list', '--limit', '1', '--max-wait', '0'], dirs[2]!.path);
    for (const d of dirs) d.cleanup();
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/--max-wait/);
    expect(server.clock.sleeps.length).toBe(slept);
    expect(server.clock.now()).toBe(before);
    expect(await sandboxStatuses(server)).toEqual([429]);
  });

  it('with the saved state, the next command waits before sending instead of collecting a 429', async () => {
    drain();
    await server.clearRequests();
    const slept = server.clock.sleeps.length;
    const dir = tmpDir();
    for (let i = 0; i < 3; i++) {
      const r = await run(['apps', 'list', '--limit', '1', '--json'], dir.path);
      expect(r.code).toBe(0);
    }
    const rate = await run(['rate-limit', '--json'], dir.path);
    dir.cleanup();
    expect(await sandboxStatuses(server)).toEqual([200, 200, 200]);
    // The third command waited for the window before it sent anything.
    expect(server.clock.sleptSince(slept)).toBeGreaterThanOrEqual(1000);
    expect(rate.code).toBe(0);
  });
});

describe('rate limit against the alt server (HTTP-date Retry-After, Unix-time Reset)', () => {
  let server: Awaited<ReturnType<typeof startAlt>>;
  let config: { path: string; cleanup(): void };
  beforeAll(async () => {
    server = await startAlt({ limit: 1000 });
    config = tmpDir();
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
  });
  const env = () => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path });

  it('a forced 429 is waited out', async () => {
    server.alt.force429(1, 2);
    server.alt.clearRequests();
    const r = await runCli(['apps', 'list', '--limit', '2', '--json'], { env: env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    expect(server.alt.requests).toHaveLength(2);
  });

  it('--no-wait exits 5', async () => {
    server.alt.force429(1, 2);
    const r = await runCli(['apps', 'list', '--no-wait'], { env: env() });
    expect(r.code).toBe(5);
  });

  it('-R reads a Unix-time Reset as seconds from now', async () => {
    // A server and a client on one clock, on a whole second: its first request opens a
    // 60 s window, so Reset is exactly 60 s away.
    const clock = new VirtualClock(Math.ceil(Date.now() / 1000) * 1000);
    const own = await startAlt({ limit: 1000, now: clock.now });
    const dir = tmpDir();
    try {
      const r = await runCli(['apps', 'list', '--limit', '1', '-R'], { env: { HOSTCTL_BASE_URL: own.baseUrl, HOSTCTL_TOKEN: own.token, HOSTCTL_CONFIG_DIR: dir.path }, clock });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^Rate limit: 999\/1000 requests left, resets in 60s \(this command: 1 request\)$/m);
    } finally {
      await own.stop();
      dir.cleanup();
    }
  });

});

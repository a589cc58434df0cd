// Issue 26: one rate budget across machines, in Redis. Real hostctl processes (the built
// CLI), each "machine" with its own config dir, state and home, one token, against the
// sandbox and a real redis-server started for this file (test/support/redis.ts). Judged
// from the sandbox's own request log and exit codes; no timing is asserted. What one run
// says when the store cannot be used: test/cli/shared-store-unusable.test.ts.

import { describe, expect } from 'vitest';
import { runCli, sandboxAdmin, type RunResult } from '../support/cli.js';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis.js';
import { fleetTest, runFleet } from '../support/fleet.js';
import { opensslUnavailable, selfSignedCert } from '../support/tls.js';

const skip = redisUnavailable();
if (skip) console.warn(`skipping the fleet tests: ${skip}`);

// More commands than the window holds, so that the fleet must wait for it more than once;
// a short window, so that it does in seconds.
const MACHINES = 3;
const COMMANDS = 2;
const LIMIT = 2;
const WINDOW_SECONDS = 1;
const SMALL_WINDOW = ['--rate-limit', String(LIMIT), '--window', String(WINDOW_SECONDS)];
// Plain output: these tests read the warnings' and errors' text (under --json they are JSON lines).
const args = ['apps', 'list', '--limit', '1', '-o', 'tsv'];

const PASSWORD = 'right-horse-battery';
const skipTls = opensslUnavailable();

/* eslint-disable no-empty-pattern -- vitest reads what a fixture needs from its first parameter, an object pattern: `{}` is "nothing". */
// The file's sandbox and Redis servers (one open, one with a password): each test's
// requests and keys are its token's own. The fleets get a sandbox of the small window.
const test = fleetTest({ sandbox: ['--rate-limit', '1000'] })
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const redis = await startRedis();
    onCleanup(() => redis.stop());
    return redis;
  })
  .extend('locked', { scope: 'file' }, async ({}, { onCleanup }) => {
    const locked = await startRedis(['--requirepass', PASSWORD], { password: PASSWORD });
    onCleanup(() => locked.stop());
    return locked;
  });
/* eslint-enable no-empty-pattern */

/** What `redis` holds that was not there before `earlier` was taken (the file's other tests' keys). */
async function heldSince(redis: RedisServer, earlier: Set<string>): Promise<{ key: string; value: string }[]> {
  return (await redis.dump()).filter((e) => !earlier.has(e.key));
}
const keysIn = async (redis: RedisServer) => new Set((await redis.dump()).map((e) => e.key));

/** `MACHINES` machines each running `COMMANDS` commands one after another, all machines at once; `after` runs after each command. */
function fleet(machine: (env: Record<string, string>) => Record<string, string>, env: Record<string, string>, after?: (done: number) => Promise<void> | void): Promise<RunResult[]> {
  return runFleet({ machines: MACHINES, commands: COMMANDS, args, envOf: () => machine(env), after });
}

describe.skipIf(skip !== undefined)(`a fleet on one Redis: ${MACHINES} machines × ${COMMANDS} commands, one token, ${LIMIT} requests per ${WINDOW_SECONDS} s`, () => {
  test('not one 429, every command exits 0; Redis holds the budget under a digest keyed by the token, never the token', { timeout: 180_000 }, async ({ sandboxes, redis, machine }) => {
    const sandbox = await sandboxes(SMALL_WINDOW);
    const admin = sandboxAdmin(sandbox);
    const token = await admin.newToken('fleet');
    const results = await fleet(machine, { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: redis.url });
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    for (const r of results) expect(r.stderr).not.toContain('warning');
    const mine = (await admin.requests()).filter((r) => r.token === 'fleet');
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
    expect(mine).toHaveLength(MACHINES * COMMANDS);

    const held = await redis.dump();
    expect(held.length).toBeGreaterThan(0);
    for (const { key, value } of held) {
      expect(key).toMatch(/^hostctl:\{[0-9a-f]{64}\}:/);
      expect(key).not.toContain(token);
      expect(value).not.toContain(token);
      // Nor any part of it long enough to matter.
      expect(value).not.toContain(token.slice(-12));
    }
  });

  test('Redis killed in the middle: every command still exits 0, after one warning naming the store', { timeout: 180_000 }, async ({ sandboxes, machine }) => {
    const sandbox = await sandboxes(SMALL_WINDOW);
    const admin = sandboxAdmin(sandbox);
    const token = await admin.newToken('fleet-killed');
    const doomed = await startRedis();
    let killed = false;
    const results = await fleet(machine, { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: doomed.url }, async (done) => {
      if (done >= LIMIT && !killed) {
        killed = true;
        await doomed.kill();
      }
    });
    expect(killed).toBe(true);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const warned = results.filter((r) => r.stderr.includes(`hostctl: warning: the shared store at 127.0.0.1:${doomed.port} cannot be used`));
    expect(warned.length).toBeGreaterThan(0);
    // One line each, not one per request.
    for (const r of warned) expect(r.stderr.match(/warning:/g)).toHaveLength(1);
  });

  test.skipIf(skipTls !== undefined)('rediss:// to redis-server\'s own TLS port, its test CA given as NODE_EXTRA_CA_CERTS; without the CA, a warning and the machine\'s budget', { timeout: 60_000 }, async ({ sandboxes, machine, newDir }) => {
    // A certificate for localhost that is its own CA: trusted only where it is given.
    const cert = selfSignedCert(newDir('hostctl-fleet-tls-'), { dns: ['localhost'], ip: ['127.0.0.1'] });
    const ca = cert.certFile;
    const tls = await startRedis([], { tls: { cert: cert.certFile, key: cert.certFile.replace(/\.crt$/, '.key'), ca } });
    const tlsPort = tls.port;
    // A long window of its own, so that the second machine reads the count the first left.
    const slow = await sandboxes(['--rate-limit', '10', '--window', '600']);
    try {
      const admin = sandboxAdmin(slow);
      const token = await admin.newToken('fleet-tls');
      const env = { HOSTCTL_BASE_URL: slow.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: `rediss://localhost:${tlsPort}/0` };
      const trusted = await runCli(args, { env: machine({ ...env, NODE_EXTRA_CA_CERTS: ca }) });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(trusted.stderr).toBe('');
      // The shared budget now knows the window: a second machine's -R reads its rate state from Redis.
      const second = await runCli(['-R', ...args], { env: machine({ ...env, NODE_EXTRA_CA_CERTS: ca }) });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/8\/10 requests left/);
      const untrusted = await runCli(args, { env: machine(env) });
      expect(untrusted.code, untrusted.stderr).toBe(0);
      expect(untrusted.stderr).toContain(`hostctl: warning: the shared store at localhost:${tlsPort} cannot be used (TLS failed`);
    } finally {
      await tls.stop();
    }
  });

  test('rate-limit on another machine says the budget is in Redis (host:port, no password) and what the fleet spent', { timeout: 60_000 }, async ({ sandboxes, machine, locked }) => {
    // A long window, so that the count does not change while the test looks.
    const slow = await sandboxes(['--rate-limit', '50', '--window', '600']);
    const env = { HOSTCTL_BASE_URL: slow.baseUrl, HOSTCTL_TOKEN: slow.token, HOSTCTL_REDIS_URL: locked.url };
    const a = machine(env);
    for (let i = 0; i < 3; i++) expect((await runCli(args, { env: a })).code).toBe(0);
    const b = machine(env);
    const text = await runCli(['rate-limit', '-o', 'table'], { env: b });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Budget: shared in Redis at 127.0.0.1:${locked.port}; the fleet spent 3 of 50 requests in the window; 0 interactive commands waiting.`);
    expect(text.stdout).toMatch(/^Rate limit: 47\/50 requests left/);
    const json = await runCli(['rate-limit', '--json'], { env: b });
    expect(JSON.parse(json.stdout)).toMatchObject({ remaining: 47, budget: { store: 'redis', where: `127.0.0.1:${locked.port}`, spent: 3, waiting: 0 } });
    expect(text.stdout + text.stderr + json.stdout + json.stderr).not.toContain(PASSWORD);
  });

  test(`a shared cache: ${MACHINES} machines × apps list --cache 1m at once spend 1 request; Redis holds the entry under a digest keyed by the token, not the token`, { timeout: 60_000 }, async ({ sandbox, machine, redis }) => {
    const admin = sandboxAdmin(sandbox);
    const token = await admin.newToken('fleet-cache');
    const earlier = await keysIn(redis);
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: redis.url };
    const runs = await Promise.all(Array.from({ length: MACHINES }, () => runCli(['apps', 'list', '--cache', '1m', '--json'], { env: machine(env) })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    // Every machine printed the same list.
    expect(new Set(runs.map((r) => r.stdout)).size).toBe(1);
    expect(JSON.parse(runs[0]!.stdout)).not.toEqual([]);
    expect((await admin.requests()).filter((q) => q.token === 'fleet-cache')).toHaveLength(1);
    const held = await heldSince(redis, earlier);
    expect(held.some((e) => /:cache:/.test(e.key))).toBe(true);
    for (const { key, value } of held) {
      expect(key).toMatch(/^hostctl:\{[0-9a-f]{64}\}:/);
      expect(key + value).not.toContain(token);
    }
    // An entry lapses: every cache key has a TTL.
    const c = redis.client();
    for (const { key } of held) expect(await c.pttl(key)).toBeGreaterThan(0);
  });

});

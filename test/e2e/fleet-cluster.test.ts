// Issue 42, the Redis that teams run: a fleet's store as a Redis Cluster (`?cluster=1`, the
// URL naming one seed node), and `rediss://` to an IP address. Real hostctl processes (the
// built CLI), each machine with its own config dir and home (support/fleet.ts), one token,
// against the sandbox and a real three-node cluster on loopback ports
// (support/redis.ts startRedisCluster). Judged from the sandbox's request log, what the
// cluster holds and exit codes; no timing is asserted. A cluster URL's usage errors and a
// seed that never answers: test/cli/shared-store-unusable.test.ts.

/* eslint-disable no-empty-pattern -- vitest reads what a fixture needs from its first parameter, which must be an object pattern: `{}` is "nothing". */

import { describe, expect } from 'vitest';
import { runCli, sandboxAdmin, tmpDir, type RunResult } from '../support/cli.js';
import { fleetTest, runFleet } from '../support/fleet.js';
import { redisClusterUnavailable, redisUnavailable, startRedis, startRedisCluster, type RedisCluster, type RedisTls } from '../support/redis.js';
import { opensslUnavailable, selfSignedCert } from '../support/tls.js';

const skip = redisClusterUnavailable();
if (skip) console.warn(`skipping the Redis Cluster tests: ${skip}`);
const skipTls = redisUnavailable() ?? opensslUnavailable();

// Plain output: these tests read the warnings' and errors' text.
const args = ['apps', 'list', '--limit', '1', '-o', 'tsv'];

const TLS_PASSWORD = 'pw-tls-cluster';

// The file's clusters, started together: a node takes writes only 2 s after it starts, most
// of what a cluster costs. `cluster` serves the file's tests, each with its token's own
// keys; `doomed` is the one test's whose nodes it kills; `secure` speaks TLS with a password.
const test = fleetTest({ sandbox: ['--rate-limit', '1000'] })
  /** A certificate for 127.0.0.1 (and localhost), its own CA (none where openssl is missing). */
  .extend('tlsFiles', { scope: 'file' }, ({}, { onCleanup }): RedisTls | undefined => {
    if (skipTls !== undefined) return undefined;
    const dir = tmpDir('hostctl-redis-tls-');
    onCleanup(() => dir.cleanup());
    const cert = selfSignedCert(dir.path, { dns: ['localhost'], ip: ['127.0.0.1'] });
    return { cert: cert.certFile, key: cert.certFile.replace(/\.crt$/, '.key'), ca: cert.certFile };
  })
  .extend('clusters', { scope: 'file' }, async ({ tlsFiles }, { onCleanup }) => {
    const started = await Promise.allSettled([startRedisCluster(), startRedisCluster(), tlsFiles ? startRedisCluster({ password: TLS_PASSWORD, tls: tlsFiles }) : undefined]);
    onCleanup(async () => {
      for (const s of started) if (s.status === 'fulfilled') await s.value?.stop();
    });
    const [cluster, doomed, secure] = started.map((s) => {
      if (s.status === 'rejected') throw s.reason;
      return s.value;
    });
    return { cluster: cluster!, doomed: doomed!, secure };
  })
  .extend('cluster', ({ clusters }) => clusters.cluster);

/** hostctl on a machine (its environment). */
function runOn(argv: string[], env: Record<string, string>): Promise<RunResult> {
  return runCli(argv, { env, timeoutMs: 60_000 });
}

/** The keys the cluster holds now: those of the file's other tests, which a test leaves out of what it judges. */
async function keysIn(cluster: RedisCluster): Promise<Set<string>> {
  return new Set((await cluster.dump()).map((e) => e.key));
}

/** Each run's warnings and errors: none expected. */
function quiet(results: RunResult[]): void {
  for (const r of results) {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  }
}

describe.skipIf(skip !== undefined)('a fleet on a three-node Redis Cluster (?cluster=1)', () => {
  test('3 machines × 2 commands, each seeded at another node, 2 requests a second: not one 429, no warning; every key of the token in one slot on one node', { timeout: 180_000 }, async ({ sandboxes, cluster, machine }) => {
    // A small limit and a short window: the fleet waits for it more than once, in seconds.
    const sandbox = await sandboxes(['--rate-limit', '2', '--window', '1']);
    const admin = sandboxAdmin(sandbox);
    const token = await admin.newToken('cluster-fleet');
    const seeds = cluster.nodes.map((n) => n.port);
    const earlier = await keysIn(cluster);
    const results = await runFleet({
      machines: 3,
      commands: 2,
      args,
      envOf: (i) => machine({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: cluster.url(seeds[i]) }),
    });
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      // The budget's own waits are notes; a fault would be a warning.
      expect(r.stderr).not.toContain('warning');
    }
    const mine = (await admin.requests()).filter((r) => r.token === 'cluster-fleet');
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
    expect(mine).toHaveLength(6);

    const held = (await cluster.dump()).filter((e) => !earlier.has(e.key));
    expect(held.length).toBeGreaterThan(0);
    // One node holds them all, so that two of the three machines' seeds were not the slot's owner.
    const owners = new Set(held.map((e) => e.port));
    expect(owners.size).toBe(1);
    expect(seeds.filter((p) => !owners.has(p))).toHaveLength(2);
    expect(new Set(await Promise.all(held.map((e) => cluster.slotOf(e.key)))).size).toBe(1);
    for (const { key, value } of held) expect(key + value).not.toContain(token);
  });

  test('--cache through the cluster: 3 machines seeded at different nodes, at once, spend 1 request and print one list', { timeout: 60_000 }, async ({ sandbox, cluster, machine }) => {
    const admin = sandboxAdmin(sandbox);
    const token = await admin.newToken('cluster-cache');
    const earlier = await keysIn(cluster);
    const runs = await Promise.all(
      cluster.nodes.map((n) => machine({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: cluster.url(n.port) })).map((env) => runOn(['apps', 'list', '--cache', '1m', '--json'], env)),
    );
    quiet(runs);
    expect(new Set(runs.map((r) => r.stdout)).size).toBe(1);
    expect(JSON.parse(runs[0]!.stdout)).not.toEqual([]);
    expect((await admin.requests()).filter((q) => q.token === 'cluster-cache')).toHaveLength(1);
    const held = (await cluster.dump()).filter((e) => !earlier.has(e.key) && /:cache:/.test(e.key));
    expect(held.length).toBeGreaterThan(0);
    expect(new Set(held.map((e) => e.port)).size).toBe(1);
  });

  test('rate-limit on another machine, seeded at another node, reads what the fleet spent from the cluster', { timeout: 60_000 }, async ({ sandboxes, cluster, machine }) => {
    // A window of its own, long enough that the count does not change while the test looks.
    const slow = await sandboxes(['--rate-limit', '50', '--window', '600']);
    const [a, b] = cluster.nodes.map((n) => machine({ HOSTCTL_BASE_URL: slow.baseUrl, HOSTCTL_TOKEN: slow.token, HOSTCTL_REDIS_URL: cluster.url(n.port) }));
    for (let i = 0; i < 3; i++) quiet([await runOn(args, a!)]);
    const json = await runOn(['rate-limit', '--json'], b!);
    quiet([json]);
    expect(JSON.parse(json.stdout)).toMatchObject({ remaining: 47, budget: { store: 'redis', where: `127.0.0.1:${cluster.nodes[1]!.port}`, spent: 3 } });
  });

});

describe.skipIf(skip !== undefined)('a Redis Cluster that cannot be used', () => {
  test('the node serving the token\'s slot down, or every node: one warning naming the reason, exit 0, this machine\'s own budget; HOSTCTL_REDIS_REQUIRED=1: exit 6', { timeout: 120_000 }, async ({ sandbox, machine, clusters }) => {
    const own = clusters.doomed;
    const admin = sandboxAdmin(sandbox);
    const token = await admin.newToken('cluster-down');
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token };
    quiet([await runOn(args, machine({ ...env, HOSTCTL_REDIS_URL: own.url() }))]);
    const ownerPort = (await own.dump()).find((e) => e.key.startsWith('hostctl:'))!.port;
    await own.nodes.find((n) => n.port === ownerPort)!.kill();
    const seed = own.nodes.find((n) => n.port !== ownerPort)!.port;

    const r = await runOn(['-R', ...args], machine({ ...env, HOSTCTL_REDIS_URL: own.url(seed) }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/warning:/g)).toHaveLength(1);
    expect(r.stderr).toContain(`hostctl: warning: the shared store at 127.0.0.1:${seed} cannot be used (connection refused); this run uses this machine's own rate budget.`);
    const required = await runOn(args, machine({ ...env, HOSTCTL_REDIS_URL: own.url(seed), HOSTCTL_REDIS_REQUIRED: '1' }));
    expect(required.code).toBe(6);
    expect(required.stderr).toContain(`hostctl: The shared store at 127.0.0.1:${seed} cannot be used: connection refused`);

    for (const n of own.nodes) if (n.port !== ownerPort) await n.kill();
    const down = await runOn(['rate-limit', '-o', 'table'], machine({ ...env, HOSTCTL_REDIS_URL: own.url(seed) }));
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr.match(/warning:/g)).toHaveLength(1);
    expect(down.stderr).toContain(`the shared store at 127.0.0.1:${seed} cannot be used (connection refused)`);
    expect(down.stdout).not.toContain('Budget: shared');
  });

});

describe.skipIf(skip !== undefined || skipTls !== undefined)('rediss:// with a password, to 127.0.0.1', () => {
  test('a single Redis: no DeprecationWarning (TLS ServerName set to an IP), nothing on stderr', { timeout: 60_000 }, async ({ sandbox, machine, tlsFiles: files }) => {
    const tlsFiles = files!;
    const server = await startRedis(['--requirepass', 'pw-tls-one'], { password: 'pw-tls-one', tls: tlsFiles });
    try {
      const admin = sandboxAdmin(sandbox);
      const token = await admin.newToken('tls-ip');
      const r = await runOn(['-R', ...args], machine({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: server.url, NODE_EXTRA_CA_CERTS: tlsFiles.ca }));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('DeprecationWarning');
      expect(r.stderr).toMatch(/^Rate limit: \d+\/1000 requests left/);
      expect((await server.dump()).map((e) => e.key)).toEqual([expect.stringMatching(/:budget$/)]);
    } finally {
      await server.stop();
    }
  });

  test('a cluster (?cluster=1), seeded at each node in turn: exit 0, no warning, the password never shown, one budget; an untrusted CA or a wrong password: one warning each', { timeout: 120_000 }, async ({ sandbox, machine, clusters, tlsFiles: files }) => {
    const secure = clusters.secure!;
    const tlsFiles = files!;
    const earlier = await keysIn(secure);
    const admin = sandboxAdmin(sandbox);
    const token = await admin.newToken('tls-cluster');
    const runs: RunResult[] = [];
    for (const n of secure.nodes) {
      runs.push(await runOn(['-v', ...args], machine({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: secure.url(n.port), NODE_EXTRA_CA_CERTS: tlsFiles.ca })));
    }
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('DeprecationWarning');
      expect(r.stderr).not.toContain('warning');
      expect(r.stdout + r.stderr).not.toContain(TLS_PASSWORD);
    }
    const held = (await secure.dump()).filter((e) => e.key.startsWith('hostctl:') && !earlier.has(e.key));
    expect(held.map((e) => e.key)).toEqual([expect.stringMatching(/:budget$/)]);

    // As for one node: a CA this machine does not trust, a password the cluster refuses.
    const seed = secure.nodes[1]!.port;
    const untrusted = await runOn(args, machine({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: secure.url(seed) }));
    const refused = await runOn(['-v', ...args], machine({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: `rediss://:pw-wrong-one@127.0.0.1:${seed}?cluster=1`, NODE_EXTRA_CA_CERTS: tlsFiles.ca }));
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(untrusted.stderr).toContain(`hostctl: warning: the shared store at 127.0.0.1:${seed} cannot be used (TLS failed (`);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain(`hostctl: warning: the shared store at 127.0.0.1:${seed} cannot be used (the password was refused)`);
    for (const r of [untrusted, refused]) {
      expect(r.stderr.match(/warning:/g)).toHaveLength(1);
      expect(r.stdout + r.stderr).not.toMatch(/pw-tls-cluster|pw-wrong-one/);
    }
  });
});

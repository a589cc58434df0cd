// Issue 42: the shared store is storage, not trust. Another tenant of the same Redis (a
// second client of the test's own, with no token: what `redis-cli` alone can do) must not
// read what hostctl keeps there, nor make it believe anything. The built CLI against the
// sandbox and a real redis-server of the file's, where each test's keys are those its own
// token's runs add.

import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { e2eTest } from '../support/fixtures.js';
import { sandboxAdmin } from '../support/cli.js';
import { redisUnavailable, startRedis } from '../support/redis.js';
import { documentedAcl } from '../support/redis-acl.js';

const skip = redisUnavailable();
if (skip) console.warn(`skipping the fleet tenant tests: ${skip}`);

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const test = e2eTest({ sandbox: ['--rate-limit', '1000'] })
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from an object pattern: `{}` is "nothing".
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const redis = await startRedis();
    onCleanup(() => redis.stop());
    return redis;
  })
  .extend('admin', ({ sandbox }) => sandboxAdmin(sandbox));

describe.skipIf(skip !== undefined)('another tenant of the Redis, without the token', () => {
  test('cannot plant a teams list answer nor a block: the victim ignores both, sends its request and prints the real answer', async ({ sandbox, redis, admin, hostctl }) => {
    const token = await admin.newToken('victim');
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: redis.url };
    const mine = async () => (await admin.requests()).filter((q) => q.token === 'victim');
    const tenant = redis.client();
    const earlier = new Set(await tenant.keys('*'));
    const first = await hostctl(['teams', 'list', '--cache', '1m', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const real: unknown = JSON.parse(first.stdout);
    expect(real).not.toEqual([]);
    const [asked] = await mine();
    const url = `${sandbox.origin}${asked!.path}${asked!.query ? `?${asked!.query}` : ''}`;

    // The tenant's forgeries: an answer for that URL and a block of an hour, written over
    // every key hostctl keeps, and under the names the fingerprint and the public base URL give.
    const [s] = await tenant.time();
    const now = Number(s) * 1000;
    const forged = [{ publicId: 'tm-forged00001', name: 'forged by another tenant' }];
    const answer = JSON.stringify({ url, storedAt: Date.now(), status: 200, headers: { 'content-type': 'application/json' }, text: JSON.stringify(forged) });
    const block = JSON.stringify({ sends: [], limit: 20, windowMs: 60_000, blockedUntil: now + 3_590_000 });
    const fp = sha(token);
    const scope = sha(`${new URL(sandbox.baseUrl).href}\n${fp}`).slice(0, 32);
    const targets = new Set([...(await tenant.keys('hostctl:*')).filter((k) => !earlier.has(k)), `hostctl:{${fp}}:budget`, `hostctl:{${fp}}:cache:${scope}:answers:${sha(url)}`]);
    for (const key of targets) {
      if (key.endsWith(':filling')) continue;
      await tenant.set(key, key.endsWith(':budget') ? block : answer, 'PX', 3_600_000);
    }

    const cached = await hostctl(['teams', 'list', '--cache', '1m', '--json'], env);
    expect(cached.code, cached.stderr).toBe(0);
    expect(JSON.parse(cached.stdout)).toEqual(real);
    const plain = await hostctl(['teams', 'list', '--json'], env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual(real);
    expect(await mine()).toHaveLength(3);
    // The victim's own entries replaced the forged ones: the next cached run sends nothing.
    const again = await hostctl(['teams', 'list', '--cache', '1m', '--json'], env);
    expect(JSON.parse(again.stdout)).toEqual(real);
    expect(await mine()).toHaveLength(3);
  });

  test('reads nothing there: no API data, no budget, no token even in an answer that echoes it, and key names show neither the token nor its fingerprint', async ({ sandbox, redis, admin, hostctl }) => {
    const token = await admin.newToken('readable');
    await admin.plant('apps', [{ publicId: 'ap-echotoken01', name: `echo ${token}`, status: 'running' }]);
    const earlier = new Set((await redis.dump()).map((e) => e.key));
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: redis.url };
    for (const args of [['apps', 'list', '--cache', '1m', '--json'], ['apps', 'get', 'ap-echotoken01', '--cache', '1m', '--json'], ['apps', 'get', 'ap-echotoken01', '--json']]) {
      const r = await hostctl(args, env);
      expect(r.code, r.stderr).toBe(0);
    }
    const held = (await redis.dump()).filter((e) => !earlier.has(e.key));
    expect(held.filter((e) => /:cache:/.test(e.key)).length).toBeGreaterThan(0);
    expect(held.filter((e) => e.key.endsWith(':budget'))).toHaveLength(1);
    for (const { key, value } of held) {
      expect(key).not.toContain(sha(token));
      expect(key).not.toContain(token);
      expect(() => JSON.parse(value)).toThrow();
      for (const part of [token.slice(-12), 'ap-echotoken01', 'running', 'publicId', 'sends', 'limit']) expect(value).not.toContain(part);
    }
  });
});

describe.skipIf(skip !== undefined)('no library logger writes around the sink', () => {
  test('DEBUG=* or DEBUG=ioredis:* prints nothing of the Redis client: not its password, not the cached data', async ({ sandbox, admin, hostctl }) => {
    const password = 'pw-debug-horse-77';
    const locked = await startRedis(['--requirepass', password], { password });
    try {
      const token = await admin.newToken('debug');
      const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: locked.url };
      for (const debug of ['*', 'ioredis:*']) {
        for (const args of [['apps', 'list', '--cache', '1m', '--json'], ['apps', 'list', '--cache', '1m', '--json', '-v']]) {
          const r = await hostctl(args, { ...env, DEBUG: debug });
          expect(r.code, r.stderr).toBe(0);
          expect(JSON.parse(r.stdout)).not.toEqual([]);
          expect(r.stdout + r.stderr).not.toContain(password);
          expect(r.stderr).not.toContain('ioredis');
          expect(r.stderr).not.toContain('publicId');
          if (!args.includes('-v')) expect(r.stderr).toBe('');
        }
      }
    } finally {
      await locked.stop();
    }
  });
});

describe.skipIf(skip !== undefined)('the Redis user docs/fleet.md gives hostctl', () => {
  test('is all hostctl needs: machines sharing a --cache at once and a plain run, as that user, without a warning', async ({ sandbox, redis, admin, hostctl, home }) => {
    await redis.client().call('ACL', 'SETUSER', ...documentedAcl('pw-acl-e2e-5'));
    const token = await admin.newToken('acl');
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: `redis://hostctl:pw-acl-e2e-5@127.0.0.1:${redis.port}/2` };
    const machine = (n: number) => ({ ...env, HOSTCTL_CONFIG_DIR: `${home.path}/machine-${n}` });
    const runs = await Promise.all([1, 2, 3].map((n) => hostctl(['apps', 'list', '--cache', '1m', '--json'], machine(n))));
    runs.push(await hostctl(['apps', 'list', '--json'], machine(4)));
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
    }
    expect((await admin.requests()).filter((q) => q.token === 'acl')).toHaveLength(2);
  });
});

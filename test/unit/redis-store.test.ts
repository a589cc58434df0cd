// The fleet's budget store (src/http/redis.ts) against a real redis-server started for this
// file: updates are atomic across connections, `now` is Redis's clock, and a fault is one
// report and the file from then on. And how a run opens it (fleet.ts's openFleetStore):
// against that server, and against a closed loopback port for the warning or, with
// HOSTCTL_REDIS_REQUIRED=1, the error.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Budget, FileStore, windowUse, type BudgetData } from '../../src/http/budget.js';
import { NetworkError } from '../../src/errors.js';
import { openFleetStore, redisKeys, parseRedisUrl } from '../../src/http/fleet.js';
import { connectRedis, RedisStore } from '../../src/http/redis.js';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis.js';
import { closedPort } from '../support/servers.js';
import { rejection } from './http-support.js';

const skip = redisUnavailable();
if (skip) console.warn(`skipping the Redis store tests: ${skip}`);

let redis: RedisServer;
const dir = mkdtempSync(join(tmpdir(), 'hostctl-redis-store-'));
beforeAll(async () => {
  if (!skip) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function store(fp: string, faults: string[] = []): Promise<RedisStore> {
  const link = await connectRedis(parseRedisUrl(redis.url, 'test'));
  return new RedisStore(link, redisKeys(fp), new FileStore(join(dir, fp, 'state.json'), fp), (why) => faults.push(why));
}

describe.skipIf(skip !== undefined)('RedisStore', () => {
  it('updates from several connections at once lose none: each is one atomic step', async () => {
    const stores = await Promise.all([1, 2, 3, 4].map(() => store('atomic')));
    try {
      const add = (s: RedisStore, n: number) => s.update((d: BudgetData, now) => ({ data: { ...d, sends: [...d.sends, [now + n, now + n]] }, result: undefined }), undefined);
      await Promise.all(stores.flatMap((s, i) => Array.from({ length: 10 }, (_, k) => add(s, i * 100 + k))));
      expect((await stores[0]!.read()).sends).toHaveLength(40);
    } finally {
      for (const s of stores) s.close();
    }
  });

  it('`now` is Redis\'s clock: a machine an hour fast reserves at Redis\'s time', async () => {
    const real = Date.now();
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => real + 3_600_000);
    const s = await store('clock');
    try {
      const seen = await s.update((_d, now) => ({ result: now }), 0);
      expect(Math.abs(seen - real)).toBeLessThan(10_000);
      expect(Math.abs(s.now() - real)).toBeLessThan(10_000);
    } finally {
      spy.mockRestore();
      s.close();
    }
  });

  it('two Budgets on two connections share one window: the second sees the first one\'s reservation', async () => {
    const [a, b] = [new Budget(await store('shared')), new Budget(await store('shared'))];
    try {
      const first = await a.tryReserve();
      expect('sentAt' in first && first.probe).toBe(true);
      await a.observe({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' }, 'sentAt' in first ? first.sentAt : 0, false);
      const second = await b.tryReserve();
      expect('waitMs' in second && second.waitMs).toBeGreaterThan(4_000);
    } finally {
      (a.store as RedisStore).close();
      (b.store as RedisStore).close();
    }
  });

  it('a lease is shared like any reservation: the other machine counts it whole until it is handed back, then what was sent', async () => {
    const [a, b] = [new Budget(await store('lease')), new Budget(await store('lease'))];
    const rate = (remaining: number) => ({ 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': '60' });
    try {
      const first = await a.tryReserve();
      await a.observe(rate(999), 'sentAt' in first ? first.sentAt : 0, false);
      // The second reservation brings a lease of four; the next two slots are the lease's.
      for (let i = 0; i < 3; i++) {
        const r = await a.tryReserve();
        await a.observe(rate(998 - i), 'sentAt' in r ? r.sentAt : 0);
      }
      const held = await b.read();
      expect(held.groups).toEqual([expect.objectContaining({ n: 4, owner: a.id })]);
      expect(windowUse(held, (b.store as RedisStore).now()).spent).toBe(5);
      await a.flush();
      const after = await b.read();
      expect(after.groups).toEqual([expect.objectContaining({ n: 3 })]);
      expect(windowUse(after, (b.store as RedisStore).now()).spent).toBe(4);
      expect(after.view?.remaining).toBe(996);
    } finally {
      (a.store as RedisStore).close();
      (b.store as RedisStore).close();
    }
  });

  it('a fault is reported once, and the machine\'s file takes over', async () => {
    const faults: string[] = [];
    const doomed = await startRedis();
    const link = await connectRedis(parseRedisUrl(doomed.url, 'test'));
    const s = new RedisStore(link, redisKeys('fault'), new FileStore(join(dir, 'fault', 'state.json'), 'fault'), (why) => faults.push(why));
    await doomed.kill();
    const write = (n: number) => s.update((d: BudgetData) => ({ data: { ...d, limit: n }, result: n }), -1);
    expect(await write(5)).toBe(5);
    expect(await write(6)).toBe(6);
    expect(faults).toHaveLength(1);
    expect(s.where).toBe(join(dir, 'fault', 'budget', 'fault.json'));
    expect((await s.read()).limit).toBe(6);
  });
});

describe.skipIf(skip !== undefined)('the rules in Redis are the file\'s', () => {
  it('a 429 seen on one machine blocks another until its Retry-After; a dead interactive waiter lapses after its grace', async () => {
    const a = new Budget(await store('blocked'));
    const b = new Budget(await store('blocked'), 'interactive');
    const c = new Budget(await store('blocked'));
    try {
      const first = await a.tryReserve();
      if (!('sentAt' in first)) throw new Error('the first reservation must succeed');
      await a.on429(first.sentAt, 3_000);
      const blocked = await c.tryReserve();
      expect('waitMs' in blocked && blocked.waitMs).toBeGreaterThan(2_000);
      // The interactive one registers as a waiter; its claim lapses by its wake-up plus the grace.
      await b.tryReserve();
      const d = await (c.store as RedisStore).read();
      const lapses = Object.values(d.waiters ?? {});
      expect(lapses).toHaveLength(1);
      expect(lapses[0]! - c.store.now()).toBeLessThanOrEqual(3_000 + 1_000 + 100);
    } finally {
      for (const x of [a, b, c]) (x.store as RedisStore).close();
    }
  });
});

/** openFleetStore as a run calls it, with `env` as the run's environment: what it opened, warned and registered as secrets. */
async function openAs(env: NodeJS.ProcessEnv, profileUrl?: string) {
  const warnings: string[] = [];
  const secrets: string[] = [];
  const fingerprint = 'fleet-open';
  const opening = openFleetStore({
    env,
    profileUrl,
    profileName: 'ci',
    statePath: join(dir, fingerprint, 'state.json'),
    fingerprint,
    now: () => 1_700_000_000_000,
    warn: (text) => warnings.push(text),
    secret: (value) => secrets.push(value),
  });
  return { opening, warnings, secrets };
}

describe('openFleetStore: a Redis that cannot be used', () => {
  it('with no Redis URL (or an empty one) nothing is opened, warned or registered', async () => {
    for (const [env, profileUrl] of [[{}, undefined], [{ HOSTCTL_REDIS_URL: '' }, '']] as const) {
      const { opening, warnings, secrets } = await openAs(env, profileUrl);
      expect(await opening).toBeUndefined();
      expect(warnings).toEqual([]);
      expect(secrets).toEqual([]);
    }
  });

  it('is one warning naming host:port and why, and the machine\'s own budget; its password is a secret of the run', async () => {
    const port = await closedPort();
    // Only "1" makes Redis required: "0" falls back like unset.
    for (const required of [undefined, '0']) {
      const { opening, warnings, secrets } = await openAs({ HOSTCTL_REDIS_URL: `redis://:hunter2@127.0.0.1:${port}/0`, HOSTCTL_REDIS_REQUIRED: required });
      expect(await opening).toBeUndefined();
      expect(warnings).toEqual([`the shared store at 127.0.0.1:${port} cannot be used (connection refused); this run uses this machine's own rate budget.`]);
      expect(secrets).toEqual(['hunter2']);
    }
  });

  it('with HOSTCTL_REDIS_REQUIRED=1 is a network error (exit 6) saying how to go on, and no warning', async () => {
    const port = await closedPort();
    const { opening, warnings } = await openAs({ HOSTCTL_REDIS_REQUIRED: '1' }, `redis://127.0.0.1:${port}`);
    const err = await rejection(opening);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe(`The shared store at 127.0.0.1:${port} cannot be used: connection refused; HOSTCTL_REDIS_REQUIRED=1 forbids going on without it.`);
    expect((err as NetworkError).hint).toBe("Check that Redis runs and the URL and its password are right, or unset HOSTCTL_REDIS_REQUIRED to fall back to this machine's own budget.");
    expect((err as NetworkError).exitCode).toBe(6);
    expect(warnings).toEqual([]);
  });
});

describe.skipIf(skip !== undefined)('openFleetStore: a Redis that can be used', () => {
  it('is the shared store, keyed by the fingerprint, with no warning and no secret when the URL has no password', async () => {
    const { opening, warnings, secrets } = await openAs({ HOSTCTL_REDIS_URL: redis.url }, 'rediss://profile.example.invalid/0');
    const s = await opening;
    try {
      expect(s).toBeInstanceOf(RedisStore);
      expect(s!.where).toBe(`redis 127.0.0.1:${redis.port}`);
      await s!.update((d: BudgetData) => ({ data: { ...d, limit: 7 }, result: undefined }), undefined);
      expect(JSON.parse(await redis.client().get('hostctl:{fleet-open}:budget') ?? 'null')).toMatchObject({ limit: 7 });
      expect(warnings).toEqual([]);
      expect(secrets).toEqual([]);
    } finally {
      s?.close();
    }
  });

  it('with HOSTCTL_REDIS_REQUIRED=1, a fault later in the run fails the update instead of falling back', async () => {
    const doomed = await startRedis();
    const { opening, warnings } = await openAs({ HOSTCTL_REDIS_URL: doomed.url, HOSTCTL_REDIS_REQUIRED: '1' });
    const s = (await opening)!;
    await doomed.kill();
    const err = await rejection(s.update((d: BudgetData) => ({ data: { ...d, limit: 1 }, result: 1 }), -1));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe(`The shared store at 127.0.0.1:${doomed.port} cannot be used: the connection was lost; HOSTCTL_REDIS_REQUIRED=1 forbids going on without it.`);
    expect(warnings).toEqual([]);
  });
});

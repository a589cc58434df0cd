// The fleet's store on a Redis Cluster (`?cluster=1`, src/http/redis.ts connectRedis):
// against a real three-node cluster on loopback ports started for this file
// (support/redis.ts startRedisCluster). Which node served what is read from the nodes' own
// command statistics (INFO commandstats), never from the client's insides.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BudgetData } from '../../src/http/budget.js';
import { openFleetStore, redisKeys } from '../../src/http/fleet.js';
import { tokenSeal } from '../../src/http/seal.js';

/** The keys of the token `token-<fingerprint>`, as hostctl names them (a digest keyed by the token). */
const keysOf = (fingerprint: string) => redisKeys(tokenSeal(`token-${fingerprint}`).tag);
import type { RedisBudgetStore } from '../../src/http/redis.js';
import { redisClusterUnavailable, startRedisCluster, type RedisCluster } from '../support/redis.js';

const skip = redisClusterUnavailable();
if (skip) console.warn(`skipping the Redis Cluster store tests: ${skip}`);

let cluster: RedisCluster;
const dir = mkdtempSync(join(tmpdir(), 'hostctl-redis-cluster-'));
beforeAll(async () => {
  if (!skip) cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The shared store of `fingerprint` through the cluster, seeded at the node on `port`; the warnings it gave. */
async function open(fingerprint: string, port: number): Promise<{ store: RedisBudgetStore | undefined; warnings: string[] }> {
  const warnings: string[] = [];
  const store = await openFleetStore({
    env: { HOSTCTL_REDIS_URL: cluster.url(port) },
    profileUrl: undefined,
    profileName: 'ci',
    statePath: join(dir, fingerprint, 'state.json'),
    fingerprint,
    token: `token-${fingerprint}`,
    now: () => Date.now(),
    warn: (text) => warnings.push(text),
    secret: () => undefined,
  });
  return { store, warnings };
}

/** The commands each node has run since its statistics were reset, by name (`cmdstat_time` → `time`). */
async function commandsByNode(): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  for (const n of cluster.nodes) {
    const info = String(await n.client().call('INFO', 'commandstats'));
    out.set(n.port, new Set([...info.matchAll(/^cmdstat_([^:]+):/gm)].map((m) => m[1]!)));
  }
  return out;
}

describe.skipIf(skip !== undefined)('the shared store on a Redis Cluster', () => {
  it('whichever node the URL names, the reservation (WATCH, GET, TIME, MULTI/SET/EXEC), the clock and the cache are the one node\'s that serves the token\'s slot', async () => {
    for (const n of cluster.nodes) await n.client().call('CONFIG', 'RESETSTAT');
    const opened = await Promise.all(cluster.nodes.map((n) => open('cluster-one-node', n.port)));
    try {
      for (const { store, warnings } of opened) {
        expect(warnings).toEqual([]);
        await store!.update((d: BudgetData) => ({ data: d, result: undefined }), undefined);
      }
      await opened[0]!.store!.cacheStorage('scope', 60_000).write('apps', [{ publicId: 'ap-1' }]);
      // Written through one seed, read through another.
      expect(await opened[2]!.store!.cacheStorage('scope', 60_000).read('apps')).toEqual([{ publicId: 'ap-1' }]);

      const stats = await commandsByNode();
      const budget = ['watch', 'get', 'time', 'multi', 'set', 'exec'];
      const serving = [...stats].filter(([, names]) => budget.every((c) => names.has(c)));
      expect(serving).toHaveLength(1);
      const [owner] = serving[0]!;
      for (const [port, names] of stats) if (port !== owner) expect([...names].filter((c) => budget.includes(c))).toEqual([]);
      // And that node holds every key of the token.
      const keys = keysOf('cluster-one-node');
      const mine = (await cluster.dump()).filter((e) => e.key === keys.budget || e.key.startsWith(keys.cache('')));
      expect(mine.length).toBeGreaterThan(1);
      expect(new Set(mine.map((e) => e.port))).toEqual(new Set([owner]));
    } finally {
      for (const { store } of opened) store?.close();
    }
  });

  it('after a resharding moves the token\'s slot, the next run asks the seed again and uses the new node, where its budget now is: no warning', async () => {
    const fp = 'cluster-resharded';
    const seed = cluster.nodes[0]!.port;
    const first = await open(fp, seed);
    await first.store!.update((d: BudgetData) => ({ data: { ...d, limit: 7 }, result: undefined }), undefined);
    first.store!.close();
    const key = keysOf(fp).budget;
    const before = (await cluster.dump()).find((e) => e.key === key)!.port;
    const after = cluster.nodes.map((n) => n.port).find((p) => p !== before)!;
    await cluster.moveSlot(await cluster.slotOf(key), after);

    const next = await open(fp, seed);
    try {
      expect(next.warnings).toEqual([]);
      expect(await next.store!.read()).toMatchObject({ limit: 7 });
      await next.store!.update((d: BudgetData) => ({ data: { ...d, limit: 8 }, result: undefined }), undefined);
      const held = (await cluster.dump()).filter((e) => e.key === key);
      expect(held.map((e) => e.port)).toEqual([after]);
      expect(tokenSeal(`token-${fp}`).open(key, held[0]!.value, Date.now(), Infinity)).toMatchObject({ limit: 8 });
      expect(next.warnings).toEqual([]);
    } finally {
      next.store?.close();
    }
  });

  it('a slot that moves during a run (a MOVED reply) is one warning saying so, and the machine\'s own budget for the rest of the run', async () => {
    const fp = 'cluster-moved-midrun';
    const { store, warnings } = await open(fp, cluster.nodes[1]!.port);
    try {
      await store!.update((d: BudgetData) => ({ data: { ...d, limit: 3 }, result: undefined }), undefined);
      const key = keysOf(fp).budget;
      const before = (await cluster.dump()).find((e) => e.key === key)!.port;
      await cluster.moveSlot(await cluster.slotOf(key), cluster.nodes.map((n) => n.port).find((p) => p !== before)!);
      expect(await store!.update((d: BudgetData) => ({ data: { ...d, limit: 4 }, result: 'done' }), 'gave up')).toBe('done');
      expect(await store!.update((d: BudgetData) => ({ data: { ...d, limit: 5 }, result: 'again' }), 'gave up')).toBe('again');
      expect(warnings).toEqual([`the shared store at 127.0.0.1:${cluster.nodes[1]!.port} cannot be used (the token's keys moved to another node of the cluster (a resharding or a failover); hostctl finds that node when it connects again); this machine's own rate budget is used until it answers again.`]);
      // The machine's budget file, no longer Redis.
      expect(store!.where).not.toMatch(/^redis /);
    } finally {
      store?.close();
    }
  });

  it('a store opened through the cluster holds nothing that keeps the process alive: no socket, no timer', async () => {
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TLSWrap').length;
    const before = sockets();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    let store: RedisBudgetStore | undefined;
    try {
      ({ store } = await open('cluster-alive', cluster.nodes[1]!.port));
      expect(store).toBeDefined();
      // The seed's connection (CLUSTER SLOTS) was ended by the time the store opened; its
      // socket, and ioredis's guard on a slow close (a timer the close clears), go once the
      // seed's end of it arrives: round trips of the store's own, no clock.
      for (let i = 0; i < 100 && (sockets() !== before || vi.getTimerCount() !== 0); i++) {
        await store!.read();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(sockets()).toBe(before);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
      store?.close();
    }
  });
});

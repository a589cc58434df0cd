// The Redis user docs/fleet.md tells a team to give hostctl: its ACL rule, read from that
// page, given to a user of a real redis-server, and every way the store uses Redis run as
// that user (a reservation that writes and one that does not, reads, a cache entry written,
// read, claimed and waited for). A command the rule does not allow would be a fault; so the
// page cannot fall behind the code.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileBudgetStore, type BudgetData } from '../../src/http/budget.js';
import { parseRedisUrl, redisKeys } from '../../src/http/fleet.js';
import { connectRedis, RedisBudgetStore, tokenSeal } from '../../src/http/redis.js';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis.js';
import { documentedAcl } from '../support/redis-acl.js';

const skip = redisUnavailable();
if (skip) console.warn(`skipping the Redis ACL test: ${skip}`);

const PASSWORD = 'pw-acl-lantern-41';
let redis: RedisServer;
const dir = mkdtempSync(join(tmpdir(), 'hostctl-redis-acl-'));

beforeAll(async () => {
  if (skip) return;
  redis = await startRedis();
  await redis.client().call('ACL', 'SETUSER', ...documentedAcl(PASSWORD));
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip !== undefined)('a Redis user with exactly the ACL docs/fleet.md gives', () => {
  it('is all the store needs: reservations, reads, cache entries and claims, on a database other than 0, with no fault', async () => {
    const faults: string[] = [];
    const open = async () => {
      const link = await connectRedis(parseRedisUrl(`redis://hostctl:${PASSWORD}@127.0.0.1:${redis.port}/1`, 'test'));
      const seal = tokenSeal('tok_acl');
      return new RedisBudgetStore(link, redisKeys(seal.tag), new FileBudgetStore(join(dir, 'state.json'), 'acl'), (why) => faults.push(why), seal);
    };
    const [a, b] = [await open(), await open()];
    try {
      expect(await a.update((d: BudgetData) => ({ data: { ...d, limit: 9 }, result: 'written' }), 'gave up')).toBe('written');
      expect(await a.update((d: BudgetData) => ({ result: d.limit }), -1)).toBe(9);
      expect((await b.read()).limit).toBe(9);
      const [ca, cb] = [a.cacheStorage('scope', 60_000), b.cacheStorage('scope', 60_000)];
      await ca.claim!('answers/x');
      // b finds a's claim, and waits until a has filled the entry.
      const waiting = cb.claim!('answers/x');
      await ca.write('answers/x', { text: 'filled' });
      await waiting;
      expect(await cb.read('answers/x')).toEqual({ text: 'filled' });
      expect(faults).toEqual([]);
      expect(a.where).toBe(`redis 127.0.0.1:${redis.port}`);
      // On the database the URL names: a SELECT refused would leave them in database 0.
      const admin = redis.client();
      await admin.select(1);
      expect((await admin.keys('hostctl:*')).length).toBeGreaterThan(0);
    } finally {
      a.close();
      b.close();
    }
  });

  it('is no more than that: the user reaches no other key and no other command', async () => {
    const link = await connectRedis(parseRedisUrl(`redis://hostctl:${PASSWORD}@127.0.0.1:${redis.port}/0`, 'test'));
    try {
      await expect(link.client.get('other-app:secret')).rejects.toThrow(/NOPERM/);
      await expect(link.client.keys('*')).rejects.toThrow(/NOPERM/);
      await expect(link.client.flushall()).rejects.toThrow(/NOPERM/);
    } finally {
      link.close();
    }
  });
});

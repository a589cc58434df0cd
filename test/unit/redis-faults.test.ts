// The shared store's faults (src/http/redis.ts): the budget is never bypassed in silence. A
// reservation Redis will not record (another client touching the key under every WATCH, an
// EXEC that is always nil, a TIME or a GET that makes no sense) is a fault like a dead
// Redis: one report, and the machine's own file records it. A user whose ACL refuses MULTI
// is a fault before anything is written. A Redis clock that steps back blocks no longer
// than the server's own figures, and its offset shows in no reset figure. A long-lived
// process uses Redis again once it answers. Against a real redis-server started for this
// file (test/support/redis.ts), and a fake one on loopback for the answers a real one never
// gives (test/support/resp-server.ts).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget, decide, FileBudgetStore, normalizeBudget, observe, on429, reserve, SLOT_MARGIN_MS, type BudgetData } from '../../src/http/budget.js';
import { NetworkError } from '../../src/errors.js';
import { openFleetStore, parseRedisUrl, redisKeys } from '../../src/http/fleet.js';
import { connectRedis, RedisBudgetStore, tokenSeal, type Reconnection } from '../../src/http/redis.js';
import { redisUnavailable, refreshInLoop, startRedis, type RedisServer } from '../support/redis.js';
import { reply, startFakeRedis, type FakeRedisOptions } from '../support/resp-server.js';
import { rejection } from './http-support.js';

const skip = redisUnavailable();
if (skip) console.warn(`skipping the Redis fault tests: ${skip}`);

let redis: RedisServer;
const dir = mkdtempSync(join(tmpdir(), 'hostctl-redis-faults-'));
beforeAll(async () => {
  if (!skip) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The keys of the token `token-<fp>`, as hostctl names them (a digest keyed by the token). */
const keysOf = (fp: string) => redisKeys(tokenSeal(`token-${fp}`).tag);

/** A store of fingerprint `fp` on a connection of its own to `url`, with the faults it reported; `machine` names its budget file's directory. */
async function linked(fp: string, url: string, reconnection?: Reconnection, machine = fp) {
  const faults: string[] = [];
  const link = await connectRedis(parseRedisUrl(url, 'test'));
  const file = new FileBudgetStore(join(dir, machine, 'state.json'), fp);
  const s = new RedisBudgetStore(link, keysOf(fp), file, (why) => faults.push(why), tokenSeal(`token-${fp}`), reconnection);
  return { s, faults, file };
}

/** An update that writes `limit: n` and answers n. */
const write = (s: RedisBudgetStore, n: number) => s.update((d: BudgetData) => ({ data: { ...d, limit: n }, result: n }), -1);

const fileHolds = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as BudgetData;

describe.skipIf(skip !== undefined)('a reservation Redis will not record is a fault: one report, and the file records it', () => {
  it('another client refreshing the key\'s TTL in a loop (every WATCH aborted)', async () => {
    const fp = 'refreshed';
    const admin = redis.client();
    await admin.set(keysOf(fp).budget, JSON.stringify({ sends: [] }), 'PX', 3_600_000);
    const loop = await refreshInLoop(redis.port, [keysOf(fp).budget]);
    const { s, faults, file } = await linked(fp, redis.url);
    try {
      expect(await write(s, 5)).toBe(5);
      expect(await write(s, 6)).toBe(6);
      expect(faults).toHaveLength(1);
      expect(s.where).toBe(file.path);
      expect(fileHolds(file.path)).toMatchObject({ limit: 6 });
    } finally {
      await loop.stop();
      s.close();
    }
  });

  const nonsense: [string, FakeRedisOptions['answer']][] = [
    ['an EXEC that is always nil (as if another client always wrote first)', (cmd) => (cmd[0] === 'EXEC' ? reply.array(null) : undefined)],
    ['a TIME that is not a number (after the one read when connecting)', (cmd, n) => (cmd[0] === 'TIME' && n > 0 ? reply.array([reply.bulk('soon'), reply.bulk('0')]) : undefined)],
    ['a GET answered with an integer', (cmd) => (cmd[0] === 'GET' ? reply.int(7) : undefined)],
    ['an EXEC whose write did not say OK', (cmd) => (cmd[0] === 'EXEC' ? reply.array([reply.bulk('maybe')]) : undefined)],
  ];
  for (const [what, answer] of nonsense) {
    it(what, async () => {
      const fake = await startFakeRedis({ answer });
      const fp = `nonsense-${nonsense.findIndex(([w]) => w === what)}`;
      const { s, faults, file } = await linked(fp, fake.url);
      try {
        expect(await write(s, 5)).toBe(5);
        expect(await write(s, 6)).toBe(6);
        expect((await s.read()).limit).toBe(6);
        expect(faults).toHaveLength(1);
        expect(s.where).toBe(file.path);
        expect(fileHolds(file.path)).toMatchObject({ limit: 6 });
      } finally {
        s.close();
        await fake.close();
      }
    });
  }
});

describe.skipIf(skip !== undefined)('a user whose ACL refuses MULTI', () => {
  it('is a fault before anything is written: Redis holds nothing of the token, and another machine\'s commands do not wait for the first one\'s', async () => {
    const admin = redis.client();
    await admin.call('ACL', 'SETUSER', 'no-multi', 'on', '>pw-no-multi', '~*', '+@all', '-multi');
    const url = `redis://no-multi:pw-no-multi@127.0.0.1:${redis.port}/0`;
    const fp = 'no-multi';
    const [a, b] = [await linked(fp, url, undefined, 'machine-a'), await linked(fp, url, undefined, 'machine-b')];
    try {
      const first = await new Budget(a.s).tryReserve();
      expect('sentAt' in first).toBe(true);
      await a.s.cacheStorage('scope', 60_000).claim!('objects');
      await a.s.cacheStorage('scope', 60_000).write('objects', ['one']);
      // The second machine's reservation is its own at once: no probe of the first's left in Redis to wait for.
      const second = await new Budget(b.s).tryReserve();
      expect(second).toEqual({ sentAt: expect.any(Number), probe: true });
      expect(await admin.keys(`*${fp}*`)).toEqual([]);
      expect(a.faults).toHaveLength(1);
      expect(b.faults).toHaveLength(1);
      expect(a.faults[0]).toContain('multi');
    } finally {
      a.s.close();
      b.s.close();
      await admin.call('ACL', 'DELUSER', 'no-multi');
    }
  });
});

describe('a clock that steps back blocks no longer than the server\'s own figures', () => {
  const T = 1_800_000_000_000;
  const BACK = 30 * 60_000;
  const headers = (remaining: number) => ({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': '60' });

  /** A window of 2 a minute learnt and spent at T. */
  function spent(): BudgetData {
    let d: BudgetData = { sends: [] };
    d = reserve(d, T);
    d = observe(d, headers(1), T, T + 10);
    d = reserve(d, T + 20);
    return observe(d, headers(0), T + 20, T + 30);
  }

  it('a full window read on a clock half an hour back frees a slot within the window the server taught', () => {
    const d = spent();
    expect(d.windowMs).toBeDefined();
    const now = T + 40 - BACK;
    const decision = decide(normalizeBudget(JSON.parse(JSON.stringify(d)), now), now);
    expect(decision.ok).toBe(false);
    expect(!decision.ok && decision.waitMs).toBeLessThanOrEqual(d.windowMs! + SLOT_MARGIN_MS);
    // The same budget on a clock that did not step: the same wait, less the time passed.
    const steady = decide(normalizeBudget(JSON.parse(JSON.stringify(d)), T + 40), T + 40);
    expect(!decision.ok && !steady.ok && Math.abs(decision.waitMs - steady.waitMs)).toBeLessThanOrEqual(SLOT_MARGIN_MS + 40);
  });

  it('a 429\'s block read on a clock half an hour back lasts no longer than its Retry-After', () => {
    const retryMs = 30_000;
    const d = on429(spent(), T + 20, retryMs, T + 30, headers(0));
    const now = T + 40 - BACK;
    const decision = decide(normalizeBudget(JSON.parse(JSON.stringify(d)), now), now);
    expect(decision.ok).toBe(false);
    expect(!decision.ok && decision.waitMs).toBeLessThanOrEqual(retryMs);
  });

  it('through Redis: a TIME that steps back half an hour after the window was spent', async () => {
    let t = Date.now();
    const fake = await startFakeRedis({ now: () => t });
    const { s } = await linked('stepped', fake.url);
    const budget = new Budget(s);
    try {
      for (let remaining = 1; remaining >= 0; remaining--) {
        const r = await budget.tryReserve();
        if (!('sentAt' in r)) throw new Error('the window has room for two');
        await budget.observe(headers(remaining), r.sentAt);
      }
      const windowMs = (await s.read()).windowMs!;
      t -= BACK;
      const blocked = await budget.tryReserve();
      expect('waitMs' in blocked && blocked.waitMs).toBeGreaterThan(0);
      expect('waitMs' in blocked && blocked.waitMs).toBeLessThanOrEqual(windowMs + SLOT_MARGIN_MS);
    } finally {
      s.close();
      await fake.close();
    }
  });
});

describe('a Redis clock a day ahead shows in no reset figure', () => {
  it('the rate state an answer and a 429 leave reads on this machine\'s clock', async () => {
    const DAY = 86_400_000;
    const fake = await startFakeRedis({ now: () => Date.now() + DAY });
    const { s } = await linked('a-day-ahead', fake.url);
    const budget = new Budget(s);
    try {
      const r = await budget.tryReserve();
      if (!('sentAt' in r)) throw new Error('the first reservation must succeed');
      await budget.observe({ 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'x-ratelimit-reset': '60' }, r.sentAt);
      const seen = await budget.rate();
      expect(seen!.resetAt! - Date.now()).toBeGreaterThan(0);
      expect(seen!.resetAt! - Date.now()).toBeLessThanOrEqual(60_000);
      expect(Math.abs(seen!.seenAt - Date.now())).toBeLessThan(60_000);
      // As the 429's wait records it (ratelimit.ts, on this machine's clock): kept on the store's, read back on this one.
      const at = Date.now();
      await budget.updateRate((prev) => ({ ...prev, remaining: 0, resetAt: at + 30_000, seenAt: at }));
      const blocked = await budget.rate();
      expect(blocked!.resetAt! - Date.now()).toBeGreaterThan(0);
      expect(blocked!.resetAt! - Date.now()).toBeLessThanOrEqual(30_000);
      // A Reset given as a Unix time (the alt server's way) is a wall-clock time: the same.
      const next = await budget.tryReserve(true);
      if (!('sentAt' in next)) throw new Error('a forced reservation always succeeds');
      await budget.observe({ 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '18', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60) }, next.sentAt);
      const unix = await budget.rate();
      expect(unix!.resetAt! - Date.now()).toBeGreaterThan(0);
      expect(unix!.resetAt! - Date.now()).toBeLessThanOrEqual(61_000);
    } finally {
      s.close();
      await fake.close();
    }
  });
});

describe.skipIf(skip !== undefined)('a long-lived process uses Redis again once it answers', () => {
  it('one report per outage; no connection tried for a while after a fault, then one per pause until Redis is back', async () => {
    let server = await startRedis([]);
    const port = server.port;
    let t = 0;
    let connects = 0;
    const target = parseRedisUrl(server.url, 'test');
    const { s, faults, file } = await linked('recovers', server.url, { connect: () => (connects++, connectRedis(target)), now: () => t });
    const key = keysOf('recovers').budget;
    try {
      expect(await write(s, 1)).toBe(1);
      await server.kill();
      expect(await write(s, 2)).toBe(2);
      expect(await write(s, 3)).toBe(3);
      expect(faults).toHaveLength(1);
      expect(connects).toBe(0);
      expect(s.where).toBe(file.path);

      // A minute on, still down: one try, no new report, the file again.
      t += 60_000;
      expect(await write(s, 4)).toBe(4);
      expect(await write(s, 5)).toBe(5);
      expect(connects).toBe(1);
      expect(faults).toHaveLength(1);
      expect(fileHolds(file.path)).toMatchObject({ limit: 5 });

      server = await startRedis([], { port });
      t += 60_000;
      expect(await write(s, 6)).toBe(6);
      expect(s.where).toBe(`redis 127.0.0.1:${port}`);
      expect(tokenSeal('token-recovers').open(key, await server.client().get(key), Date.now(), Infinity)).toMatchObject({ limit: 6 });
      expect(faults).toHaveLength(1);

      // A new outage is reported again.
      await server.kill();
      expect(await write(s, 7)).toBe(7);
      expect(faults).toHaveLength(2);
    } finally {
      s.close();
      await server.stop();
    }
  });

  it('a Redis that takes the new connection but still will not record is the same outage: no second report', async () => {
    const fake = await startFakeRedis({ answer: (cmd) => (cmd[0] === 'EXEC' ? reply.array(null) : undefined) });
    let t = 0;
    const { s, faults, file } = await linked('still-nonsense', fake.url, { connect: () => connectRedis(parseRedisUrl(fake.url, 'test')), now: () => t });
    try {
      for (let n = 1; n <= 4; n++) {
        expect(await write(s, n)).toBe(n);
        t += 60_000;
      }
      // Each of the later updates connected again, and each found the same fault.
      expect(fake.connections).toBe(4);
      expect(faults).toHaveLength(1);
      expect(fileHolds(file.path)).toMatchObject({ limit: 4 });
    } finally {
      s.close();
      await fake.close();
    }
  });

  it('with HOSTCTL_REDIS_REQUIRED=1: calls fail while Redis is down, and succeed again once it is back', async () => {
    let server = await startRedis([]);
    const port = server.port;
    let t = 1_700_000_000_000;
    const warnings: string[] = [];
    const s = (await openFleetStore({
      env: { HOSTCTL_REDIS_URL: server.url, HOSTCTL_REDIS_REQUIRED: '1' },
      profileUrl: undefined,
      profileName: 'ci',
      statePath: join(dir, 'required', 'state.json'),
      fingerprint: 'required',
      token: 'token-required',
      now: () => t,
      warn: (text) => warnings.push(text),
      secret: () => undefined,
    }))!;
    try {
      await server.kill();
      const err = await rejection(write(s, 1));
      expect(err).toBeInstanceOf(NetworkError);
      expect(await rejection(write(s, 2))).toBe(err);
      server = await startRedis([], { port });
      t += 60_000;
      expect(await write(s, 3)).toBe(3);
      const key = keysOf('required').budget;
      expect(tokenSeal('token-required').open(key, await server.client().get(key), Date.now(), Infinity)).toMatchObject({ limit: 3 });
      expect(warnings).toEqual([]);
    } finally {
      s.close();
      await server.stop();
    }
  });
});

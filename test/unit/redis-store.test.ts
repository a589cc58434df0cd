// The fleet's budget store (src/http/redis.ts) against a real redis-server started for this
// file: updates are atomic across connections, `now` is Redis's clock, and a fault is one
// report and the file from then on. And how a run opens it (fleet.ts's openFleetStore):
// against that server, and against a closed loopback port for the warning or, with
// HOSTCTL_REDIS_REQUIRED=1, the error.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Budget, FileBudgetStore, windowUse, type BudgetData } from '../../src/http/budget.js';
import { NetworkError } from '../../src/errors.js';
import { openFleetStore, redisKeys, parseRedisUrl } from '../../src/http/fleet.js';
import { connectRedis, faultReason, RedisBudgetStore, tokenSeal, type RedisLink } from '../../src/http/redis.js';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis.js';
import { closedPort, listenLoopback } from '../support/servers.js';
import { opensslUnavailable, selfSignedCert } from '../support/tls.js';
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

/** A store on a connection of its own to `url` (the file's server unless told), with the faults it reported and its link. */
async function linked(fp: string, url = redis.url): Promise<{ s: RedisBudgetStore; link: RedisLink; faults: string[] }> {
  const faults: string[] = [];
  const link = await connectRedis(parseRedisUrl(url, 'test'));
  const s = new RedisBudgetStore(link, redisKeys(fp), new FileBudgetStore(join(dir, fp, 'state.json'), fp), (why) => faults.push(why), tokenSeal(`token-${fp}`));
  return { s, link, faults };
}

async function store(fp: string): Promise<RedisBudgetStore> {
  return (await linked(fp)).s;
}

/** Redis's clock (TIME) in epoch ms, read by the test's own connection. */
async function redisNow(): Promise<number> {
  const [s, us] = await redis.client().time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Whether `p` has settled, as the test looks at it between steps (a rejection is kept, not thrown). */
function watch(p: Promise<unknown>): { settled: boolean; error?: unknown } {
  const state: { settled: boolean; error?: unknown } = { settled: false };
  p.then(
    () => (state.settled = true),
    (err: unknown) => Object.assign(state, { settled: true, error: err }),
  );
  return state;
}

/**
 * Lets what `link` has in flight finish, without the clock: three round trips on the same
 * connection (replies come in order), each followed by a turn of the event loop. The claim's
 * loop sends at most two commands before it sleeps again.
 */
async function roundTrips(link: RedisLink): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await link.client.ping();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe.skipIf(skip !== undefined)('RedisBudgetStore', () => {
  it('updates from several connections at once lose none: each is one atomic step', async () => {
    const stores = await Promise.all([1, 2, 3, 4].map(() => store('atomic')));
    try {
      const add = (s: RedisBudgetStore, n: number) => s.update((d: BudgetData, now) => ({ data: { ...d, sends: [...d.sends, [now + n, now + n]] }, result: undefined }), undefined);
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
      await a.observe({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' }, 'sentAt' in first ? first.sentAt : 0);
      const second = await b.tryReserve();
      expect('waitMs' in second && second.waitMs).toBeGreaterThan(4_000);
    } finally {
      (a.store as RedisBudgetStore).close();
      (b.store as RedisBudgetStore).close();
    }
  });

  it('every reservation and answer of one machine is in the shared window the moment it is made: the other counts them all', async () => {
    const [a, b] = [new Budget(await store('at-once')), new Budget(await store('at-once'))];
    const rate = (remaining: number) => ({ 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': '60' });
    try {
      const first = await a.tryReserve();
      await a.observe(rate(999), 'sentAt' in first ? first.sentAt : 0);
      for (let i = 0; i < 3; i++) {
        const r = await a.tryReserve();
        await a.observe(rate(998 - i), 'sentAt' in r ? r.sentAt : 0);
      }
      const r = await a.tryReserve();
      // Four answered and one in flight: the other machine counts all five, and the last answer's view.
      const seen = await b.read();
      expect(windowUse(seen, (b.store as RedisBudgetStore).now()).spent).toBe(5);
      expect(seen.view?.remaining).toBe(996);
      expect('sentAt' in r).toBe(true);
    } finally {
      (a.store as RedisBudgetStore).close();
      (b.store as RedisBudgetStore).close();
    }
  });

  it('a fault is reported once, and the machine\'s file takes over', async () => {
    const faults: string[] = [];
    const doomed = await startRedis();
    const link = await connectRedis(parseRedisUrl(doomed.url, 'test'));
    const s = new RedisBudgetStore(link, redisKeys('fault'), new FileBudgetStore(join(dir, 'fault', 'state.json'), 'fault'), (why) => faults.push(why), tokenSeal('token-fault'));
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
      const d = await (c.store as RedisBudgetStore).read();
      const lapses = Object.values(d.waiters ?? {});
      expect(lapses).toHaveLength(1);
      expect(lapses[0]! - c.store.now()).toBeLessThanOrEqual(3_000 + 1_000 + 100);
    } finally {
      for (const x of [a, b, c]) (x.store as RedisBudgetStore).close();
    }
  });
});

describe.skipIf(skip !== undefined)('RedisBudgetStore: reading, the clock, closing and faults', () => {
  it('a budget nobody wrote reads as empty, and so does one whose text is not JSON', async () => {
    const { s, faults } = await linked('unreadable');
    try {
      expect(await s.read()).toEqual({ sends: [] });
      await redis.client().set('hostctl:{unreadable}:budget', 'not json {');
      expect(await s.read()).toEqual({ sends: [] });
      expect(faults).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('the store\'s clock is Redis\'s TIME to the millisecond, and a reading that reached this process late does not set it back', async () => {
    const local = Date.now();
    const spy = vi.spyOn(Date, 'now').mockReturnValue(local);
    const before = await redisNow();
    const { s } = await linked('clock-exact');
    try {
      const after = await redisNow();
      // This machine's clock stands still: the store's now is the TIME read while connecting.
      expect(s.now()).toBeGreaterThanOrEqual(before);
      expect(s.now()).toBeLessThanOrEqual(after);
      // An update's reply read a minute late (a busy machine) gives a smaller offset: the largest is kept.
      spy.mockReturnValue(local + 60_000);
      await s.update((_d, now) => ({ result: now }), 0);
      spy.mockReturnValue(local);
      expect(s.now()).toBeGreaterThanOrEqual(before);
      expect(s.now()).toBeLessThanOrEqual(await redisNow());
    } finally {
      spy.mockRestore();
      s.close();
    }
  });

  it('close lets go of the connection: an update after it is a fault, and goes to the file', async () => {
    const { s, faults } = await linked('closed');
    s.close();
    expect(await s.update((d: BudgetData) => ({ data: { ...d, limit: 3 }, result: 3 }), -1)).toBe(3);
    expect(faults).toEqual(['the connection was lost']);
    expect(s.where).toBe(join(dir, 'closed', 'budget', 'closed.json'));
    expect(await redis.client().exists('hostctl:{closed}:budget')).toBe(0);
  });

  it('a read from a store that died is a fault, reported once, and the file answers', async () => {
    const doomed = await startRedis();
    const { s, faults } = await linked('read-fault', doomed.url);
    await doomed.kill();
    expect(await s.read()).toEqual({ sends: [] });
    expect(faults).toEqual(['the connection was lost']);
    expect(s.where).toBe(join(dir, 'read-fault', 'budget', 'read-fault.json'));
  });

  it('an update that keeps losing to other writers is a fault: reported once, and the machine\'s file records it', async () => {
    const { s, link, faults } = await linked('contended');
    let reads = 0;
    try {
      const result = await s.update((d: BudgetData) => {
        reads++;
        // Another write of the key between this read and this write (on the same connection,
        // so that it lands first): Redis drops the transaction, and the update reads again.
        // The others stop after a while more than any update tries, so that one that never gave up would end.
        // (The file's run of the update, after the fault, finds the connection closed.)
        if (reads <= 1_000) link.client.set('hostctl:{contended}:budget', JSON.stringify({ sends: [], limit: reads })).catch(() => undefined);
        return { data: { ...d, limit: -1 }, result: 'written' };
      }, 'gave up');
      expect(result).toBe('written');
      expect(faults).toHaveLength(1);
      expect(s.where).toBe(join(dir, 'contended', 'budget', 'contended.json'));
      expect(JSON.parse(readFileSync(s.where, 'utf8'))).toMatchObject({ limit: -1 });
    } finally {
      s.close();
    }
  });
});

describe.skipIf(skip !== undefined)('RedisBudgetStore.cacheStorage', () => {
  const admin = () => redis.client();
  /** The one claim a test's store `fp` holds, whatever its entry's name became. */
  const claimOf = async (fp: string) => {
    const claims = await admin().keys(`hostctl:{${fp}}:cache:*:filling`);
    expect(claims).toHaveLength(1);
    return claims[0]!;
  };

  it('an entry is kept under a name that says neither its scope nor its path, sealed, for the ttl, and read back as written', async () => {
    const { s, faults } = await linked('cache-kept');
    try {
      const cache = s.cacheStorage('scope1', 3_600_000.4);
      // A miss is undefined, not null.
      expect(await cache.read('objects/list\\page')).toBeUndefined();
      await cache.write('objects/list\\page', { items: [1, 'two'] });
      expect(await cache.read('objects/list\\page')).toEqual({ items: [1, 'two'] });
      const [key, ...others] = await admin().keys('hostctl:{cache-kept}:cache:*');
      expect(others).toEqual([]);
      expect(key).not.toMatch(/scope1|objects|list|page/);
      expect(await admin().get(key!)).not.toMatch(/items|two/);
      const ttl = await admin().pttl(key!);
      expect(ttl).toBeGreaterThan(3_590_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      // Plain JSON written in its place reads as a miss.
      await admin().set(key!, '{"items":[1,"two"]}');
      expect(await cache.read('objects/list\\page')).toBeUndefined();
      expect(faults).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('an entry of 1 MiB is shared; one byte more is not', async () => {
    const { s } = await linked('cache-size');
    try {
      const cache = s.cacheStorage('scope', 60_000);
      const exactly = 'x'.repeat(1024 * 1024 - 2); // its JSON text, quotes and all, is 1 MiB to the byte
      await cache.write('exactly', exactly);
      expect(await cache.read('exactly')).toBe(exactly);
      await cache.write('over', `${exactly}x`);
      expect(await cache.read('over')).toBeUndefined();
    } finally {
      s.close();
    }
  });

  it('a store that died: reads miss, writes and claims do nothing, and the fault of those in flight together is reported once', async () => {
    const doomed = await startRedis();
    const { s, faults } = await linked('cache-fault', doomed.url);
    const cache = s.cacheStorage('scope', 60_000);
    await doomed.kill();
    expect(await Promise.all([cache.read('a'), cache.read('b'), cache.write('c', { n: 1 }), cache.claim!('d')])).toEqual([undefined, undefined, undefined, undefined]);
    expect(faults).toEqual(['the connection was lost']);
    expect(s.where).toBe(join(dir, 'cache-fault', 'budget', 'cache-fault.json'));
  });

  // The claim's waits are timers: these tests fake them (and this machine's clock) and let the
  // connection's replies come between steps, so that no step depends on how fast the machine is.

  it('the claim of an entry nobody fills is taken at once, and lapses in Redis after 5 s at most', async () => {
    const { s, link, faults } = await linked('claim-free');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const claimed = watch(s.cacheStorage('scope', 60_000).claim!('objects'));
      await roundTrips(link);
      expect(claimed).toEqual({ settled: true });
    } finally {
      vi.useRealTimers();
      s.close();
    }
    const ttl = await admin().pttl(await claimOf('claim-free'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    expect(faults).toEqual([]);
  });

  it('a claim another process holds: wait until it wrote the entry (which lets go of its claim), then go on without a claim', async () => {
    const [a, b] = [await linked('claim-held'), await linked('claim-held')];
    await a.s.cacheStorage('scope', 60_000).claim!('objects');
    const claimKey = await claimOf('claim-held');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const waiting = watch(b.s.cacheStorage('scope', 60_000).claim!('objects'));
      await roundTrips(b.link);
      expect(waiting.settled).toBe(false);
      // Three polls find no entry yet: still waiting.
      for (let i = 0; i < 3; i++) {
        await vi.advanceTimersByTimeAsync(50);
        await roundTrips(b.link);
      }
      expect(waiting.settled).toBe(false);
      await a.s.cacheStorage('scope', 60_000).write('objects', ['filled']);
      expect(await admin().exists(claimKey)).toBe(0);
      await vi.advanceTimersByTimeAsync(50);
      await roundTrips(b.link);
      expect(waiting).toEqual({ settled: true });
      expect(await admin().exists(claimKey)).toBe(0);
      expect(await b.s.cacheStorage('scope', 60_000).read('objects')).toEqual(['filled']);
    } finally {
      vi.useRealTimers();
      a.s.close();
      b.s.close();
    }
    expect([...a.faults, ...b.faults]).toEqual([]);
  });

  it('a claim whose holder never fills it holds the others back 5 s by this machine\'s clock, not a poll longer', async () => {
    const [a, b] = [await linked('claim-dead'), await linked('claim-dead')];
    await a.s.cacheStorage('scope', 60_000).claim!('objects');
    const claimKey = await claimOf('claim-dead');
    // The holder's claim stays in Redis as long as the test runs: only the waiter's own clock lets it go on.
    await admin().persist(claimKey);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const waiting = watch(b.s.cacheStorage('scope', 60_000).claim!('objects'));
      await roundTrips(b.link);
      for (let waited = 50; waited < 5_000; waited += 50) {
        await vi.advanceTimersByTimeAsync(50);
        await roundTrips(b.link);
      }
      expect(waiting.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(50);
      await roundTrips(b.link);
      expect(waiting).toEqual({ settled: true });
    } finally {
      vi.useRealTimers();
      a.s.close();
      b.s.close();
      await admin().del(claimKey);
    }
  });
});

describe.skipIf(skip !== undefined)('connectRedis', () => {
  it('a connected store holds nothing that keeps the process alive: its socket is unref\'d and no timer is left', async () => {
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TLSWrap').length;
    const before = sockets();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let link: RedisLink | undefined;
    try {
      link = await connectRedis(parseRedisUrl(redis.url, 'test'));
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    try {
      expect(sockets()).toBe(before);
    } finally {
      link.close();
    }
  });

  it('a Redis that accepts the connection and answers nothing is given up after twice the timeout: "no answer within 500 ms"', async () => {
    const hung = await startRedis();
    hung.freeze();
    const target = parseRedisUrl(hung.url, 'test');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const connecting = watch(connectRedis(target));
      await vi.advanceTimersByTimeAsync(1_000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(connecting.settled).toBe(true);
      expect(connecting.error).toBeInstanceOf(Error);
      expect((connecting.error as Error).message).toBe('timed out after 1000 ms');
      expect(faultReason(connecting.error, target)).toBe('no answer within 500 ms');
    } finally {
      vi.useRealTimers();
      await hung.kill();
    }
  });

  it('a user whose ACL forbids INFO connects with nothing printed (no ready check asks for it)', async () => {
    const admin = redis.client();
    await admin.call('ACL', 'SETUSER', 'no-info', 'on', '>pw-no-info', '~*', '+@all', '-info');
    const warn = vi.spyOn(console, 'warn');
    try {
      const link = await connectRedis(parseRedisUrl(`redis://no-info:pw-no-info@127.0.0.1:${redis.port}/0`, 'test'));
      link.close();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      await admin.call('ACL', 'DELUSER', 'no-info');
    }
  });
});

describe.skipIf(opensslUnavailable() !== undefined)('connectRedis over TLS', () => {
  it('rediss:// names the host to the TLS server (SNI, by which TLS proxies in front of a hosted Redis route), and a certificate this machine does not trust is "TLS failed (…)"', async () => {
    const pki = mkdtempSync(join(tmpdir(), 'hostctl-redis-tls-'));
    const cert = selfSignedCert(pki, { dns: ['localhost'], ip: ['127.0.0.1'] });
    const asked: string[] = [];
    const server = createTlsServer({ cert: cert.cert, key: cert.key, SNICallback: (name, done) => (asked.push(name), done(null)) });
    server.on('tlsClientError', () => undefined);
    const listening = await listenLoopback(server, 'https');
    try {
      const target = parseRedisUrl(`rediss://localhost:${listening.port}/0`, 'test');
      const err = await rejection(connectRedis(target));
      // Node 24 adds a hint of its own to the message ("; if the root CA is installed locally, …").
      expect(faultReason(err, target)).toMatch(/^TLS failed \(self-signed certificate(; [^()]*)?\)$/);
      expect(asked).toEqual(['localhost']);
    } finally {
      await listening.close();
      rmSync(pki, { recursive: true, force: true });
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
    token: 'token-fleet-open',
    now: () => 1_700_000_000_000,
    warn: (text) => warnings.push(text),
    secret: (value) => secrets.push(value),
  });
  return { opening, warnings, secrets };
}

describe('RedisBudgetStore: a command that fails inside EXEC', () => {
  // Redis 7 checks ACL rules again at EXEC: a SET the rules forbid by then fails inside the
  // transaction (its error in EXEC's replies) rather than aborting it. No test can change
  // the rules in that instant, so the connection is a stub answering as Redis then does.
  it('is a fault like any other: reported once, and the update goes to the machine\'s file', async () => {
    const refused = new Error("NOPERM User ci has no permissions to run the 'set' command");
    const chain = (replies: unknown) => {
      const c = { watch: () => c, get: () => c, time: () => c, set: () => c, call: () => c, exec: async () => replies };
      return c;
    };
    const link = {
      client: {
        pipeline: () => chain([[null, 'OK'], [null, null], [null, ['1700000000', '0']]]),
        multi: () => chain([[refused, null]]),
        unwatch: async () => 'OK',
      },
      target: parseRedisUrl('redis://127.0.0.1:1/0', 'test'),
      offsetMs: 0,
      close: () => undefined,
    } as unknown as RedisLink;
    const faults: string[] = [];
    const s = new RedisBudgetStore(link, redisKeys('exec'), new FileBudgetStore(join(dir, 'exec', 'state.json'), 'exec'), (why) => faults.push(why), tokenSeal('token-exec'));
    expect(await s.update((d: BudgetData) => ({ data: { ...d, limit: 3 }, result: 'written' }), 'unused')).toBe('written');
    expect(faults).toEqual(["NOPERM User ci has no permissions to run the 'set' command"]);
    expect(s.where).toBe(join(dir, 'exec', 'budget', 'exec.json'));
    expect(JSON.parse(readFileSync(s.where, 'utf8'))).toMatchObject({ limit: 3 });
  });
});

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
  it('is the shared store, keyed by the token\'s keyed digest (not its fingerprint), with no warning and no secret when the URL has no password', async () => {
    const { opening, warnings, secrets } = await openAs({ HOSTCTL_REDIS_URL: redis.url }, 'rediss://profile.example.invalid/0');
    const s = await opening;
    try {
      expect(s).toBeInstanceOf(RedisBudgetStore);
      expect(s!.where).toBe(`redis 127.0.0.1:${redis.port}`);
      await s!.update((d: BudgetData) => ({ data: { ...d, limit: 7 }, result: undefined }), undefined);
      const seal = tokenSeal('token-fleet-open');
      const key = `hostctl:{${seal.tag}}:budget`;
      expect(seal.open(key, await redis.client().get(key), s!.now(), 60_000)).toMatchObject({ limit: 7 });
      expect(await redis.client().keys('*fleet-open*')).toEqual([]);
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
    // Nor does any later call of the run fall back to the machine's own budget file.
    expect(await rejection(s.update((d: BudgetData) => ({ data: { ...d, limit: 2 }, result: 2 }), -1))).toBe(err);
    expect(await rejection(s.read())).toBe(err);
    expect(await rejection(s.cacheStorage('scope', 60_000).read('apps') as Promise<unknown>)).toBe(err);
    expect(existsSync(join(dir, 'fleet-open', 'state.json'))).toBe(false);
    expect(warnings).toEqual([]);
  });
});

// A fleet's shared budget in Redis (HOSTCTL_REDIS_URL): the store behind budget.ts's
// BudgetStore that every machine using the token reaches. Its own chunk, loaded only when
// a Redis URL is set (ioredis: see the README).
//
// One key per token holds the same JSON the budget file holds, sealed (seal.ts); an update is
// WATCH + GET + TIME (one round trip), the pure rules of budget.ts in this process, then
// MULTI/SET/EXEC (a second), again if another machine wrote between. `now` is Redis's
// TIME, so machines with skewed clocks agree on the window. Faults never cost a command:
// short timeouts, no offline queue, no reconnection within a connection; a fault (Redis
// gone, an answer that makes no sense, a reservation that cannot be recorded) is reported
// once (onFault) and the budget goes on in the machine's own file. A long-lived process
// (hostctl mcp, the library) connects again a few seconds later, and uses Redis again
// once it answers. A Redis Cluster (`?cluster=1`) is asked which node serves the token's
// one hash slot, and that node is then used as a single Redis would be.

import { isIP, Socket } from 'node:net';
import { Cluster, Command, Redis, type RedisOptions } from 'ioredis';
import { normalizeBudget, type BudgetData, type BudgetStore, type FileBudgetStore } from './budget.js';
import type { CacheStorage } from './cache.js';
import { MAX_HORIZON_MS } from './ratelimit.js';
import type { Seal } from './seal.js';

export { tokenSeal } from './seal.js';

/** Each of connect (TCP and TLS) and every command: well under a second, so that a dead store costs little. */
const REDIS_TIMEOUT_MS = 500;
/** Attempts of one update while other machines keep writing the key between its read and its write. */
const MAX_ATTEMPTS = 50;
/**
 * After a fault, how long the store stays with the file before it connects again: a
 * command is over long before (it never waits for a reconnection), and a long-lived
 * process pays at most one connect timeout per pause while Redis is away.
 */
const RECONNECT_PAUSE_MS = 5_000;
/** A cache entry larger than this is not shared (lists of a few thousand objects fit). */
const MAX_CACHE_ENTRY_BYTES = 1024 * 1024;
/** How long a process's claim to fill a cache entry holds the others back at most (a fetch that died). */
const FILL_CLAIM_MS = 5_000;
const FILL_POLL_MS = 50;

/** One line saying why Redis could not be used, naming neither the URL nor its password. */
export function faultReason(err: unknown, target: RedisTarget): string {
  // A transaction Redis refused (EXECABORT) says why in the error of the command it refused.
  const previous: unknown = err instanceof Error ? Reflect.get(err, 'previousErrors') : undefined;
  if (Array.isArray(previous) && previous[0] instanceof Error) return faultReason(previous[0], target);
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as NodeJS.ErrnoException).code;
  const text = e.message;
  let reason: string;
  // A redirection names a node, whose name may hold any of the words matched below.
  if (/^(MOVED|ASK) /.test(text)) {
    reason = target.cluster
      ? "the token's keys moved to another node of the cluster (a resharding or a failover); hostctl finds that node when it connects again"
      : "it is a node of a Redis Cluster that does not serve the token's keys; add ?cluster=1 to the URL";
  } else if (code === 'ECONNREFUSED') reason = 'connection refused';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') reason = 'host not found';
  else if (code === 'ETIMEDOUT' || /timed? ?out/i.test(text)) reason = `no answer within ${REDIS_TIMEOUT_MS} ms`;
  else if (/WRONGPASS|NOAUTH|invalid password|AUTH failed/i.test(text)) reason = 'the password was refused';
  else if (/^OOM/.test(text)) reason = 'Redis is out of memory';
  else if (/certificate|self[- ]signed|SSL|TLS/i.test(text)) reason = `TLS failed (${text})`;
  else if (/Connection is closed|Stream isn't writeable|ECONNRESET|EPIPE/i.test(text)) reason = 'the connection was lost';
  else reason = text;
  if (target.password) reason = reason.split(target.password).join('****');
  return reason.replace(/\s+/g, ' ').slice(0, 200);
}

/** A Redis URL as src/http/fleet.ts checked it. */
export interface RedisTarget {
  host: string;
  port: number;
  tls: boolean;
  db: number;
  username?: string;
  password?: string;
  /** `?cluster=1`: a Redis Cluster, `host:port` being one seed node of it. */
  cluster?: boolean;
  /** `host:port`, what messages name: never the password. */
  where: string;
}

export interface RedisLink {
  /** A single Redis, or the cluster node that serves the token's keys (their one hash slot). */
  client: Redis;
  target: RedisTarget;
  /**
   * Redis's clock less this machine's: the largest seen. A reading is late by however long
   * the reply waited for this process (a busy machine), which makes it smaller; taken
   * smaller, an answer's arrival would be dated early, and its slot predicted free early.
   */
  offsetMs: number;
  /** A reading lower than offsetMs by more than a reply can be late, not yet confirmed by the next (noteClock). */
  lowerMs?: number;
  close(): void;
}

/** The options of a connection to one node at `host`: the URL's credentials and TLS, and the fault rules. */
function nodeOptions(target: RedisTarget, host: string): RedisOptions {
  return {
    username: target.username,
    password: target.password,
    // SNI carries a host name, never an address (Node warns, DEP0123); an address is checked
    // against the certificate's IP names all the same.
    tls: target.tls ? (isIP(host) === 0 ? { servername: host } : {}) : undefined,
    connectTimeout: REDIS_TIMEOUT_MS,
    commandTimeout: REDIS_TIMEOUT_MS,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    reconnectOnError: () => false,
    autoResubscribe: false,
  };
}

/** Settles as `work` does, or fails after `ms` with the last error seen (`lastError()`), or a timeout. */
async function within<T>(work: Promise<T>, ms: number, lastError: () => unknown): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(lastError() ?? new Error(`timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects, and reads Redis's clock once (which also proves the password). With a cluster,
 * to the node that serves `slotKey`'s hash slot, where every key of the token lives
 * (fleet.ts's redisKeys): the whole of a reservation (WATCH, GET, TIME, MULTI/SET/EXEC)
 * and the clock are that one node's.
 */
export async function connectRedis(target: RedisTarget, slotKey?: string): Promise<RedisLink> {
  if (!target.cluster) return connectNode(target, target.host, target.port);
  if (slotKey === undefined) throw new Error('a cluster connection needs the key whose slot it serves');
  const owner = await slotOwner(target, slotKey);
  return connectNode(target, owner.host, owner.port);
}

/**
 * Which node serves `key`, as the cluster's seed node (the URL's) says (CLUSTER SLOTS,
 * through ioredis's Cluster). Asked afresh at every connection, so that a run after a
 * resharding or a failover goes to the new node: a slot that moves during a run is a fault
 * of that run (the reply is a MOVED or ASK redirection), since a reservation must not
 * begin on one node and end on another.
 */
async function slotOwner(target: RedisTarget, key: string): Promise<{ host: string; port: number }> {
  const cluster = new Cluster([{ host: target.host, port: target.port }], {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    clusterRetryStrategy: () => null,
    slotsRefreshTimeout: REDIS_TIMEOUT_MS,
    slotsRefreshInterval: 0,
    // A node's name as the cluster gives it, unresolved: TLS checks the certificate against that name.
    dnsLookup: (address, callback) => callback(null, address),
    redisOptions: nodeOptions(target, target.host),
  });
  let lastError: unknown;
  // Without a listener an 'error' event would end the process; a node's says why it failed.
  cluster.on('error', () => undefined);
  cluster.on('node error', (err: unknown) => {
    lastError = err;
  });
  try {
    await within(cluster.connect(), 2 * REDIS_TIMEOUT_MS, () => lastError);
  } catch (err) {
    cluster.disconnect();
    // Cluster's own error says only that no seed answered; a node's says why, unless the
    // connection itself failed (refused, TLS, lost), which ioredis's refresher reports as
    // "Connection is closed.": one connection to the seed alone then finds out.
    const why = lastError ?? err;
    if (why instanceof Error && !/Connection is closed/.test(why.message)) throw why;
    const link = await connectNode(target, target.host, target.port);
    link.close();
    throw why;
  }
  cluster.disconnect();
  const node = cluster.slots[new Command('exists', [key]).getSlot()]?.[0];
  if (node === undefined) throw new Error('no node of the cluster serves the slot of the token\'s keys');
  const colon = node.lastIndexOf(':');
  return { host: node.slice(0, colon), port: Number(node.slice(colon + 1)) };
}

async function connectNode(target: RedisTarget, host: string, port: number): Promise<RedisLink> {
  const client = new Redis({ ...nodeOptions(target, host), host, port, db: target.db, lazyConnect: true });
  let lastError: unknown;
  // Without a listener an 'error' event would end the process; the failing call reports it.
  client.on('error', (err: unknown) => {
    lastError = err;
  });
  const link: RedisLink = { client, target, offsetMs: -Infinity, close: () => client.disconnect() };
  try {
    await within(
      (async () => {
        await client.connect();
        // An open socket must never hold the process once the command is done.
        const stream: unknown = Reflect.get(client, 'stream');
        if (stream instanceof Socket) stream.unref();
        await clockOf(link);
      })(),
      2 * REDIS_TIMEOUT_MS,
      () => lastError,
    );
  } catch (err) {
    client.disconnect();
    throw lastError !== undefined && !(err instanceof Error && /WRONGPASS|NOAUTH/.test(err.message)) ? lastError : err;
  }
  return link;
}

/** Redis's TIME in epoch ms; keeps the offset to this machine's clock. */
async function clockOf(link: RedisLink): Promise<number> {
  return noteClock(link, await link.client.time());
}

/**
 * A TIME reply in epoch ms, kept as the link's offset. Anything but two counts of seconds
 * and microseconds is a fault: a reservation on a clock that is not one would be nonsense.
 */
function noteClock(link: RedisLink, reply: unknown): number {
  if (!Array.isArray(reply) || reply.length !== 2 || !reply.every((x) => typeof x === 'string' && /^\d{1,15}$/.test(x))) {
    throw new Error('Redis answered TIME with something that is not a time');
  }
  const now = Number(reply[0]) * 1000 + Math.floor(Number(reply[1]) / 1000);
  const sample = now - Date.now();
  // Two readings in a row lower than the kept one by more than a reply is ever late (a
  // command times out first) are Redis's clock stepping back (a failover, an NTP step), not
  // one reply read late by a frozen process: the clock is theirs from then on.
  const lower = sample < link.offsetMs - REDIS_TIMEOUT_MS;
  if (lower && link.lowerMs !== undefined && Math.abs(sample - link.lowerMs) <= REDIS_TIMEOUT_MS) link.offsetMs = sample;
  else link.offsetMs = Math.max(link.offsetMs, sample);
  link.lowerMs = lower && link.offsetMs !== sample ? sample : undefined;
  return now;
}

/**
 * The budget a GET of `key` returned: an entry that does not open (see seal.ts) is an empty
 * budget, which the next update writes over. A genuine one is never older than the key's
 * lifetime, since every write renews it.
 */
function parse(seal: Seal, key: string, raw: string | null, now: number): BudgetData {
  return normalizeBudget(seal.open(key, raw, now, MAX_HORIZON_MS), now);
}

/** How a RedisBudgetStore connects again after a fault (fleet.ts gives it the URL's own connect), and the clock of its pauses. */
export interface Reconnection {
  connect(): Promise<RedisLink>;
  /** This machine's clock, for the pause between attempts (Date.now; tests give their own). */
  now?: () => number;
}

/**
 * One token's budget in Redis, with the machine's budget file behind it: after a fault
 * every update goes to the file (onFault says so, once per outage; it may throw instead,
 * for HOSTCTL_REDIS_REQUIRED). With `reconnection`, the first call a pause after the fault
 * connects again, and Redis is the store again once it answers.
 */
export class RedisBudgetStore implements BudgetStore {
  /** Since the last fault, until a new connection: when to try one. */
  private down: { retryAt: number } | undefined;
  /**
   * An outage reported, until Redis answers an operation again (one report however often
   * it connects and fails meanwhile), with what onFault threw (HOSTCTL_REDIS_REQUIRED: every
   * call fails with it while Redis is down, never with the file).
   */
  private outage: { fatal?: { error: unknown } } | undefined;
  private reconnecting: Promise<void> | undefined;
  private closed = false;
  /** Whether this connection may run MULTI: asked before its first command. */
  private transactions: Promise<boolean> | undefined;
  /** Updates of this process, one at a time: WATCH belongs to the connection. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly key: string;

  constructor(
    private link: RedisLink,
    /** The token's keys (fleet.ts's redisKeys: the seal's tag, never the token or its fingerprint). */
    private readonly keys: { budget: string; cache(id: string): string },
    private readonly fallback: FileBudgetStore,
    private readonly onFault: (reason: string) => void,
    /** The token's seal: every value is written sealed, and read only if it opens. */
    private readonly seal: Seal,
    private readonly reconnection?: Reconnection,
  ) {
    this.key = keys.budget;
  }

  /** Where the budget is kept: `redis host:port`, or the file after a fault. */
  get where(): string {
    return this.down ? this.fallback.path : `redis ${this.link.target.where}`;
  }

  now(): number {
    return this.down ? this.fallback.now() : Date.now() + this.link.offsetMs;
  }

  /** How far the store's clock is ahead of this machine's (Redis's offset; 0 with the file). */
  skewMs(): number {
    return this.down ? 0 : this.link.offsetMs;
  }

  private clock(): number {
    return (this.reconnection?.now ?? Date.now)();
  }

  private fault(err: unknown): void {
    if (this.down) return;
    this.down = { retryAt: this.clock() + RECONNECT_PAUSE_MS };
    this.link.close();
    if (this.outage) {
      if (this.outage.fatal) throw this.outage.fatal.error;
      return;
    }
    this.outage = {};
    try {
      this.onFault(faultReason(err, this.link.target));
    } catch (fatal) {
      this.outage.fatal = { error: fatal };
      throw fatal;
    }
  }

  /** Redis answered: the outage, if any, is over (the next fault is reported again). */
  private answered<T>(value: T): T {
    this.outage = undefined;
    return value;
  }

  /**
   * Whether Redis is in use: false while it is down (the file's turn), after a pause
   * connecting again first; throws while it is down after a fatal fault. A new connection
   * first shows that it may run MULTI: ioredis sends MULTI, the writes and EXEC together,
   * and the writes of a refused MULTI would run outside any transaction.
   */
  private async usable(): Promise<boolean> {
    if (this.down && !this.closed && this.reconnection && this.clock() >= this.down.retryAt) {
      this.reconnecting ??= this.reconnect(this.reconnection).finally(() => (this.reconnecting = undefined));
      await this.reconnecting;
    }
    if (this.down) {
      if (this.outage?.fatal) throw this.outage.fatal.error;
      return false;
    }
    // Once per connection, before anything else is sent on it (DISCARD would drop a WATCH).
    this.transactions ??= this.mayTransact(this.link);
    return this.transactions;
  }

  private async mayTransact(link: RedisLink): Promise<boolean> {
    try {
      const replies = await link.client.pipeline().call('MULTI').call('DISCARD').exec();
      if (!replies) throw new Error('the connection was lost');
      for (const [err] of replies) if (err) throw err;
      return true;
    } catch (err) {
      if (link === this.link) this.fault(err);
      return false;
    }
  }

  private async reconnect(how: Reconnection): Promise<void> {
    this.down!.retryAt = this.clock() + RECONNECT_PAUSE_MS;
    let link: RedisLink;
    try {
      link = await how.connect();
    } catch {
      // Still down: the outage was reported when it began.
      return;
    }
    if (this.closed) return link.close();
    this.link = link;
    this.transactions = undefined;
    this.down = undefined;
  }

  update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): Promise<T> {
    const run = this.queue.then(async () => {
      if (await this.usable()) {
        try {
          return this.answered(await this.attempt(fn));
        } catch (err) {
          this.fault(err);
        }
      }
      return this.fallback.update(fn, fallback);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** One update in Redis; throws whatever keeps it from being recorded there (a fault: the file records it). */
  private async attempt<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }): Promise<T> {
    const c = this.link.client;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const replies = await c.pipeline().watch(this.key).get(this.key).time().exec();
      if (!replies) throw new Error('the connection was lost');
      for (const [err] of replies) if (err) throw err;
      const raw = replies[1]![1];
      if (raw !== null && typeof raw !== 'string') throw new Error('Redis answered GET with something that is not text');
      const now = noteClock(this.link, replies[2]![1]);
      const { data, result } = fn(parse(this.seal, this.key, raw, now), now);
      if (data === undefined) {
        await c.unwatch();
        return result;
      }
      // The key lapses an hour after its last write: nothing stays in Redis for good.
      const done = await c.multi().set(this.key, this.seal.seal(this.key, now, data), 'PX', MAX_HORIZON_MS).exec();
      if (done === null) continue; // another machine wrote the key meanwhile: again, on what it wrote
      for (const [err] of done) if (err) throw err;
      if (done.length !== 1 || done[0]![1] !== 'OK') throw new Error('Redis answered EXEC with something other than the write\'s OK');
      return result;
    }
    // Going on unrecorded would spend the budget behind every other machine's back.
    throw new Error(`the budget could not be recorded: its key changed under each of ${MAX_ATTEMPTS} attempts`);
  }

  async read(): Promise<BudgetData> {
    if (await this.usable()) {
      try {
        const raw = await this.link.client.get(this.key);
        if (raw !== null && typeof raw !== 'string') throw new Error('Redis answered GET with something that is not text');
        return this.answered(parse(this.seal, this.key, raw, this.now()));
      } catch (err) {
        this.fault(err);
      }
    }
    return this.fallback.read();
  }

  close(): void {
    this.closed = true;
    this.link.close();
  }

  /**
   * The --cache entries of one scope (a digest of base URL and fingerprint) in Redis, each
   * lapsing `ttlMs` after it was written, sealed and named by keyed digests (seal.ts). A
   * fault reads as a miss and keeps nothing (the same single warning as the budget's).
   */
  cacheStorage(scope: string, ttlMs: number): CacheStorage {
    const keyOf = (name: string) => this.keys.cache(this.seal.name(`${scope}\n${name}`));
    const ttl = Math.max(1_000, Math.round(ttlMs));
    // `c`: the connection of the moment (a long-lived process may have connected again since).
    const safely = async <T>(work: (c: Redis) => Promise<T>, otherwise: T): Promise<T> => {
      if (!(await this.usable())) return otherwise;
      try {
        return this.answered(await work(this.link.client));
      } catch (err) {
        this.fault(err);
        return otherwise;
      }
    };
    return {
      read: (name) =>
        safely(async (c) => {
          const key = keyOf(name);
          const raw = await c.get(key);
          if (raw !== null && typeof raw !== 'string') throw new Error('Redis answered GET with something that is not text');
          return this.seal.open(key, raw, this.now(), ttl);
        }, undefined),
      write: (name, value) =>
        safely(async (c) => {
          if (Buffer.byteLength(JSON.stringify(value)) > MAX_CACHE_ENTRY_BYTES) return;
          const key = keyOf(name);
          await c.multi().set(key, this.seal.seal(key, this.now(), value), 'PX', ttl).del(`${key}:filling`).exec();
        }, undefined),
      claim: (name) =>
        safely(async (c) => {
          const claimKey = `${keyOf(name)}:filling`;
          for (const until = Date.now() + FILL_CLAIM_MS; Date.now() < until; ) {
            if ((await c.set(claimKey, '1', 'PX', FILL_CLAIM_MS, 'NX')) === 'OK') return;
            await new Promise((r) => setTimeout(r, FILL_POLL_MS));
            if ((await c.exists(keyOf(name))) === 1) return;
          }
        }, undefined),
    };
  }
}

// A fleet's shared budget in Redis (HOSTCTL_REDIS_URL): the store behind budget.ts's
// BudgetStore that every machine using the token reaches. Its own chunk, loaded only when
// a Redis URL is set (ioredis: see the README).
//
// One key per token fingerprint holds the same JSON the budget file holds; an update is
// WATCH + GET + TIME (one round trip), the pure rules of budget.ts in this process, then
// MULTI/SET/EXEC (a second), again if another machine wrote between. `now` is Redis's
// TIME, so machines with skewed clocks agree on the window. Faults never cost a command:
// short timeouts, no offline queue, no reconnection; the first fault is reported once
// (onFault) and the run goes on with the machine's own budget file. A Redis Cluster
// (`?cluster=1`) is asked which node serves the token's one hash slot, and that node is
// then used as a single Redis would be.

import { isIP, Socket } from 'node:net';
import { Cluster, Command, Redis, type RedisOptions } from 'ioredis';
import { normalizeBudget, type BudgetData, type BudgetStore, type FileStore } from './budget.js';
import type { CacheStorage } from './cache.js';
import { MAX_HORIZON_MS } from './ratelimit.js';

/** Each of connect (TCP and TLS) and every command: well under a second, so that a dead store costs little. */
const REDIS_TIMEOUT_MS = 500;
/** Attempts of one update while other machines keep writing the key between its read and its write. */
const MAX_ATTEMPTS = 50;
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
      ? "the token's keys moved to another node of the cluster (a resharding or a failover); the next run uses that node"
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
  const [s, us] = await link.client.time();
  const now = Number(s) * 1000 + Math.floor(Number(us) / 1000);
  link.offsetMs = Math.max(link.offsetMs, now - Date.now());
  return now;
}

function parse(raw: string | null, now: number): BudgetData {
  if (raw === null) return { sends: [] };
  try {
    return normalizeBudget(JSON.parse(raw), now);
  } catch {
    return { sends: [] };
  }
}

/**
 * One token's budget in Redis, with the machine's budget file behind it: after the first
 * fault every update goes to the file (onFault says so, once; it may throw instead, for
 * HOSTCTL_REDIS_REQUIRED).
 */
export class RedisStore implements BudgetStore<false> {
  private failed = false;
  /** Updates of this process, one at a time: WATCH belongs to the connection. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly link: RedisLink,
    /** The token's keys (fleet.ts's redisKeys: a fingerprint, never the token). */
    private readonly keys: { budget: string; cache(id: string): string },
    private readonly fallback: FileStore,
    private readonly onFault: (reason: string) => void,
  ) {
    this.key = keys.budget;
  }

  private readonly key: string;

  /** Where the budget is kept: `redis host:port`, or the file after a fault. */
  get where(): string {
    return this.failed ? this.fallback.path : `redis ${this.link.target.where}`;
  }

  now(): number {
    return this.failed ? this.fallback.now() : Date.now() + this.link.offsetMs;
  }

  private fault(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.link.close();
    try {
      this.onFault(faultReason(err, this.link.target));
    } catch (fatal) {
      this.fatal = { error: fatal };
      throw fatal;
    }
  }

  /** What onFault threw (HOSTCTL_REDIS_REQUIRED): every later call fails with it, never with the file. */
  private fatal?: { error: unknown };

  /** Whether Redis is still in use; false after a fault (the file's turn); throws after a fatal one. */
  private usable(): boolean {
    if (this.fatal) throw this.fatal.error;
    return !this.failed;
  }

  update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): Promise<T> {
    const run = this.queue.then(async () => {
      if (this.usable()) {
        try {
          return await this.attempt(fn, fallback);
        } catch (err) {
          this.fault(err);
        }
      }
      return this.fallback.update(fn, fallback);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async attempt<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): Promise<T> {
    const c = this.link.client;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const replies = await c.pipeline().watch(this.key).get(this.key).time().exec();
      if (!replies) throw new Error('the connection was lost');
      for (const [err] of replies) if (err) throw err;
      const raw = replies[1]![1] as string | null;
      const [s, us] = replies[2]![1] as [string, string];
      const now = Number(s) * 1000 + Math.floor(Number(us) / 1000);
      this.link.offsetMs = Math.max(this.link.offsetMs, now - Date.now());
      const { data, result } = fn(parse(raw, now), now);
      if (data === undefined) {
        await c.unwatch();
        return result;
      }
      // The key lapses an hour after its last write: nothing stays in Redis for good.
      const done = await c.multi().set(this.key, JSON.stringify(data), 'PX', MAX_HORIZON_MS).exec();
      if (done === null) continue; // another machine wrote the key meanwhile: again, on what it wrote
      for (const [err] of done) if (err) throw err;
      return result;
    }
    return fallback;
  }

  async read(): Promise<BudgetData> {
    if (this.usable()) {
      try {
        const raw = await this.link.client.get(this.key);
        return parse(raw, this.now());
      } catch (err) {
        this.fault(err);
      }
    }
    return this.fallback.read();
  }

  close(): void {
    this.link.close();
  }

  /**
   * The --cache entries of one scope (a digest of base URL and fingerprint) in Redis, each
   * lapsing `ttlMs` after it was written. A fault reads as a miss and keeps nothing (the
   * same single warning as the budget's).
   */
  cacheStorage(scope: string, ttlMs: number): CacheStorage {
    const keyOf = (name: string) => this.keys.cache(`${scope}:${name.replace(/[\\/]/g, ':')}`);
    const ttl = Math.max(1_000, Math.round(ttlMs));
    const safely = async <T>(work: () => Promise<T>, otherwise: T): Promise<T> => {
      if (!this.usable()) return otherwise;
      try {
        return await work();
      } catch (err) {
        this.fault(err);
        return otherwise;
      }
    };
    const c = this.link.client;
    return {
      read: (name) =>
        safely(async () => {
          const raw = await c.get(keyOf(name));
          if (raw === null) return undefined;
          try {
            return JSON.parse(raw) as unknown;
          } catch {
            return undefined;
          }
        }, undefined),
      write: (name, value) =>
        safely(async () => {
          const text = JSON.stringify(value);
          if (Buffer.byteLength(text) > MAX_CACHE_ENTRY_BYTES) return;
          await c.multi().set(keyOf(name), text, 'PX', ttl).del(`${keyOf(name)}:filling`).exec();
        }, undefined),
      claim: (name) =>
        safely(async () => {
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

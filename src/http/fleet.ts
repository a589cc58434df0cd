// A fleet's shared store (HOSTCTL_REDIS_URL): the URL's rules and how it is shown. Small
// and free of the Redis client, which only src/http/redis.ts loads (its own chunk), and
// only when a URL is set.

import { UsageError } from '../errors.js';
import { isLoopbackHost } from '../config/url.js';
import { oneLine } from '../output/sanitize.js';
import type { RedisTarget } from './redis.js';

export type { RedisTarget };

/**
 * Checks a Redis URL: `rediss://` (TLS), or `redis://` on a loopback host only, since the
 * store holds API objects that must not cross a network in clear text (the base URL's
 * rule); `?cluster=1` for a Redis Cluster. `origin` names where the URL came from.
 */
export function parseRedisUrl(raw: string, origin: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not echoed: the text may hold a password.
    throw new UsageError(`The Redis URL from ${origin} is not a valid URL.`, 'Give a URL such as rediss://redis.example.com:6379/0 (or redis://127.0.0.1:6379 on this machine).');
  }
  const tls = url.protocol === 'rediss:';
  if (!tls && url.protocol !== 'redis:') {
    throw new UsageError(`The Redis URL from ${origin} is a ${oneLine(url.protocol, 20)} URL; it must be rediss:// (or redis:// on a loopback host).`, 'Give a URL such as rediss://redis.example.com:6379/0.');
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? 6379 : Number(url.port);
  const where = `${url.hostname}:${port}`;
  if (!tls && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `The Redis URL from ${origin} is plain redis:// to ${where}, which is not this machine: cached API objects and the budget would cross the network in clear text.`,
      `Use rediss://${where} (Redis with TLS), or redis:// to a loopback host only.`,
    );
  }
  const dbText = url.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!/^\d{0,2}$/.test(dbText) || !Number.isInteger(db)) {
    throw new UsageError(`The Redis URL from ${origin} names the database "${oneLine(dbText, 20)}", not a number.`, `Give the database as a number, e.g. rediss://${where}/0.`);
  }
  const cluster = clusterParameter(url, origin, where);
  if (cluster && db !== 0) {
    throw new UsageError(`The Redis URL from ${origin} names the database ${db}, but a Redis Cluster has only database 0.`, `Give the URL without a database, e.g. rediss://${where}?cluster=1.`);
  }
  const target: RedisTarget = { host, port, tls, db, where };
  if (cluster) target.cluster = true;
  if (url.username !== '') target.username = decodeURIComponent(url.username);
  if (url.password !== '') target.password = decodeURIComponent(url.password);
  return target;
}

/**
 * The URL's one parameter, `cluster=1` (a Redis Cluster, the URL naming one seed node) or
 * `cluster=0`. Any other is refused rather than ignored: a parameter another client knows
 * (`?tls=…`, `?family=6`) would otherwise seem to be in force.
 */
function clusterParameter(url: URL, origin: string, where: string): boolean {
  const hint = `The only parameter is cluster=1, for a Redis Cluster: e.g. rediss://${where}?cluster=1.`;
  for (const name of new Set(url.searchParams.keys())) {
    if (name !== 'cluster') throw new UsageError(`The Redis URL from ${origin} has the parameter "${oneLine(name, 40)}", which hostctl does not know.`, hint);
  }
  const values = url.searchParams.getAll('cluster');
  if (values.length === 0) return false;
  if (values.length > 1 || (values[0] !== '1' && values[0] !== '0')) {
    throw new UsageError(`The Redis URL from ${origin} has cluster=${oneLine(values.join('&cluster='), 40)}; it must be cluster=1 (a Redis Cluster) or cluster=0.`, hint);
  }
  return values[0] === '1';
}

/**
 * The URL with its password replaced by ****, for `config list` and `config get`. Text
 * that does not parse as a URL (a hand-edited config) keeps no more than its scheme and
 * what follows its last @; with no @ in it, nothing of it, since where a password would
 * stand in it cannot be told.
 */
export function maskRedisUrl(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // `redis:user:pw@host` parses too, as a path with no host, whose password URL cannot find.
  if (url !== undefined && url.host !== '') {
    if (url.password === '') return raw;
    url.password = '****';
    return url.href;
  }
  const scheme = /^[a-z][a-z0-9+.-]*:(?:\/\/)?/i.exec(raw)?.[0] ?? '';
  const at = raw.lastIndexOf('@');
  return at === -1 ? `${scheme}****` : `${scheme}****${raw.slice(at)}`;
}

/**
 * The Redis keys of one token, named by `tag` (the token's keyed digest: seal.ts), all in
 * one hash slot (`{tag}`), for Redis Cluster.
 */
export function redisKeys(tag: string): { budget: string; cache: (id: string) => string } {
  const prefix = `hostctl:{${tag.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64)}}`;
  return { budget: `${prefix}:budget`, cache: (id) => `${prefix}:cache:${id}` };
}

export interface FleetOptions {
  env: NodeJS.ProcessEnv;
  /** The profile's `redisUrl`, and the profile's name (for messages). */
  profileUrl: string | undefined;
  profileName: string;
  /** The machine's own budget, used when Redis cannot be: its file's path and the run's clock. */
  statePath: string;
  fingerprint: string;
  /** The token, from which the keys that seal its entries and name its keys are derived (never stored). */
  token: string;
  now: () => number;
  warn(text: string): void;
  /** Registers the URL's password with the run's sink: a secret like the token, wherever a message might carry it. */
  secret(value: string): void;
}

/** Where the URL comes from: HOSTCTL_REDIS_URL wins over the profile's setting. */
export function redisUrlSetting(env: NodeJS.ProcessEnv, profileUrl: string | undefined, profileName: string): { raw: string; origin: string } | undefined {
  const fromEnv = env.HOSTCTL_REDIS_URL;
  if (fromEnv !== undefined && fromEnv !== '') return { raw: fromEnv, origin: 'HOSTCTL_REDIS_URL' };
  if (profileUrl !== undefined && profileUrl !== '') return { raw: profileUrl, origin: `profile "${profileName}" redisUrl` };
  return undefined;
}

/**
 * The fleet's shared budget store when a Redis URL is set, else undefined (the budget
 * file, as without a fleet). Loads the Redis client only then. Redis that cannot be used
 * is one warning and the machine's own budget, or, with HOSTCTL_REDIS_REQUIRED=1, exit 6
 * before any API request.
 */
export async function openFleetStore(o: FleetOptions): Promise<import('./redis.js').RedisBudgetStore | undefined> {
  const setting = redisUrlSetting(o.env, o.profileUrl, o.profileName);
  if (!setting) return undefined;
  const target = parseRedisUrl(setting.raw, setting.origin);
  if (target.password !== undefined) o.secret(target.password);
  const required = o.env.HOSTCTL_REDIS_REQUIRED === '1';
  const [{ connectRedis, faultReason, RedisBudgetStore, tokenSeal }, { FileBudgetStore }, { NetworkError }] = await Promise.all([import('./redis.js'), import('./budget.js'), import('../errors.js')]);
  const file = new FileBudgetStore(o.statePath, o.fingerprint, o.now);
  const unusable = (raw: string, until: string): void => {
    // The reason may be a server's own error text: shown as all server text is.
    const reason = oneLine(raw, 200);
    if (required) {
      throw new NetworkError(
        `The shared store at ${target.where} cannot be used: ${reason}; HOSTCTL_REDIS_REQUIRED=1 forbids going on without it.`,
        'Check that Redis runs and the URL and its password are right, or unset HOSTCTL_REDIS_REQUIRED to fall back to this machine\'s own budget.',
      );
    }
    o.warn(`the shared store at ${target.where} cannot be used (${reason}); ${until}.`);
  };
  try {
    const seal = tokenSeal(o.token);
    const keys = redisKeys(seal.tag);
    const link = await connectRedis(target, keys.budget);
    // A fault later is one outage: the store connects again after a pause (a long-lived process outlives it).
    return new RedisBudgetStore(link, keys, file, (reason) => unusable(reason, "this machine's own rate budget is used until it answers again"), seal, {
      connect: () => connectRedis(target, keys.budget),
      now: o.now,
    });
  } catch (err) {
    unusable(faultReason(err, target), "this run uses this machine's own rate budget");
    return undefined;
  }
}

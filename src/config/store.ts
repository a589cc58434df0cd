// Writing the config: the valid keys and values, and changes made through `conf` under a
// lock. conf itself reads, changes and rewrites the whole file (atomically, but without
// a lock), so two processes saving at once would each write back the file as they read
// it and one change would be lost. Every change here runs read-modify-write inside a
// lock held by one process at a time. Reads do not lock: config.ts reads the same file
// as plain JSON, and the atomic rename means a reader sees the old or the new file.
//
// conf is imported only here, only when writing: it brings ajv and friends, which the
// read path (every command) must not load.

import { join } from 'node:path';
import { HostctlError, UsageError } from '../errors.js';
import { parseBaseUrl } from './url.js';
import { parseDuration } from './duration.js';
import { parseRedisUrl } from '../http/fleet.js';
import { withLock, writeError, type LockPolicy } from './atomic.js';
import { checkProfileName, normalizeConfig, OUTPUT_FORMATS, STORAGES, type ConfigData } from './config.js';
import { configDir, configFile } from './paths.js';

export { checkProfileName } from './config.js';

export const PROFILE_KEYS = ['baseUrl', 'output', 'storage', 'cache', 'redisUrl'] as const;
type ProfileKey = (typeof PROFILE_KEYS)[number];

export type ConfigKey = { kind: 'defaultProfile' } | { kind: 'profile'; profile: string; field: ProfileKey | 'storedAt' };

export const VALID_KEYS_TEXT = [
  'defaultProfile',
  'profiles.<name>.baseUrl   (https://…/v1; http only for loopback hosts)',
  `profiles.<name>.output    (${OUTPUT_FORMATS.join(', ')})`,
  `profiles.<name>.storage   (${STORAGES.join(', ')})`,
  'profiles.<name>.cache     (a duration such as 10m: the default for --cache)',
  'profiles.<name>.redisUrl  (rediss://…, or redis:// on loopback: a fleet\'s shared budget; HOSTCTL_REDIS_URL wins)',
].join('\n  ');

function unknownKey(key: string): UsageError {
  return new UsageError(`Unknown config key "${key}".`, `Valid keys:\n  ${VALID_KEYS_TEXT}`);
}

/** Parses a key; `readOnly` also accepts profiles.<name>.storedAt, which auth login sets. */
export function parseKey(key: string, readOnly = false): ConfigKey {
  if (key === 'defaultProfile') return { kind: 'defaultProfile' };
  const parts = key.split('.');
  if (parts.length === 3 && parts[0] === 'profiles' && parts[1] !== undefined && parts[2] !== undefined) {
    const field = parts[2];
    if ((PROFILE_KEYS as readonly string[]).includes(field) || (readOnly && field === 'storedAt')) {
      checkProfileName(parts[1]);
      return { kind: 'profile', profile: parts[1], field: field as ProfileKey | 'storedAt' };
    }
    if (field === 'storedAt') {
      throw new UsageError(`"${key}" is set by "hostctl auth login" and cannot be changed by hand.`, 'Run "hostctl auth login" to store a token again.');
    }
  }
  throw unknownKey(key);
}

export function keyPath(k: ConfigKey): string {
  return k.kind === 'defaultProfile' ? 'defaultProfile' : `profiles.${k.profile}.${k.field}`;
}

/** Checks a value for a key and returns it as it is stored. */
export function parseValue(k: ConfigKey, raw: string): string {
  const value = raw.trim();
  if (k.kind === 'defaultProfile') return checkProfileName(value);
  switch (k.field) {
    case 'baseUrl':
      return parseBaseUrl(value, `"profiles.${k.profile}.baseUrl"`).href.replace(/\/$/, '');
    case 'output':
      if (!(OUTPUT_FORMATS as readonly string[]).includes(value)) {
        throw new UsageError(`"${raw}" is not an output format.`, `Use one of: ${OUTPUT_FORMATS.join(', ')}.`);
      }
      return value;
    case 'storage':
      if (!(STORAGES as readonly string[]).includes(value)) {
        throw new UsageError(`"${raw}" is not a token storage.`, `Use one of: ${STORAGES.join(', ')} (or run "hostctl auth login").`);
      }
      return value;
    case 'cache':
      parseDuration(value, `"profiles.${k.profile}.cache"`);
      return value;
    case 'redisUrl':
      parseRedisUrl(value, `"profiles.${k.profile}.redisUrl"`);
      return value;
    default:
      throw unknownKey(keyPath(k));
  }
}

/**
 * A config change waits for another process's change to finish (up to 15 s), and fails
 * rather than write without the lock: the file holds the user's profiles.
 */
const CONFIG_LOCK: LockPolicy = {
  staleMs: 10_000,
  waitMs: 15_000,
  unavailable: (lock, waitedMs) =>
    new HostctlError(
      `Another hostctl process has held the config lock for ${Math.round(waitedMs / 1000)}s (${lock}).`,
      'If no other hostctl is running, remove that directory and try again.',
    ),
};

/** The part of conf's API used here. */
export interface ConfStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  has(key: string): boolean;
  readonly store: Record<string, unknown>;
}

/**
 * Runs `change` on the config under the lock and returns the config as written. The conf
 * instance is made inside the lock, and conf reads the file on each access, so `change`
 * always starts from what the last writer left.
 */
export async function updateConfig(env: NodeJS.ProcessEnv, change: (conf: ConfStore) => void): Promise<ConfigData> {
  const { default: Conf } = await import('conf');
  const dir = configDir(env);
  try {
    return await lockedUpdate(env, dir, Conf, change);
  } catch (err) {
    throw writeError(err, dir, 'the config');
  }
}

async function lockedUpdate(env: NodeJS.ProcessEnv, dir: string, Conf: typeof import('conf').default, change: (conf: ConfStore) => void): Promise<ConfigData> {
  return withLock(join(dir, 'config.json.lock'), CONFIG_LOCK, () => {
    try {
      const conf = new Conf<Record<string, unknown>>({
        projectName: 'hostctl',
        projectSuffix: '',
        cwd: dir,
        configName: 'config',
        configFileMode: 0o600,
        // A damaged file is reported, never silently replaced by an empty one: it holds
        // the user's profiles.
        clearInvalidConfig: false,
      });
      change(conf);
      return normalizeConfig(conf.store);
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw new HostctlError(`The config file ${configFile(env)} is not valid JSON (${err.message}).`, 'Fix it by hand, or move it away to start afresh.');
      }
      throw err;
    }
  });
}

/** Removes a profile object that has no settings left, so `config list` stays tidy. */
export function pruneProfile(conf: ConfStore, profile: string): void {
  const p = conf.get(`profiles.${profile}`);
  if (typeof p === 'object' && p !== null && Object.keys(p).length === 0) conf.delete(`profiles.${profile}`);
  const all = conf.get('profiles');
  if (typeof all === 'object' && all !== null && Object.keys(all).length === 0) conf.delete('profiles');
}

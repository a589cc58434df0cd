// Writing the config: the valid keys and values, and changes made under a lock. Every
// change is a read-modify-write of the whole file inside a lock held by one process at a
// time (45 writers at once lose nothing), written by the atomic writer (atomic.ts): a
// reader sees the old or the new file, never half, and a full disk leaves the old one.
// Reads do not lock: config.ts reads the same file as plain JSON.
//
// (conf, which wrote it before, wrote in place when SNAP was set and followed symbolic
// links; the file keeps conf's format: tab-indented JSON.)

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { HostctlError, UsageError } from '../errors.js';
import { isRecord } from '../json/narrow.js';
import { parseBaseUrl } from './url.js';
import { parseDuration } from './duration.js';
import { parseRedisUrl } from '../http/fleet.js';
import { withLock, writeError, writeFileAtomic, type LockPolicy } from './atomic.js';
import { checkProfileName, OUTPUT_FORMATS, parseConfig, readConfigText, STORAGES, type ConfigData } from './config.js';
import { configDir, configFile } from './paths.js';
import { checkConfigDir, shellQuote } from './trust.js';

const PROFILE_KEYS = ['baseUrl', 'output', 'storage', 'cache', 'redisUrl'] as const;
type ProfileKey = (typeof PROFILE_KEYS)[number];

export type ConfigKey = { kind: 'defaultProfile' } | { kind: 'accessible' } | { kind: 'profile'; profile: string; field: ProfileKey | 'storedAt' };

const VALID_KEYS_TEXT = [
  'defaultProfile',
  'accessible                (true or false: see "hostctl help accessibility")',
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
  if (key === 'accessible') return { kind: 'accessible' };
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
  return k.kind === 'profile' ? `profiles.${k.profile}.${k.field}` : k.kind;
}

/** Checks a value for a key and returns it as it is stored. */
export function parseValue(k: ConfigKey, raw: string): string {
  const value = raw.trim();
  if (k.kind === 'defaultProfile') return checkProfileName(value);
  if (k.kind === 'accessible') {
    if (value !== 'true' && value !== 'false') throw new UsageError(`accessible takes true or false, not "${raw}".`, 'For example: hostctl config set accessible true');
    return value;
  }
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

/** The operations on the config a change uses: dotted keys, as conf had them. */
export interface ConfStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  has(key: string): boolean;
  readonly store: Record<string, unknown>;
}

/** The config as an object, changed in memory; profile names have no dots (checkProfileName). */
class ConfigDocument implements ConfStore {
  constructor(readonly store: Record<string, unknown>) {}

  private parent(key: string, make: boolean): [Record<string, unknown> | undefined, string] {
    const parts = key.split('.');
    const last = parts.pop() ?? key;
    let at: Record<string, unknown> | undefined = this.store;
    for (const part of parts) {
      const next: unknown = at[part];
      if (isRecord(next)) at = next;
      else if (make) at = at[part] = {};
      else return [undefined, last];
    }
    return [at, last];
  }

  get(key: string): unknown {
    const [at, last] = this.parent(key, false);
    return at?.[last];
  }

  set(key: string, value: unknown): void {
    const [at, last] = this.parent(key, true);
    if (at) at[last] = value;
  }

  delete(key: string): void {
    const [at, last] = this.parent(key, false);
    if (at) delete at[last];
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }
}

/**
 * Runs `change` on the config under the lock and returns the config as written. The file
 * is read inside the lock, so `change` always starts from what the last writer left. A
 * config that cannot be read is never replaced (readConfigText, parseConfig throw), and
 * the new one is written by the atomic writer whatever the environment (conf wrote in
 * place when SNAP was set, and through a symbolic link).
 */
export async function updateConfig(env: NodeJS.ProcessEnv, change: (conf: ConfStore) => void): Promise<ConfigData> {
  const dir = configDir(env);
  const file = configFile(env);
  checkConfigDir(dir);
  try {
    return await withLock(join(dir, 'config.json.lock'), CONFIG_LOCK, () => {
      refuseLink(file);
      const text = readConfigText(file);
      if (text !== undefined) parseConfig(text, file);
      const doc = new ConfigDocument(text === undefined ? {} : (JSON.parse(text) as Record<string, unknown>));
      change(doc);
      const written = parseConfig(JSON.stringify(doc.store), file);
      writeFileAtomic(file, `${JSON.stringify(doc.store, undefined, '\t')}\n`, 0o600);
      return written;
    });
  } catch (err) {
    throw writeError(err, dir, 'the config');
  }
}

/** hostctl replaces config.json by renaming a new file over it, and never writes through a link. */
function refuseLink(file: string): void {
  let link = false;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return;
  }
  if (link) {
    throw new UsageError(
      `Refusing to write the config file ${file}: it is a symbolic link, and hostctl does not write through links in its config directory.`,
      `Replace the link with the file itself, e.g. cp --remove-destination "$(readlink -f ${shellQuote(file)})" ${shellQuote(file)}`,
    );
  }
}

/** Removes a profile object that has no settings left, so `config list` stays tidy. */
export function pruneProfile(conf: ConfStore, profile: string): void {
  const p = conf.get(`profiles.${profile}`);
  if (typeof p === 'object' && p !== null && Object.keys(p).length === 0) conf.delete(`profiles.${profile}`);
  const all = conf.get('profiles');
  if (typeof all === 'object' && all !== null && Object.keys(all).length === 0) conf.delete('profiles');
}

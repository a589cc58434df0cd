// The config file (conf's format: one JSON object). Reading is a plain JSON read, because
// every command reads it and start-up matters; writes go through conf (see store.ts).

import { UsageError } from '../errors.js';
import { readJsonFile } from './atomic.js';
import { isRecord } from '../json/narrow.js';
import { configFile } from './paths.js';

/** Dots separate the parts of a key, so a profile name has none (nor a path's / or ..). */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(
      name === '' ? 'The profile name is empty.' : `${JSON.stringify(name)} is not a valid profile name.`,
      'Use letters, digits, "-" and "_" (up to 64 characters, starting with a letter or digit), e.g. staging.',
    );
  }
  return name;
}

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'tsv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const STORAGES = ['keychain', 'file'] as const;
export type Storage = (typeof STORAGES)[number];

export interface ProfileConfig {
  baseUrl?: string;
  output?: OutputFormat;
  storage?: Storage;
  /** Default for --cache: a duration such as 10m. */
  cache?: string;
  /** When the token was stored by `auth login`, ISO time. */
  storedAt?: string;
  /** A fleet's shared store (src/http/fleet.ts); HOSTCTL_REDIS_URL wins. */
  redisUrl?: string;
}

export interface ConfigData {
  defaultProfile?: string;
  profiles: Record<string, ProfileConfig>;
}

export function isOutputFormat(v: unknown): v is OutputFormat {
  return typeof v === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(v);
}

export function readConfig(env?: NodeJS.ProcessEnv): ConfigData {
  return normalizeConfig(readJsonFile(configFile(env)));
}

export function normalizeConfig(raw: unknown): ConfigData {
  const out: ConfigData = { profiles: {} };
  if (!isRecord(raw)) return out;
  if (typeof raw.defaultProfile === 'string') out.defaultProfile = raw.defaultProfile;
  const profiles = raw.profiles;
  if (isRecord(profiles)) {
    for (const [name, q] of Object.entries(profiles)) {
      if (!isRecord(q)) continue;
      const prof: ProfileConfig = {};
      if (typeof q.baseUrl === 'string') prof.baseUrl = q.baseUrl;
      if (isOutputFormat(q.output)) prof.output = q.output;
      if (q.storage === 'keychain' || q.storage === 'file') prof.storage = q.storage;
      if (typeof q.storedAt === 'string') prof.storedAt = q.storedAt;
      if (typeof q.cache === 'string') prof.cache = q.cache;
      if (typeof q.redisUrl === 'string') prof.redisUrl = q.redisUrl;
      out.profiles[name] = prof;
    }
  }
  return out;
}

// The config file (one JSON object, as conf wrote it). Reading is a plain JSON read,
// because every command reads it and start-up matters; writes are in store.ts.

import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { isRecord } from '../json/narrow.js';
import { configDir } from './paths.js';
import { checkConfigDir, checkOpenFile, shellQuote } from './trust.js';
import { fsReason } from './atomic.js';

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
  /** No animation, no in-place redraws, nothing by colour alone (HOSTCTL_ACCESSIBLE wins). */
  accessible?: boolean;
  profiles: Record<string, ProfileConfig>;
}

export function isOutputFormat(v: unknown): v is OutputFormat {
  return typeof v === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(v);
}

/** Why a file could not be read, in words, from its error code. */
function readReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  const reason = fsReason(code);
  if (reason !== undefined) return `${reason}, ${code}`;
  return code ?? (err instanceof Error ? err.message : String(err));
}

/**
 * The config. A missing file is an empty config; one that cannot be read, that is not
 * JSON, or that is not what hostctl writes is an error naming the file (exit 2), never
 * an empty config: a command would otherwise run without the user's profiles, and a
 * write would replace them.
 */
export function readConfig(env?: NodeJS.ProcessEnv): ConfigData {
  const dir = configDir(env);
  checkConfigDir(dir);
  const file = join(dir, 'config.json');
  const text = readConfigText(file);
  return text === undefined ? { profiles: {} } : parseConfig(text, file);
}

/** The text of the config file, undefined when there is none; checked for its owner and mode. */
export function readConfigText(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, readReason(err));
  }
  try {
    checkOpenFile(fd, file, 'the config file');
    return readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw unreadable(file, readReason(err));
  } finally {
    closeSync(fd);
  }
}

function unreadable(file: string, reason: string): UsageError {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  return new UsageError(
    `Cannot read the config file ${file} (${reason}).`,
    reason === 'permission denied' && uid !== undefined ? `Give it back to yourself: sudo chown ${uid} ${shellQuote(file)}` : 'Check the file, or point HOSTCTL_CONFIG_DIR at a directory of yours.',
  );
}

/** The config file's text as hostctl reads it; anything else is an error naming `file`. */
export function parseConfig(text: string, file: string): ConfigData {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `The config file ${file} is not valid JSON (${err instanceof Error ? err.message : String(err)}).`,
      'Fix it with an editor, or move it away to start afresh (its profiles are then lost).',
    );
  }
  const wrong = (what: string) =>
    new UsageError(`The config file ${file} is not as hostctl writes it: ${what}.`, 'Fix it with an editor ("hostctl config list" shows the valid keys), or move it away to start afresh.');
  if (!isRecord(raw)) throw wrong('it is not a JSON object');
  const out: ConfigData = { profiles: {} };
  if (raw.defaultProfile !== undefined) {
    if (typeof raw.defaultProfile !== 'string') throw wrong('defaultProfile is not a string');
    out.defaultProfile = raw.defaultProfile;
  }
  if (raw.accessible === true || raw.accessible === 'true') out.accessible = true;
  else if (raw.accessible === false || raw.accessible === 'false') out.accessible = false;
  else if (raw.accessible !== undefined) throw wrong('accessible is not true or false');
  if (raw.profiles === undefined) return out;
  if (!isRecord(raw.profiles)) throw wrong('profiles is not an object of profiles');
  for (const [name, q] of Object.entries(raw.profiles)) {
    const key = `profiles.${name}`;
    if (!isRecord(q)) throw wrong(`${key} is not an object`);
    const prof: ProfileConfig = {};
    for (const field of ['baseUrl', 'cache', 'storedAt', 'redisUrl'] as const) {
      const v = q[field];
      if (v === undefined) continue;
      if (typeof v !== 'string') throw wrong(`${key}.${field} is not a string`);
      prof[field] = v;
    }
    if (q.output !== undefined) {
      if (!isOutputFormat(q.output)) throw wrong(`${key}.output is not one of ${OUTPUT_FORMATS.join(', ')}`);
      prof.output = q.output;
    }
    if (q.storage !== undefined) {
      if (q.storage !== 'keychain' && q.storage !== 'file') throw wrong(`${key}.storage is not one of ${STORAGES.join(', ')}`);
      prof.storage = q.storage;
    }
    out.profiles[name] = prof;
  }
  return out;
}

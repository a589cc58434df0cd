// The kept copy of the API's reference, one file per base URL in the state dir
// (references/<sha256 of the base URL>.json), beside state.json rather than in it: a
// reference is tens of kilobytes, and state.json is read and rewritten by every command.
// Completion reads it too, so this module loads nothing but the file helpers.

import { join } from 'node:path';
import { readJsonFile, writeFileAtomic } from '../config/atomic.js';
import { configDir } from '../config/paths.js';
import { baseUrlKey } from '../config/url.js';
import type { Operation, Parameter } from './operations.js';
import { isRecord } from '../json/narrow.js';

/** A kept copy older than this is fetched again before it is used. */
export const MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Bumped when the kept form changes; a copy of another version is treated as none. */
const VERSION = 1;

export interface KeptReference {
  baseUrl: string;
  /** Where it was fetched from, after redirects. */
  url: string;
  /** Epoch milliseconds. */
  fetchedAt: number;
  /** `sha256:` and the hex digest of the document as sent. */
  hash: string;
  operations: Operation[];
}

export function referenceFile(base: URL | string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = baseUrlKey(base);
  if (key === undefined) return undefined;
  // node:crypto on first use, not at load: completion (dist/complete.cjs) loads this module
  // on every Tab press and hashes only when it completes operation names.
  const digest = process.getBuiltinModule('node:crypto').createHash('sha256').update(key, 'utf8').digest('hex');
  return join(configDir(env), 'references', `${digest.slice(0, 32)}.json`);
}

export function isFresh(kept: KeptReference, now: number): boolean {
  const age = now - kept.fetchedAt;
  // A copy from the future (a clock set back) is not trusted either.
  return age >= 0 && age < MAX_AGE_MS;
}

/** The kept copy for this base URL, whatever its age; undefined when none or damaged. */
export function readKept(base: URL | string, env: NodeJS.ProcessEnv = process.env): KeptReference | undefined {
  const file = referenceFile(base, env);
  if (file === undefined) return undefined;
  const raw = readJsonFile(file);
  const key = baseUrlKey(base);
  if (!isRecord(raw) || raw.version !== VERSION || key === undefined || raw.baseUrl !== key) return undefined;
  if (typeof raw.url !== 'string' || typeof raw.fetchedAt !== 'number' || typeof raw.hash !== 'string' || !Array.isArray(raw.operations)) return undefined;
  const operations: Operation[] = [];
  for (const op of raw.operations) {
    const o = operation(op);
    if (!o) return undefined;
    operations.push(o);
  }
  return { baseUrl: key, url: raw.url, fetchedAt: raw.fetchedAt, hash: raw.hash, operations };
}

/** Replaces the kept copy atomically: a concurrent reader sees the old file or the new one. */
export function writeKept(kept: KeptReference, env: NodeJS.ProcessEnv = process.env): void {
  const file = referenceFile(kept.baseUrl, env);
  if (file === undefined) return;
  writeFileAtomic(file, `${JSON.stringify({ version: VERSION, ...kept })}\n`);
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

function operation(v: unknown): Operation | undefined {
  if (!isRecord(v)) return undefined;
  const { operationId, method, path, underBase, summary, parameters, responses } = v;
  if (!(operationId === null || typeof operationId === 'string') || typeof method !== 'string' || typeof path !== 'string') return undefined;
  if (typeof underBase !== 'boolean' || typeof summary !== 'string' || !Array.isArray(parameters) || !strings(responses)) return undefined;
  const params: Parameter[] = [];
  for (const p of parameters) {
    if (!isRecord(p) || typeof p.name !== 'string' || typeof p.in !== 'string' || typeof p.required !== 'boolean') return undefined;
    params.push({ name: p.name, in: p.in, required: p.required });
  }
  return { operationId, method, path, underBase, summary, parameters: params, responses };
}

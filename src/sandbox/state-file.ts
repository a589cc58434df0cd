// --state FILE: tokens (as hashes) and every collection, kept across restarts. Written
// atomically (a temporary file in the same directory, then rename), so a crash leaves the
// old file or the new one, never half of one. Rate-limit windows and lockouts are not kept.

import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../config/atomic.js';
import { isRecord } from '../json/narrow.js';
import type { SeedData } from './data.js';
import { isJsonObject, parseJson, type JsonObject, type JsonValue } from './exact-json.js';
import type { Store } from './collections.js';
import type { TokenRecord } from './token-store.js';

export class StateFileError extends Error {}

export interface SavedState {
  seed: number;
  tokens: TokenRecord[];
  data: SeedData;
}

function asTokenRecord(v: unknown): TokenRecord | undefined {
  if (!isRecord(v)) return undefined;
  if (typeof v.name !== 'string' || typeof v.hash !== 'string' || typeof v.last4 !== 'string' || typeof v.createdAt !== 'string') return undefined;
  return { name: v.name, hash: v.hash, last4: v.last4, createdAt: v.createdAt, person: typeof v.person === 'string' ? v.person : null };
}

/** The saved state, or undefined when the file does not exist yet. */
export function loadState(file: string): SavedState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read the state file ${file}: ${(err as Error).message}`);
  }
  const bad = (why: string): never => {
    throw new StateFileError(`${file} is not a sandbox state file (${why}). Move it away or pass another --state path.`);
  };
  let root: JsonValue;
  try {
    root = parseJson(text);
  } catch (err) {
    return bad((err as Error).message);
  }
  if (!isJsonObject(root) || root.version !== 1) return bad('no "version": 1');
  const { seed, tokens, collections } = root;
  if (typeof seed !== 'number' || !Array.isArray(tokens) || !isJsonObject(collections)) return bad('missing seed, tokens or collections');
  const records: TokenRecord[] = [];
  for (const t of tokens) {
    // Token records hold plain strings only; the lossless types never reach them.
    const r = asTokenRecord(t);
    if (!r) return bad('a malformed token');
    records.push(r);
  }
  const data: SeedData = {};
  for (const [name, list] of Object.entries(collections)) {
    if (!Array.isArray(list)) return bad(`collection ${name} is not an array`);
    const objects: JsonObject[] = [];
    for (const o of list) {
      if (!isJsonObject(o)) return bad(`an object of ${name} is not an object`);
      objects.push(o);
    }
    data[name] = objects;
  }
  return { seed, tokens: records, data };
}

export function saveState(file: string, seed: number, tokens: readonly TokenRecord[], store: Store): void {
  // Built from the objects' stored JSON text, so big numbers are written as they came.
  const collections = store
    .resourceNames()
    .map((name) => `${JSON.stringify(name)}:[\n${store.all(name).map((i) => i.json).join(',\n')}\n]`)
    .join(',\n');
  const text = `{"version":1,"seed":${seed},"tokens":${JSON.stringify(tokens)},"collections":{\n${collections}\n}}\n`;
  writeFileAtomic(file, text, 0o600);
}

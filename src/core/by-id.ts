// Objects by public ID: the check of the IDs as given, and their fetch in batched
// requests, order kept by the caller and the IDs not found left out of the map. Asked by
// `get`, `wait`, `watch`, `status`, MCP's get_objects and wait_for, and the library: one
// question, the same requests whoever asks it.

import { UsageError } from '../errors.js';
import { idProblem, type Resource } from '../resources.js';
import { publicIdOf } from '../json/narrow.js';
import type { ApiRequest, HttpClient } from '../http/client.js';

/** The longest URL one batch sends; longer batches are split. */
const MAX_URL_BYTES = 4096;

/** Refuses, as a usage error, an ID that cannot be one of `resource`'s (not a plain ID, or another prefix). */
export function checkIds(resource: Resource, ids: readonly string[]): void {
  for (const id of ids) {
    const problem = idProblem(resource, id);
    if (problem) throw new UsageError(`${problem}.`, `Run "hostctl ${resource.name} list" to see the IDs.`);
  }
}

/** Splits IDs into batches whose request URL stays within MAX_URL_BYTES. */
export function batchIds(baseLength: number, ids: readonly string[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let length = baseLength;
  for (const id of ids) {
    const part = `publicId[]=${encodeURIComponent(id)}`.length + 1;
    if (current.length > 0 && length + part > MAX_URL_BYTES) {
      batches.push(current);
      current = [];
      length = baseLength;
    }
    current.push(id);
    length += part;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export interface FetchByIdsOptions {
  /** Past the response and object caches: a watch or a wait must see changes. */
  fresh?: boolean;
}

/**
 * The objects with these public IDs, by batched request: one per batch (a server that
 * still pages the filtered result says so with a next link; only that is followed).
 */
export async function fetchByIds(http: HttpClient, resource: Resource, ids: readonly string[], opts: FetchByIdsOptions = {}): Promise<Map<string, unknown>> {
  const fresh = opts.fresh === true;
  const [{ pageOf }, { parseJson, stringifyJson }] = await Promise.all([import('../http/paging.js'), import('../output/json.js')]);
  const found = new Map<string, unknown>();
  const cache = http.options.cache;
  // With --cache, objects a recent list or get returned are not asked for again.
  if (!fresh) for (const [id, json] of (await cache?.objects(resource.path, ids)) ?? []) found.set(id, parseJson(json));
  const unseen = ids.filter((id) => !found.has(id));
  const fetched = new Map<string, string>();
  const batches = batchIds(http.resolveUrl(resource.path).href.length, unseen);
  // For --dry-run, which shows the first request only.
  const then = fresh
    ? 'then the same request again every round, while the objects are watched or waited for'
    : batches.length > 1
      ? `then ${batches.length - 1} more like it, for the other IDs`
      : undefined;
  for (const batch of batches) {
    const wanted = new Set(batch);
    let req: ApiRequest | undefined = { path: resource.path, query: batch.map((id) => ['publicId[]', id] as const), fresh, then };
    while (req) {
      const res = await http.request(req);
      // Lenient: a foreign next link is ignored here (only a walk fails on it).
      const { items, next } = pageOf(res.json(), res.headers, res.url, { strict: false });
      res.keep();
      for (const item of items) {
        const id = publicIdOf(item);
        if (id !== undefined && wanted.has(id) && !found.has(id)) {
          found.set(id, item);
          if (cache) fetched.set(id, stringifyJson(item));
        }
      }
      const missing = batch.some((id) => !found.has(id));
      req = next && missing && items.length > 0 ? { path: next.href, fresh } : undefined;
    }
  }
  await cache?.putObjects(resource.path, fetched);
  return found;
}

/**
 * Keeps a list's objects in the response cache (with --cache, or a client's cache), so
 * that a later fetch of them by ID needs no request. Without a cache, nothing.
 */
export async function keepListed(http: HttpClient, resource: Resource, items: readonly unknown[]): Promise<void> {
  const cache = http.options.cache;
  if (!cache) return;
  const { stringifyJson } = await import('../output/json.js');
  const objects = new Map<string, string>();
  for (const item of items) {
    const id = publicIdOf(item);
    if (id !== undefined) objects.set(id, stringifyJson(item));
  }
  await cache.putObjects(resource.path, objects);
}

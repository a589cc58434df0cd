// `list` and `get` for every resource in the table (src/resources.ts): one implementation,
// seven resources.

import type { Context } from '../context.js';
import { NotFoundError, UsageError } from '../errors.js';
import { findResource, idProblem, type Resource } from '../resources.js';
import type { ApiRequest, HttpClient } from '../http/client.js';

export interface ListOptions {
  limit?: string;
  all?: boolean;
  page?: string;
  environment?: string;
  watch?: boolean;
  interval?: string;
}

export interface GetOptions {
  watch?: boolean;
  interval?: string;
}

/** The longest URL one batch `get` sends; longer batches are split. */
export const MAX_URL_BYTES = 4096;

function positiveInt(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new UsageError(`${flag} takes a whole number from 1 up, not "${raw}".`, `For example: ${flag} 10`);
  }
  return Number(raw);
}

export function publicIdOf(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const id = (item as Record<string, unknown>).publicId;
  return typeof id === 'string' ? id : undefined;
}

export function checkIds(resource: Resource, ids: readonly string[]): void {
  for (const id of ids) {
    const problem = idProblem(resource, id);
    if (problem) throw new UsageError(`${problem}.`, `Run "hostctl ${resource.name} list" to see the IDs.`);
  }
}

export async function listRun(ctx: Context, resource: Resource, opts: ListOptions): Promise<void> {
  // Everything the user typed is checked before a request is sent.
  const limit = positiveInt(opts.limit, '--limit');
  const page = positiveInt(opts.page, '--page');
  let path = resource.path;
  if (opts.environment !== undefined) {
    const environments = findResource('environments');
    if (environments) checkIds(environments, [opts.environment]);
    path = `/environments/${encodeURIComponent(opts.environment)}/deployments`;
  }
  const format = ctx.outputFormat();
  const fields = ctx.fields();

  const http = await ctx.http();
  const [{ walkPages }, { createPrinter }] = await Promise.all([import('../http/paging.js'), import('../output/format.js')]);
  if (opts.watch) {
    let pages = 1;
    const { watchRun } = await import('./watch.js');
    return watchRun(ctx, resource, async () => {
      const all: unknown[] = [];
      pages = 0;
      for await (const items of walkPages(http, { path, fresh: true }, { all: opts.all === true, limit, page, onPage: (n) => (pages = n) })) all.push(...items);
      return all;
    }, { interval: opts.interval, shape: 'list', requestsPerRound: () => pages });
  }
  const printer = await createPrinter({ io: ctx.io, format, fields, columns: resource.columns });
  const spinner = await ctx.io.spinner(`Fetching ${resource.name}…`);
  const profile = ctx.profileName();
  let count = 0;
  try {
    for await (const items of walkPages(http, { path }, {
      all: opts.all === true,
      limit,
      page,
      onPage: (pages, n) => spinner.text(`Fetching ${resource.name}… page ${pages}, ${n} so far`),
    })) {
      count += items.length;
      if (http.options.cache) await cacheObjects(http, resource, items);
      ctx.state().rememberIds(profile, resource.name, items.map(publicIdOf).filter((id): id is string => id !== undefined));
      printer.add(items);
    }
  } finally {
    spinner.stop();
  }
  await printer.end('list');
  if (count === 0 && format === 'table') ctx.io.note(`No ${resource.name} found.`);
}

/** Keeps the objects of a list page for `get --cache`. */
async function cacheObjects(http: HttpClient, resource: Resource, items: readonly unknown[]): Promise<void> {
  const { stringifyJson } = await import('../output/json.js');
  const objects = new Map<string, string>();
  for (const item of items) {
    const id = publicIdOf(item);
    if (id !== undefined) objects.set(id, stringifyJson(item));
  }
  http.options.cache?.putObjects(resource.path, objects);
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

/**
 * The objects with these public IDs, by batched request: one per batch (a server that
 * still pages the filtered result says so with a next link; only that is followed).
 */
export async function fetchByIds(http: HttpClient, resource: Resource, ids: readonly string[], fresh = false): Promise<Map<string, unknown>> {
  const [{ pageOf }, { parseJson, stringifyJson }] = await Promise.all([import('../http/paging.js'), import('../output/json.js')]);
  const found = new Map<string, unknown>();
  const cache = http.options.cache;
  // With --cache, objects a recent list or get returned are not asked for again.
  if (!fresh) for (const [id, json] of cache?.objects(resource.path, ids) ?? []) found.set(id, parseJson(json));
  const unseen = ids.filter((id) => !found.has(id));
  const fetched = new Map<string, string>();
  for (const batch of batchIds(http.resolveUrl(resource.path).href.length, unseen)) {
    const wanted = new Set(batch);
    let req: ApiRequest | undefined = { path: resource.path, query: batch.map((id) => ['publicId[]', id] as const), fresh };
    while (req) {
      const res = await http.request(req);
      // Lenient: a foreign next link is ignored here (only a walk fails on it).
      const { items, next } = pageOf(res.json(), res.headers, res.url, { strict: false });
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
  cache?.putObjects(resource.path, fetched);
  return found;
}

export async function getRun(ctx: Context, resource: Resource, rawIds: string[], opts: GetOptions = {}): Promise<void> {
  checkIds(resource, rawIds);
  const ids = [...new Set(rawIds)];
  const format = ctx.outputFormat();
  const fields = ctx.fields();

  const http = await ctx.http();
  if (opts.watch) {
    const { watchRun } = await import('./watch.js');
    return watchRun(ctx, resource, async () => {
      const found = await fetchByIds(http, resource, ids, true);
      return ids.map((id) => found.get(id)).filter((item) => item !== undefined);
    }, { interval: opts.interval, shape: rawIds.length === 1 ? 'single' : 'list', requestsPerRound: () => batchIds(http.resolveUrl(resource.path).href.length, ids).length });
  }
  const { createPrinter } = await import('../output/format.js');
  const spinner = await ctx.io.spinner(`Fetching ${ids.length === 1 ? resource.singular : resource.name}…`);
  let found: Map<string, unknown>;
  try {
    found = await fetchByIds(http, resource, ids);
  } finally {
    spinner.stop();
  }

  ctx.state().rememberIds(ctx.profileName(), resource.name, [...found.keys()]);
  const printer = await createPrinter({ io: ctx.io, format, fields, columns: resource.columns });
  const missing: string[] = [];
  for (const id of ids) {
    const item = found.get(id);
    if (item === undefined) missing.push(id);
    else printer.add([item]);
  }
  if (found.size > 0) await printer.end(rawIds.length === 1 ? 'single' : 'list');
  for (const id of missing) ctx.io.stderr.write(`not found: ${id}\n`);
  if (missing.length > 0) throw new NotFoundError('');
}

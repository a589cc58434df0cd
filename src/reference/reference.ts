// The API's generated reference ({base_url}/docs) as hostctl follows it: fetched as
// OpenAPI JSON, kept per base URL (store.ts), used from the kept copy while it is less
// than a day old, and fetched again when older, when asked (`docs --refresh`, `docs diff`)
// or when a name is not in it.

import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import type { HttpClient } from '../http/client.js';
import { ApiError, NotFoundError, UsageError } from '../errors.js';
import { isHtmlType, isJsonType, mediaType } from '../http/media-type.js';
import { closestNames, extractOperations, isOpenApi, shown, type Operation } from './operations.js';
import { isFresh, readKept, writeKept, type KeptReference } from './store.js';
import { baseUrlKey } from '../config/url.js';

/** Next step for a reference hostctl cannot read: the two things that still work. */
const NOT_OPENAPI_HINT = 'Read it with "hostctl docs --open", and call endpoints by path: hostctl api /apps';

function docsPath(base: URL): string {
  return `${base.pathname.replace(/\/+$/, '')}/docs`;
}

/**
 * The client a fetch of the reference sends with: the run's, unless the caller has its own
 * (an MCP call's, which its cancellation stops: HttpClient.forCall).
 */
type ClientOf = () => Promise<HttpClient>;

/** Fetches /docs (one request) and reads it as OpenAPI; anything else is one ApiError sentence. */
async function fetchReference(ctx: Context, now: number, client: ClientOf = () => ctx.http()): Promise<KeptReference> {
  const http = await client();
  const base = ctx.baseUrl();
  const spinner = await ctx.io.spinner('Fetching the API reference…');
  let res;
  try {
    // Fresh: hostctl keeps the reference itself (a day), and asks only for a new copy.
    res = await http.request({ path: '/docs', fresh: true });
  } catch (err) {
    // The base URL answers, but has no reference: say what that means for operation names.
    if (err instanceof NotFoundError) {
      throw new NotFoundError(`Not found: GET ${docsPath(base)} (404): the API serves no reference there, so hostctl cannot read operations from it.`, 'Call endpoints by path instead, such as: hostctl api /apps');
    }
    throw err;
  } finally {
    spinner.stop();
  }
  const type = res.headers['content-type'];
  const where = res.url.href;
  const notOpenApi = (what: string) =>
    new ApiError(`The reference at ${where} is ${what}, not OpenAPI, so hostctl cannot read operations from it.`, NOT_OPENAPI_HINT, { status: res.status });
  if (type !== undefined && !isJsonType(type)) {
    throw notOpenApi(isHtmlType(type) ? `a web page (${mediaType(type)})` : shown(mediaType(type)) || 'of no content type');
  }
  let doc: unknown;
  try {
    doc = res.json();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw notOpenApi(/^\s*</.test(res.text) ? 'a web page' : 'not valid JSON');
  }
  if (!isOpenApi(doc)) throw notOpenApi('JSON but has no "paths"');
  return {
    baseUrl: baseUrlKey(base) ?? base.href,
    url: where,
    fetchedAt: now,
    hash: `sha256:${createHash('sha256').update(res.text, 'utf8').digest('hex')}`,
    operations: extractOperations(doc, res.url, base),
  };
}

/** Fetches the reference and keeps it for this base URL. */
export async function refreshReference(ctx: Context, now = Date.now(), client?: ClientOf): Promise<KeptReference> {
  const ref = await fetchReference(ctx, now, client);
  keep(ctx, ref);
  return ref;
}

function keep(ctx: Context, ref: KeptReference): void {
  try {
    writeKept(ref, ctx.env);
  } catch (err) {
    // A read-only state dir costs the next run one request, not this command.
    ctx.io.warn(`Could not keep the API reference in the state dir (${(err as NodeJS.ErrnoException).code ?? 'error'}); the next command fetches it again.`);
  }
}

/** The kept copy if it is less than a day old; else a fresh one (one request), kept. */
export async function currentReference(ctx: Context, now = Date.now(), client?: ClientOf): Promise<KeptReference> {
  const kept = readKept(ctx.baseUrl(), ctx.env);
  if (kept && isFresh(kept, now)) return kept;
  return refreshReference(ctx, now, client);
}

/**
 * The operation called `name`: from the kept copy while it is fresh and has it; else the
 * reference is fetched once and asked again. Not there either: exit 2 with the closest names.
 */
export async function lookupOperation(ctx: Context, name: string, now = Date.now(), client?: ClientOf): Promise<Operation> {
  const kept = readKept(ctx.baseUrl(), ctx.env);
  const find = (ref: KeptReference) => ref.operations.find((op) => op.operationId === name);
  const hit = kept && isFresh(kept, now) ? find(kept) : undefined;
  if (hit) return hit;
  const ref = await refreshReference(ctx, now, client);
  const found = find(ref);
  if (found) return found;
  const names = ref.operations.map((op) => op.operationId).filter((n): n is string => n !== null);
  const close = closestNames(name, names);
  const hint = [
    close.length > 0 ? `Did you mean ${close.map(shown).join(', ')}?` : undefined,
    names.length > 0 ? 'List them with: hostctl docs --operations.' : 'The reference gives no operation a name (operationId); call them by path, as hostctl docs --operations lists them.',
    `A path starts with a slash: hostctl api /${shown(name)}`,
  ]
    .filter(Boolean)
    .join(' ');
  throw new UsageError(`The API reference has no operation named "${shown(name)}".`, hint);
}

export interface DiffRow {
  change: 'added' | 'removed' | 'changed';
  operationId: string | null;
  method: string;
  path: string;
  /** For `changed`: what, as `path: /a -> /b; +query status; …`. */
  details: string;
}

function keyOf(op: Operation): string {
  return op.operationId ?? `${op.method} ${op.path}`;
}

function setDiff(label: string, before: readonly string[], after: readonly string[]): string[] {
  const added = after.filter((x) => !before.includes(x));
  const removed = before.filter((x) => !after.includes(x));
  if (added.length === 0 && removed.length === 0) return [];
  return [`${label} ${[...added.map((x) => `+${x}`), ...removed.map((x) => `-${x}`)].join(', ')}`];
}

const paramText = (op: Operation) => op.parameters.map((p) => `${p.name} (${p.in}${p.required ? ', required' : ''})`);

/**
 * What changed between two versions of the reference: operations added, removed, and
 * changed in method, path, parameters or response media types. An operation is the same
 * one across versions by its operationId, or by method and path where it has none.
 */
export function diffReferences(before: readonly Operation[], after: readonly Operation[]): DiffRow[] {
  const old = new Map(before.map((op) => [keyOf(op), op]));
  const now = new Map(after.map((op) => [keyOf(op), op]));
  const row = (change: DiffRow['change'], op: Operation, details = ''): DiffRow => ({ change, operationId: op.operationId, method: op.method, path: op.path, details });
  const rows: DiffRow[] = [];
  for (const [key, op] of now) {
    const was = old.get(key);
    if (!was) {
      rows.push(row('added', op));
      continue;
    }
    const details = [
      ...(was.method !== op.method ? [`method ${was.method} -> ${op.method}`] : []),
      ...(was.path !== op.path ? [`path ${was.path} -> ${op.path}`] : []),
      ...setDiff('parameters', paramText(was), paramText(op)),
      ...setDiff('responses', was.responses, op.responses),
    ];
    if (details.length > 0) rows.push(row('changed', op, details.join('; ')));
  }
  for (const [key, op] of old) if (!now.has(key)) rows.push(row('removed', op));
  return rows;
}

// The API's reference as every face uses it (`hostctl api <operationId>`, `docs`, MCP's
// list_operations and call_operation, the library's request): the kept copy while it is
// under a day old, else one request for /docs; an operation found by its operationId; and
// an operation with its parameters turned into the request to send (path parameters
// filled and checked, the rest to the query; the path under the base URL or, for one
// outside it, absolute on its origin). It takes a reference store, not a command's Context.

import { createHash } from 'node:crypto';
import type { HttpClient } from '../http/client.js';
import { ApiError, NotFoundError, UsageError } from '../errors.js';
import { isHtmlType, isJsonType, mediaType } from '../http/media-type.js';
import { closestNames, extractOperations, fillPath, isOpenApi, pathParameters, shown, type Operation } from '../reference/operations.js';
import { isFresh, readKept, writeKept, type KeptReference } from '../reference/store.js';
import { baseUrlKey } from '../config/url.js';

/** Where the reference of one base URL is fetched from and kept, and what a fetch shows. */
export interface ReferenceStore {
  baseUrl: URL;
  /** The environment whose config dir keeps the copies. */
  env: NodeJS.ProcessEnv;
  now(): number;
  /** The client a fetch sends with (an MCP call's own, which its cancellation stops). */
  http(): Promise<HttpClient>;
  /** Called as the one request of a fetch goes out; returns what ends it (a spinner's stop). */
  fetching?(): Promise<() => void>;
  /** A copy that could not be kept: the next fetch costs a request, this one goes on. */
  warn?(message: string): void;
}

/** Next step for a reference hostctl cannot read: the two things that still work. */
const NOT_OPENAPI_HINT = 'Read it with "hostctl docs --open", and call endpoints by path: hostctl api /apps';

function docsPath(base: URL): string {
  return `${base.pathname.replace(/\/+$/, '')}/docs`;
}

/** Fetches /docs (one request) and reads it as OpenAPI; anything else is one ApiError sentence. */
async function fetchReference(store: ReferenceStore): Promise<KeptReference> {
  const http = await store.http();
  const base = store.baseUrl;
  const done = (await store.fetching?.()) ?? (() => undefined);
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
    done();
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
    fetchedAt: store.now(),
    hash: `sha256:${createHash('sha256').update(res.text, 'utf8').digest('hex')}`,
    operations: extractOperations(doc, res.url, base),
  };
}

/** Fetches the reference and keeps it for this base URL. */
export async function refreshReference(store: ReferenceStore): Promise<KeptReference> {
  const ref = await fetchReference(store);
  try {
    writeKept(ref, store.env);
  } catch (err) {
    // A read-only state dir costs the next run one request, not this one.
    store.warn?.(`Could not keep the API reference in the state dir (${(err as NodeJS.ErrnoException).code ?? 'error'}); the next command fetches it again.`);
  }
  return ref;
}

/** The kept copy if it is less than a day old; else a fresh one (one request), kept. */
export async function currentReference(store: ReferenceStore): Promise<KeptReference> {
  const kept = readKept(store.baseUrl, store.env);
  if (kept && isFresh(kept, store.now())) return kept;
  return refreshReference(store);
}

/**
 * The operation called `name`: from the kept copy while it is fresh and has it; else the
 * reference is fetched once and asked again. Not there either: exit 2 with the closest names.
 */
export async function findOperation(store: ReferenceStore, name: string): Promise<Operation> {
  const kept = readKept(store.baseUrl, store.env);
  const find = (ref: KeptReference) => ref.operations.find((op) => op.operationId === name);
  const hit = kept && isFresh(kept, store.now()) ? find(kept) : undefined;
  if (hit) return hit;
  const ref = await refreshReference(store);
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

/** How a face tells its user to give path parameters (`-f name=…`, `params: {…}`). */
export type ParameterHint = (missing: readonly string[]) => string;

/** `name (GET /path)`, as messages name an operation: server data, made safe to show. */
export function operationLabel(op: Operation): string {
  return shown(`${op.operationId ?? ''} (${op.method} ${op.path})`);
}

/**
 * Refuses, before anything is read or sent, an operation call that lacks one of its path
 * parameters: `given` holds the names the caller has values for.
 */
export function checkPathParameters(op: Operation, given: ReadonlySet<string>, hint: ParameterHint): void {
  const missing = pathParameters(op).filter((p) => !given.has(p));
  if (missing.length === 0) return;
  throw new UsageError(`${operationLabel(op)} needs the path parameter${missing.length === 1 ? '' : 's'} ${missing.map((m) => `"${shown(m)}"`).join(', ')}.`, hint(missing.map(shown)));
}

/** A request as an operation and its parameters make it. */
export interface OperationRequest {
  method: string;
  /** Under the base URL, or absolute on its origin for an operation outside it (resolveUrl takes both). */
  path: string;
  /** The parameters that are not path parameters, in their order. */
  query: [string, string][];
}

/**
 * The request `op` makes with `params`: its path parameters filled (each one segment, never
 * empty, `.` or `..`, which URLs resolve as steps to another endpoint), the rest to the query.
 */
export function operationRequest(op: Operation, params: ReadonlyMap<string, string>, baseUrl: URL, hint: ParameterHint): OperationRequest {
  const names = pathParameters(op);
  checkPathParameters(op, new Set(params.keys()), hint);
  for (const n of names) {
    const v = params.get(n) ?? '';
    if (v === '' || v === '.' || v === '..') throw new UsageError(`The path parameter "${shown(n)}" cannot be ${v === '' ? 'empty' : `"${v}"`}.`, `Give the ${shown(n)} the operation needs.`);
  }
  const filled = fillPath(op.path, params);
  return {
    method: op.method,
    path: op.underBase ? filled : `${baseUrl.origin}${filled}`,
    query: [...params].filter(([k]) => !names.includes(k)),
  };
}

// The platform's API: every request outside /_sandbox. The order of the checks is the
// platform's: a locked-out address is refused first, then the token is checked (failures
// counted per IP), then the token's window, and only then is the path looked at.

import type { IncomingMessage } from 'node:http';
import { RESOURCES, type Resource } from '../resources.js';
import { queryPartsWithout } from '../config/url.js';
import type { SandboxCore } from './core.js';
import { clientIp, isJsonContentType, MAX_BODY, readBody, splitTarget, type Reply } from './http-plumbing.js';
import { isJsonObject, JsonSyntaxError, parseJson, setProperty, type JsonObject, type JsonValue } from './exact-json.js';
import type { WindowState } from './limits.js';
import { chooseApiFormat, wantsOpenApiJson, type ApiFormat } from './negotiate.js';
import { problem, renderCollection, renderObject, renderProblem, type PageView, type Problem } from './render.js';
import type { Item, Viewer } from './collections.js';
import type { TokenRecord } from './token-store.js';

const MAX_ITEMS_PER_PAGE = 100;
const REALM = 'Bearer realm="platform"';

export interface ApiResult {
  reply: Reply;
  /** The name of the token that authenticated the request, for the logs. */
  token: string | null;
  body: JsonValue;
}

function problemReply(p: Problem, headers: Record<string, string | number> = {}): Reply {
  return { status: p.status, body: renderProblem(p), contentType: 'application/problem+json', headers };
}

function limitHeaders(s: WindowState): Record<string, number> {
  return { 'X-RateLimit-Limit': s.limit, 'X-RateLimit-Remaining': s.remaining, 'X-RateLimit-Reset': s.reset };
}

function bearer(header: string | undefined): string | undefined {
  const m = header ? /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header) : null;
  return m?.[1];
}

export async function handleApi(core: SandboxCore, req: IncomingMessage): Promise<ApiResult> {
  const ip = clientIp(req);
  const method = req.method ?? 'GET';

  const locked = core.lockout.check(ip);
  if (locked.lockedFor > 0) {
    const p = problem(429, 'locked-out', 'Locked out', `Too many failed authentications came from ${ip}. Every request from this address is refused for ${locked.lockedFor} more seconds, whatever its token.`);
    return { reply: problemReply(p, { ...limitHeaders(locked), 'Retry-After': locked.lockedFor }), token: null, body: null };
  }

  const presented = bearer(req.headers.authorization);
  const record: TokenRecord | undefined = presented ? core.tokens.authenticate(presented) : undefined;
  if (!record) {
    const after = core.lockout.fail(ip);
    const left =
      after.lockedFor > 0
        ? `This address is now locked out for ${after.lockedFor} seconds.`
        : `${after.remaining} more failed authentications from this address lock it out for ${core.settings.lockoutSeconds} seconds.`;
    const detail = presented
      ? `The bearer token is unknown or has been revoked. ${left}`
      : `The request carries no bearer token: send "Authorization: Bearer <API token>". ${left}`;
    const challenge = presented ? `${REALM}, error="invalid_token", error_description="The token is unknown or revoked"` : REALM;
    return {
      reply: problemReply(problem(401, 'unauthorized', 'Unauthorized', detail), { ...limitHeaders(after), 'WWW-Authenticate': challenge }),
      token: null,
      body: null,
    };
  }

  const take = core.window.take(record.hash);
  if (!take.allowed) {
    const p = problem(429, 'rate-limited', 'Too many requests', `This token has made ${take.limit} requests in the last ${core.settings.windowSeconds} seconds. Retry in ${take.retryAfter} seconds.`);
    return { reply: problemReply(p, { ...limitHeaders(take), 'Retry-After': take.retryAfter }), token: record.name, body: null };
  }

  let raw: Buffer | undefined;
  let body: JsonValue = null;
  if (method === 'POST') {
    raw = await readBody(req);
    if (raw) {
      try {
        body = parseJson(raw.toString('utf8'));
      } catch {
        body = null;
      }
    }
  }

  const reply = route(core, req, core.store.viewerFor(record.person), raw);
  reply.headers = { ...reply.headers, ...limitHeaders(take), Vary: 'Accept' };
  return { reply, token: record.name, body };
}

function notFound(detail: string): Reply {
  return problemReply(problem(404, 'not-found', 'Not found', detail));
}

function methodNotAllowed(method: string, allow: string): Reply {
  return problemReply(problem(405, 'method-not-allowed', 'Method not allowed', `${method} is not supported here. Allowed: ${allow}.`), { Allow: allow });
}

function notAcceptable(): Reply {
  return problemReply(problem(406, 'not-acceptable', 'Not acceptable', 'Send "Accept: application/json" for JSON, or no Accept header for JSON-LD.'));
}

function route(core: SandboxCore, req: IncomingMessage, viewer: Viewer, raw: Buffer | undefined): Reply {
  const method = req.method ?? 'GET';
  const { path, query } = splitTarget(req.url ?? '/');
  if (!path.startsWith('/v1/')) return notFound(`There is nothing at ${path}. The API lives under /v1; its reference is at /v1/docs.`);
  let segments: string[];
  try {
    segments = path.slice(4).split('/').map(decodeURIComponent);
  } catch {
    return notFound(`There is nothing at ${path}.`);
  }
  const read = method === 'GET' || method === 'HEAD';
  const accept = req.headers.accept;

  if (segments.length === 1 && segments[0] === 'docs') {
    if (!read) return methodNotAllowed(method, 'GET, HEAD');
    return wantsOpenApiJson(accept)
      ? { status: 200, body: core.openApi, contentType: 'application/json; charset=utf-8' }
      : { status: 200, body: core.html, contentType: 'text/html; charset=utf-8' };
  }

  const resource = RESOURCES.find((r) => r.path === `/${segments[0] ?? ''}`);
  if (!resource) return notFound(`There is nothing at ${path}. Collections: ${RESOURCES.map((r) => `/v1${r.path}`).join(', ')}.`);
  const format = chooseApiFormat(accept);

  if (segments.length === 1) {
    if (method === 'POST') return format ? create(core, resource, req, raw, format) : notAcceptable();
    if (!read) return methodNotAllowed(method, 'GET, HEAD, POST');
    if (!format) return notAcceptable();
    return list(resource, core.store.visible(viewer, resource.name), query, format, `/v1${resource.path}`, core.settings.pageSize);
  }

  const id = segments[1] ?? '';
  if (segments.length === 2) {
    if (!read) return methodNotAllowed(method, 'GET, HEAD');
    if (!format) return notAcceptable();
    const item = core.store.get(resource.name, id);
    if (!item || !core.store.canSee(viewer, resource.name, item)) return notFound(`There is no ${resource.singular} "${id}" that this token may see.`);
    return { status: 200, body: renderObject(resource, item, format), contentType: contentType(format) };
  }

  const deployments = RESOURCES.find((r) => r.name === 'deployments');
  if (segments.length === 3 && resource.name === 'environments' && segments[2] === 'deployments' && deployments) {
    if (!read) return methodNotAllowed(method, 'GET, HEAD');
    if (!format) return notAcceptable();
    const env = core.store.get('environments', id);
    if (!env || !core.store.canSee(viewer, 'environments', env)) return notFound(`There is no environment "${id}" that this token may see.`);
    const items = core.store.visible(viewer, 'deployments').filter((d) => d.value.environment === id);
    return list(deployments, items, query, format, `/v1/environments/${encodeURIComponent(id)}/deployments`, core.settings.pageSize);
  }
  return notFound(`There is nothing at ${path}.`);
}

function contentType(format: ApiFormat): string {
  return format === 'json' ? 'application/json; charset=utf-8' : 'application/ld+json; charset=utf-8';
}

function positiveInt(value: string | null): number | undefined | 'bad' {
  if (value === null) return undefined;
  return /^[1-9][0-9]{0,8}$/.test(value) ? Number(value) : 'bad';
}

function badRequest(detail: string): Reply {
  return problemReply(problem(400, 'bad-request', 'Bad request', detail));
}

function list(resource: Resource, items: readonly Item[], query: string, format: ApiFormat, collectionPath: string, pageSize: number): Reply {
  // URLSearchParams decodes the key too, so publicId%5B%5D=… and publicId[]=… are one filter.
  const params = new URLSearchParams(query);
  const page = positiveInt(params.get('page'));
  if (page === 'bad') return badRequest('"page" must be a whole number from 1.');
  const perPage = positiveInt(params.get('itemsPerPage'));
  if (perPage === 'bad') return badRequest(`"itemsPerPage" must be a whole number from 1 to ${MAX_ITEMS_PER_PAGE}.`);

  if (params.has('publicId[]') || params.has('publicId')) {
    // The filter fetches known objects in one call: all of them on page 1, nothing after.
    const wanted = new Set([...params.getAll('publicId[]'), ...params.getAll('publicId')]);
    const found = (page ?? 1) > 1 ? [] : items.filter((i) => wanted.has(i.id));
    return { status: 200, body: renderCollection(resource, found, found.length, format, `${collectionPath}?${query}`, undefined), contentType: contentType(format) };
  }

  const size = Math.min(perPage ?? pageSize, MAX_ITEMS_PER_PAGE);
  const current = page ?? 1;
  const lastPage = Math.max(1, Math.ceil(items.length / size));
  const slice = items.slice((current - 1) * size, current * size);
  const otherParams = queryPartsWithout(query, 'page').join('&');
  const view: PageView = { path: collectionPath, page: current, lastPage, otherParams };
  return { status: 200, body: renderCollection(resource, slice, items.length, format, collectionPath, view), contentType: contentType(format) };
}


function create(core: SandboxCore, resource: Resource, req: IncomingMessage, raw: Buffer | undefined, format: ApiFormat): Reply {
  if (!isJsonContentType(req.headers['content-type'])) {
    return problemReply(problem(415, 'unsupported-media-type', 'Unsupported media type', 'Send the object as JSON with "Content-Type: application/json".'));
  }
  if (!raw) return problemReply(problem(413, 'payload-too-large', 'Payload too large', `The body is larger than ${MAX_BODY} bytes.`));
  let value: JsonValue;
  try {
    value = parseJson(raw.toString('utf8'));
  } catch (err) {
    const why = err instanceof JsonSyntaxError ? err.message : 'invalid JSON';
    return badRequest(`The body is not valid JSON: ${why}.`);
  }
  if (!isJsonObject(value)) return unprocessable('The body must be one JSON object.');
  if (Object.hasOwn(value, 'publicId')) return unprocessable('"publicId" is assigned by the server; leave it out.');

  const obj: JsonObject = { publicId: core.store.newId(resource.name) };
  for (const key of Object.keys(value)) setProperty(obj, key, value[key] ?? null);
  const item = core.store.upsert(resource.name, obj);
  core.save();
  return {
    status: 201,
    body: renderObject(resource, item, format),
    contentType: contentType(format),
    headers: { Location: `/v1${resource.path}/${encodeURIComponent(item.id)}` },
  };
}

function unprocessable(detail: string): Reply {
  return problemReply(problem(422, 'unprocessable', 'Unprocessable content', detail));
}

// /_sandbox: the dashboard's part (tokens) and the hooks tests need (the request log,
// planting objects). Loopback clients only; no token, no rate limit, not in the request log.
//
// A web page the user visits is a loopback client too: its browser sends the requests.
// So the admin endpoints also require a loopback Host (a page that rebinds its own name to
// 127.0.0.1 sends its name: DNS rebinding), no foreign Origin, and JSON bodies declared as
// application/json (a page may POST text/plain anywhere without asking: CSRF).

import type { IncomingMessage } from 'node:http';
import { RESOURCES } from '../resources.js';
import { CONTROL_CHARS } from '../output/sanitize.js';
import type { SandboxCore } from './core.js';
import { clientIp, isLoopback, readBody, splitTarget, type Reply } from './http-plumbing.js';
import { isJsonObject, parseJson, stringifyJson, type JsonObject, type JsonValue } from './exact-json.js';
import { renderProblem, problem } from './render.js';

function fail(status: number, type: string, title: string, detail: string, headers: Record<string, string> = {}): Reply {
  return { status, body: renderProblem(problem(status, type, title, detail)), contentType: 'application/problem+json', headers };
}

function json(status: number, body: string): Reply {
  return { status, body, contentType: 'application/json; charset=utf-8' };
}

function notAllowed(method: string, allow: string): Reply {
  return fail(405, 'method-not-allowed', 'Method not allowed', `${method} is not supported here. Allowed: ${allow}.`, { Allow: allow });
}

async function jsonBody(req: IncomingMessage): Promise<JsonValue | Reply> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    return fail(415, 'unsupported-media-type', 'Unsupported media type', 'Send the body with Content-Type: application/json.');
  }
  const raw = await readBody(req);
  if (!raw) return fail(413, 'payload-too-large', 'Payload too large', 'The body is larger than 1 MiB.');
  try {
    return parseJson(raw.toString('utf8'));
  } catch (err) {
    return fail(400, 'bad-request', 'Bad request', `The body is not valid JSON: ${(err as Error).message}.`);
  }
}

/** A Host header (name and optional port) that names a loopback address. */
function isLoopbackName(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.toLowerCase().replace(/:\d+$/, '');
  return name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackName(u.host);
  } catch {
    return false;
  }
}

function isReply(v: JsonValue | Reply): v is Reply {
  return typeof v === 'object' && v !== null && 'status' in v && 'body' in v && typeof v.status === 'number';
}

export async function handleAdmin(core: SandboxCore, req: IncomingMessage): Promise<Reply> {
  const ip = clientIp(req);
  if (!isLoopback(ip)) return fail(403, 'forbidden', 'Forbidden', 'The sandbox administration answers loopback clients only.');
  if (!isLoopbackName(req.headers.host)) {
    return fail(403, 'forbidden', 'Forbidden', 'The sandbox administration answers requests addressed to a loopback host only (Host: 127.0.0.1, localhost or [::1]).');
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) {
    return fail(403, 'forbidden', 'Forbidden', 'The sandbox administration does not answer requests from web pages of other origins.');
  }
  const method = req.method ?? 'GET';
  const { path } = splitTarget(req.url ?? '/');
  let segments: string[];
  try {
    segments = path.split('/').slice(2).map(decodeURIComponent);
  } catch {
    return fail(404, 'not-found', 'Not found', `There is nothing at ${path}.`);
  }
  const [area, name, extra] = segments;

  if (area === 'tokens' && name === undefined) {
    if (method === 'GET') return json(200, JSON.stringify(core.tokens.list()));
    if (method === 'POST') return createToken(core, req);
    return notAllowed(method, 'GET, POST');
  }
  if (area === 'tokens' && name !== undefined && extra === undefined) {
    if (method !== 'DELETE') return notAllowed(method, 'DELETE');
    if (!core.tokens.revoke(name)) return fail(404, 'not-found', 'Not found', `There is no token named "${name}".`);
    core.save();
    return { status: 204, body: '' };
  }
  if (area === 'requests' && name === undefined) {
    if (method === 'GET') return json(200, core.log.toJson());
    if (method === 'DELETE') {
      core.log.clear();
      return { status: 204, body: '' };
    }
    return notAllowed(method, 'GET, DELETE');
  }
  if (area === 'objects' && name !== undefined && extra === undefined) {
    if (!core.store.has(name)) {
      return fail(404, 'not-found', 'Not found', `There is no resource "${name}". Resources: ${RESOURCES.map((r) => r.name).join(', ')}.`);
    }
    if (method === 'GET') return json(200, `[${core.store.all(name).map((i) => i.json).join(',')}]`);
    if (method === 'POST') return plant(core, name, req);
    return notAllowed(method, 'GET, POST');
  }
  return fail(404, 'not-found', 'Not found', `There is nothing at ${path}. Admin endpoints: /_sandbox/tokens, /_sandbox/requests, /_sandbox/objects/<resource>.`);
}

/** A token name holds no "/" (it is part of a path) and no control character. */
const UNFIT_NAME = new RegExp(`[${CONTROL_CHARS}/]`);

async function createToken(core: SandboxCore, req: IncomingMessage): Promise<Reply> {
  const body = await jsonBody(req);
  if (isReply(body)) return body;
  if (!isJsonObject(body) || typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 100 || UNFIT_NAME.test(body.name)) {
    return fail(422, 'unprocessable', 'Unprocessable content', 'Send {"name": "…"}: a name of 1 to 100 characters, without "/" or control characters.');
  }
  let person = core.owner;
  if (body.person !== undefined) {
    if (typeof body.person !== 'string' || !core.store.get('people', body.person)) {
      return fail(422, 'unprocessable', 'Unprocessable content', '"person" must be the public ID of a person.');
    }
    person = body.person;
  }
  if (core.tokens.has(body.name)) return fail(409, 'conflict', 'Conflict', `A token named "${body.name}" exists already; delete it first or choose another name.`);
  const { record, token } = core.tokens.create(body.name, person);
  core.save();
  return json(201, JSON.stringify({ name: record.name, token, last4: record.last4, createdAt: record.createdAt, person: record.person }));
}

async function plant(core: SandboxCore, resource: string, req: IncomingMessage): Promise<Reply> {
  const body = await jsonBody(req);
  if (isReply(body)) return body;
  const list = Array.isArray(body) ? body : [body];
  const objects: JsonObject[] = [];
  for (const o of list) {
    if (!isJsonObject(o)) return fail(422, 'unprocessable', 'Unprocessable content', 'Send a JSON object or an array of objects.');
    if (o.publicId !== undefined && (typeof o.publicId !== 'string' || o.publicId === '')) {
      return fail(422, 'unprocessable', 'Unprocessable content', '"publicId", when given, must be a non-empty string.');
    }
    objects.push(o);
  }
  const stored = objects.map((o) => core.store.upsert(resource, o));
  core.save();
  return json(201, stringifyJson(stored.map((i) => i.value)));
}

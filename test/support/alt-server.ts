// A second, independent server that follows the platform document (../shared/platform-api.md)
// but chooses differently from our sandbox wherever the document is silent, so that the
// e2e suite proves the client is not tuned to the sandbox. It shares no code with src/.
//
// Its choices, against the sandbox's:
// - paging: opaque cursors (?cursor=…), 25 per page, announced by a `Link: <…>; rel="next"`
//   header; `?page=` is ignored (the sandbox: ?page=N, 30 per page, no Link header);
// - JSON-LD (no Accept header): a `member` / `view.next` envelope, not hydra: names;
// - X-RateLimit-Reset as a Unix time, Retry-After as an HTTP date (the sandbox: seconds);
// - error bodies as {"error": {"code", "message"}} with text/plain-free JSON (the sandbox:
//   application/problem+json);
// - lockout after 5 failed authentications for 300 s, answered with 403;
// - its reference at /v1/docs (only with the `reference` option; else 404): OpenAPI 3.0
//   with an absolute server URL, served as application/vnd.oai.openapi+json whatever the
//   Accept header, snake_case path parameters declared once per path item through $ref,
//   operation names of its own (fetchApp, deploymentsOfEnvironment); or an HTML page only.
//   `evolveReference()` is the beta changing: fetchApp (GET /apps/{app_id}) appears, with
//   its route, listApps gains a query parameter and listTeams goes.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface AltOptions {
  /** Requests per token per 60 s sliding window. */
  limit?: number;
  pageSize?: number;
  /** Answer each request after this many milliseconds (a slow network, for spinners). */
  delayMs?: number;
  /** What /v1/docs serves: OpenAPI JSON, or an HTML page only; none (404) by default. */
  reference?: 'openapi' | 'html';
  /**
   * References as nested objects ({"publicId", "displayName"}) under names of their own
   * (owningTeam, application, deployTarget), instead of flat "…Id" strings. The sandbox
   * sends flat strings named team, app, environment.
   */
  nestReferences?: boolean;
  /** Say the collection's size in an X-Total-Count header. */
  totalHeader?: boolean;
  /** The server's clock (its rate-limit window and lockout); default Date.now. */
  now?: () => number;
  /** Close an idle connection after this many seconds, and say so (`Keep-Alive: timeout=N`). */
  keepAliveSeconds?: number;
  /**
   * Answer JSON-LD whatever the Accept header (a server may): `@` members on every object,
   * a list as a `member` / `view.next` envelope, or with `hydra:` names (`hydra:member`,
   * `hydra:view` / `hydra:next`), its next page named in the envelope only (no Link header).
   */
  jsonLd?: 'member' | 'hydra';
}

/** The alt server's OpenAPI document; `evolved`: after the beta gained and lost operations. */
function openApiDocument(origin: string, evolved: boolean): Obj {
  const json = (schema: Obj = { type: 'object' }) => ({ content: { 'application/json': { schema } } });
  const problem = { description: 'An error', ...json({ $ref: '#/components/schemas/Error' }) };
  const paths: Obj = {
    '/apps': {
      get: {
        operationId: 'listApps',
        summary: 'All apps, 25 at a time',
        parameters: [
          { name: 'publicId[]', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'cursor', in: 'query', schema: { type: 'string' } },
          ...(evolved ? [{ name: 'status', in: 'query', schema: { type: 'string' } }] : []),
        ],
        responses: { '200': { description: 'Apps', ...json({ type: 'array' }) }, '401': problem },
      },
      post: {
        operationId: 'createApp',
        summary: 'Make an app',
        requestBody: json(),
        responses: { '201': { description: 'The app', ...json() }, '401': problem },
      },
    },
    '/environments/{environment_id}/deployments': {
      parameters: [{ $ref: '#/components/parameters/EnvironmentId' }],
      get: { operationId: 'deploymentsOfEnvironment', summary: 'Deployments of one environment', responses: { '200': { description: 'Deployments', ...json({ type: 'array' }) } } },
    },
  };
  if (evolved) {
    paths['/apps/{app_id}'] = {
      get: {
        operationId: 'fetchApp',
        description: 'One app by its public ID.\nNew in this version of the beta.',
        parameters: [{ name: 'app_id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The app', ...json() }, '404': problem },
      },
    };
  } else {
    paths['/teams'] = { get: { operationId: 'listTeams', summary: 'Teams', responses: { '200': { description: 'Teams', ...json({ type: 'array' }) } } } };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Alt platform', version: evolved ? '1.1-beta' : '1.0-beta' },
    servers: [{ url: `${origin}/v1` }],
    paths,
    components: {
      parameters: { EnvironmentId: { name: 'environment_id', in: 'path', required: true, schema: { type: 'string' } } },
      schemas: { Error: { type: 'object' } },
    },
  };
}

const CONTEXT = 'https://schema.example.invalid/v1';

/** The names the nested form gives each flat reference field. */
const NESTED_NAMES: Record<string, string> = { teamId: 'owningTeam', appId: 'application', environmentId: 'deployTarget' };

export interface AltRequest {
  method: string;
  path: string;
  query: string;
  status: number;
  body: string;
}

type Obj = Record<string, unknown>;

/** A JSON value planted as its exact source text (a number no JS number can hold). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify, but RawJson values are written as their text. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => toJsonText(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const parts = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
}

const COLLECTIONS = ['apps', 'environments', 'deployments', 'domains', 'teams', 'people', 'payment-methods'] as const;
const PREFIX: Record<string, string> = {
  apps: 'ap-',
  environments: 'en-',
  deployments: 'dep_',
  domains: 'do-',
  teams: 'team_',
  people: 'usr_',
  'payment-methods': 'card_',
};
const WINDOW_MS = 60_000;
const LOCKOUT_AFTER = 5;
const LOCKOUT_MS = 300_000;

/** Deterministic data of its own: a small linear congruential generator, fixed times. */
function seed(): Record<string, Obj[]> {
  let x = 12345;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const ids = new Set<string>();
  const id = (resource: string) => {
    for (;;) {
      const v = `${PREFIX[resource]}${Math.floor(rnd() * 36 ** 6).toString(36).padStart(6, '0')}`;
      if (!ids.has(v)) {
        ids.add(v);
        return v;
      }
    }
  };
  const base = Date.UTC(2025, 5, 1);
  const time = (i: number) => new Date(base + i * 3_600_000 * 7).toISOString();
  const data: Record<string, Obj[]> = Object.fromEntries(COLLECTIONS.map((c) => [c, []]));
  for (let t = 0; t < 3; t++) data.teams!.push({ publicId: id('teams'), displayName: `Team ${t + 1}`, tier: pick(['hobby', 'pro']), created: time(t) });
  for (let p = 0; p < 8; p++) data.people!.push({ publicId: id('people'), fullName: `Person ${p + 1}`, email: `person${p + 1}@example.invalid`, teamId: (data.teams![p % 3] as Obj).publicId });
  for (let m = 0; m < 4; m++) data['payment-methods']!.push({ publicId: id('payment-methods'), kind: 'card', network: pick(['visa', 'amex']), lastDigits: String(1000 + m), teamId: (data.teams![m % 3] as Obj).publicId });
  for (let a = 0; a < 60; a++) {
    const app: Obj = { publicId: id('apps'), name: `alt-app-${a + 1}`, status: pick(['live', 'paused', 'building']), region: pick(['fra', 'iad', 'sin']), updatedAt: time(100 + a), teamId: (data.teams![a % 3] as Obj).publicId };
    data.apps!.push(app);
    for (const stage of ['prod', 'preview']) {
      const env: Obj = { publicId: id('environments'), name: stage, appId: app.publicId, updatedAt: time(200 + a) };
      data.environments!.push(env);
      data.deployments!.push({ publicId: id('deployments'), environmentId: env.publicId, state: pick(['done', 'failed']), sha: Math.floor(rnd() * 2 ** 31).toString(16), startedAt: time(300 + a) });
      if (stage === 'prod') data.domains!.push({ publicId: id('domains'), fqdn: `${String(app.name)}.example.invalid`, environmentId: env.publicId });
    }
  }
  return data;
}

function cursorOf(index: number): string {
  return Buffer.from(`o:${index}`).toString('base64url');
}

function indexOf(cursor: string | null): number | undefined {
  if (cursor === null) return 0;
  const m = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

export async function startAltServer(options: AltOptions = {}) {
  const limit = options.limit ?? 20;
  const pageSize = options.pageSize ?? 25;
  const data = seed();
  const token = 'alt_0123456789abcdefABCDEF';
  const valid = new Set([token]);
  const windows = new Map<string, number[]>();
  const failures = new Map<string, { count: number; lockedUntil: number }>();
  const requests: AltRequest[] = [];
  let forced: { count: number; seconds: number } | undefined;
  let evolved = false;
  let origin = '';

  const rateHeaders = (tok: string, now: number): Record<string, string> => {
    const hits = (windows.get(tok) ?? []).filter((t) => t > now - WINDOW_MS);
    windows.set(tok, hits);
    const resetAt = hits.length > 0 ? (hits[0] as number) + WINDOW_MS : now + WINDOW_MS;
    return {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - hits.length)),
      'X-RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
    };
  };

  const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = body === undefined ? '' : toJsonText(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
    res.end(text);
  };
  const error = (code: string, message: string) => ({ error: { code, message } });

  const handle = (req: IncomingMessage, res: ServerResponse, body: string): number => {
    const now = (options.now ?? Date.now)();
    const url = new URL(req.url ?? '/', 'http://alt.invalid');
    const ip = req.socket.remoteAddress ?? '?';

    const fail = failures.get(ip);
    if (fail && fail.lockedUntil > now) {
      reply(res, 403, error('ip_locked', 'Too many failed authentications from this address.'), { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Math.ceil(fail.lockedUntil / 1000)) });
      return 403;
    }
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!auth || !valid.has(auth)) {
      const f = failures.get(ip) ?? { count: 0, lockedUntil: 0 };
      f.count++;
      if (f.count >= LOCKOUT_AFTER) f.lockedUntil = now + LOCKOUT_MS;
      failures.set(ip, f);
      reply(res, 401, error('invalid_credentials', 'Authentication failed.'), { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(limit), 'X-RateLimit-Reset': String(Math.ceil((now + WINDOW_MS) / 1000)) });
      return 401;
    }

    const rate = rateHeaders(auth, now);
    if (forced && forced.count > 0) {
      forced.count--;
      const at = new Date(now + forced.seconds * 1000);
      reply(res, 429, error('rate_limited', 'Slow down.'), { ...rate, 'X-RateLimit-Remaining': '0', 'Retry-After': at.toUTCString() });
      return 429;
    }
    const hits = windows.get(auth) ?? [];
    if (hits.length >= limit) {
      const at = new Date((hits[0] as number) + WINDOW_MS);
      reply(res, 429, error('rate_limited', 'Slow down.'), { ...rate, 'Retry-After': at.toUTCString() });
      return 429;
    }
    hits.push(now);
    windows.set(auth, hits);
    const headers = rateHeaders(auth, now);

    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] !== 'v1') {
      reply(res, 404, error('not_found', 'No such route.'), headers);
      return 404;
    }
    const [, collection, sub, subCollection] = parts;
    if (parts.length === 2 && collection === 'docs' && options.reference) {
      if (options.reference === 'html') {
        const page = '<!doctype html><html><head><title>Alt API</title></head><body><h1>Alt API</h1><p>GET /v1/apps lists apps.</p></body></html>';
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(Buffer.byteLength(page)), ...headers });
        res.end(page);
        return 200;
      }
      reply(res, 200, openApiDocument(origin, evolved), { ...headers, 'Content-Type': 'application/vnd.oai.openapi+json;version=3.0' });
      return 200;
    }
    if (evolved && parts.length === 3 && collection === 'apps' && sub) {
      const app = data.apps!.find((a) => a.publicId === sub);
      if (app && options.jsonLd) reply(res, 200, { '@context': CONTEXT, '@id': `/v1/apps/${sub}`, '@type': 'App', ...app }, headers);
      else if (app) reply(res, 200, app, headers);
      else reply(res, 404, error('not_found', `No app ${sub}.`), headers);
      return app ? 200 : 404;
    }
    let items: Obj[] | undefined;
    if (parts.length === 2 && collection && collection in data) {
      if (req.method === 'POST') {
        const created: Obj = { publicId: `${PREFIX[collection]}new${(data[collection] as Obj[]).length}`, ...(JSON.parse(body || '{}') as Obj) };
        (data[collection] as Obj[]).push(created);
        reply(res, 201, created, headers);
        return 201;
      }
      items = data[collection];
    } else if (parts.length === 4 && collection === 'environments' && subCollection === 'deployments') {
      if (!data.environments!.some((e) => e.publicId === sub)) {
        reply(res, 404, error('not_found', `No environment ${sub}.`), headers);
        return 404;
      }
      items = data.deployments!.filter((d) => d.environmentId === sub);
    }
    if (!items) {
      reply(res, 404, error('not_found', 'No such route.'), headers);
      return 404;
    }

    // URLSearchParams decodes %5B%5D, so raw and percent-encoded brackets both work.
    const wanted = url.searchParams.getAll('publicId[]');
    if (wanted.length > 0) items = items.filter((o) => wanted.includes(String(o.publicId)));
    const start = indexOf(url.searchParams.get('cursor'));
    if (start === undefined) {
      reply(res, 400, error('bad_cursor', 'The cursor is not valid.'), headers);
      return 400;
    }
    let page = items.slice(start, start + pageSize);
    if (options.nestReferences) page = page.map(nest);
    if (options.totalHeader) headers['X-Total-Count'] = String(items.length);
    let next: string | undefined;
    if (start + pageSize < items.length) {
      const n = new URL(url.href);
      n.searchParams.delete('page');
      n.searchParams.set('cursor', cursorOf(start + pageSize));
      next = `${n.pathname}${n.search}`;
    }
    if (options.jsonLd === 'hydra') {
      const members = page.map((o) => ({ '@id': `/v1/${collection}/${String(o.publicId)}`, '@type': 'Thing', ...o }));
      const view = next ? { 'hydra:view': { '@id': url.pathname + url.search, '@type': 'hydra:PartialCollectionView', 'hydra:next': next } } : {};
      reply(res, 200, { '@context': CONTEXT, '@id': url.pathname, '@type': 'hydra:Collection', 'hydra:member': members, ...view }, headers);
      return 200;
    }
    if (next && options.jsonLd !== 'member') headers.Link = `<${next}>; rel="next"`;
    if (req.headers.accept === undefined || options.jsonLd === 'member') {
      const members = page.map((o) => ({ '@id': `/v1/${collection}/${String(o.publicId)}`, '@type': collection, ...o }));
      reply(res, 200, { '@context': CONTEXT, '@type': 'Collection', member: members, ...(next ? { view: { next } } : {}) }, headers);
    } else {
      reply(res, 200, page, headers);
    }
    return 200;
  };

  const byId = new Map<string, Obj>();
  for (const list of Object.values(data)) for (const o of list) byId.set(String(o.publicId), o);
  const nest = (o: Obj): Obj => {
    const out: Obj = {};
    for (const [k, v] of Object.entries(o)) {
      const name = NESTED_NAMES[k];
      if (name === undefined || typeof v !== 'string') {
        out[k] = v;
        continue;
      }
      const target = byId.get(v);
      const label = target?.displayName ?? target?.name;
      out[name] = { publicId: v, ...(label !== undefined ? { displayName: label } : {}) };
    }
    return out;
  };

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      let status: number;
      const answer = () => {
        try {
          status = handle(req, res, body);
        } catch {
          status = 500;
          reply(res, 500, error('internal', 'Something broke.'));
        }
        requests.push({ method: req.method ?? 'GET', path: q === -1 ? target : target.slice(0, q), query: q === -1 ? '' : target.slice(q + 1), status, body });
      };
      if (options.delayMs) setTimeout(answer, options.delayMs);
      else answer();
    });
  });
  if (options.keepAliveSeconds !== undefined) server.keepAliveTimeout = options.keepAliveSeconds * 1000;
  let connections = 0;
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl: `${origin}/v1`,
    origin,
    token,
    requests,
    /** TCP connections accepted so far. */
    get connections(): number {
      return connections;
    },
    clearRequests(): void {
      requests.length = 0;
    },
    addObjects(resource: string, objects: Obj[]): void {
      (data[resource] ??= []).push(...objects);
      for (const o of objects) byId.set(String(o.publicId), o);
    },
    /** The objects as the server holds them (flat references), for tests to compute expectations. */
    objects(resource: string): readonly Obj[] {
      return data[resource] ?? [];
    },
    /** The next `count` authenticated requests get 429 with Retry-After `seconds` ahead (an HTTP date). */
    force429(count: number, seconds: number): void {
      forced = { count, seconds };
    },
    /** The beta changes: see the top of this file. */
    evolveReference(): void {
      evolved = true;
    },
    /** Revokes the token; further requests with it get 401. */
    revoke(tok: string): void {
      valid.delete(tok);
    },
    close(): Promise<void> {
      return new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
    },
  };
}

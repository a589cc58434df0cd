// The API's rules over real HTTP on loopback, against a sandbox started in-process:
// collections, single objects, paging, the publicId[] filter, content negotiation,
// creating objects, /v1/docs, errors, and what a token may see.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/resources.js';
import { startSandboxServer, type RunningSandbox } from '../../src/sandbox/server.js';
import { allObjects, asObjects, createToken, expectRateHeaders, ids, JSON_ACCEPT, req, type Obj } from './helpers.js';

let sb: RunningSandbox;
const get = (path: string, headers: Record<string, string | undefined> = JSON_ACCEPT, token = sb.token) => req(`${sb.url}${path}`, { token, headers });

beforeAll(async () => {
  // A large limit: these tests are about the API, the rate limit has its own file.
  sb = await startSandboxServer({ port: 0, rateLimit: 100_000, seed: 42, log: () => undefined });
});
afterAll(async () => {
  await sb?.close();
});

describe('collections', () => {
  it('a read carries an ETag; If-None-Match with it is a 304 without a body; a change makes a new ETag', async () => {
    const first = await get('/apps');
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    const again = await get('/apps', { ...JSON_ACCEPT, 'if-none-match': String(etag) });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const other = await get('/apps', { ...JSON_ACCEPT, 'if-none-match': '"something-else"' });
    expect(other.status).toBe(200);
    const page2 = await get('/apps?page=2');
    expect(page2.headers.etag).not.toBe(etag);
  });

  it('serves the 8 collection paths under /v1 as bare JSON arrays with Accept: application/json', async () => {
    const env = (await allObjects(sb.origin, 'environments'))[0]!;
    const paths = [...RESOURCES.map((r) => r.path), `/environments/${String(env.publicId)}/deployments`];
    expect(paths).toHaveLength(8);
    for (const p of paths) {
      const res = await get(p);
      expect(res.status, p).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.link).toBeUndefined();
      expectRateHeaders(res);
      const list = asObjects(res.json());
      expect(list.length, p).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/"@/);
    }
  });

  it('objects carry publicId and the default columns of the resource table', async () => {
    for (const r of RESOURCES) {
      const [first] = asObjects((await get(r.path)).json());
      expect(first, r.name).toBeDefined();
      expect(String(first!.publicId).length).toBeGreaterThan(3);
      if (r.prefix) expect(String(first!.publicId).startsWith(r.prefix)).toBe(true);
      for (const c of r.columns) expect(Object.hasOwn(first!, c), `${r.name}.${c}`).toBe(true);
    }
  });

  it('GET /v1/<collection>/{publicId} returns the one object; an unknown ID is 404', async () => {
    const apps = await allObjects(sb.origin, 'apps');
    const app = apps[7]!;
    const res = await get(`/apps/${String(app.publicId)}`);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual(app);
    const missing = await get('/apps/ap-doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/problem+json');
    expectRateHeaders(missing);
  });

  it('/environments/{id}/deployments holds exactly the deployments of that environment', async () => {
    const deployments = await allObjects(sb.origin, 'deployments');
    const envId = String(deployments[3]!.environment);
    const res = await get(`/environments/${envId}/deployments?itemsPerPage=100`);
    expect(ids(res.json())).toEqual(deployments.filter((d) => d.environment === envId).map((d) => d.publicId));
    expect((await get('/environments/en-nope/deployments')).status).toBe(404);
  });
});

describe('paging', () => {
  it('?page=N walks every object exactly once, in collection order; a page past the end is []', async () => {
    const apps = await allObjects(sb.origin, 'apps');
    expect(apps.length).toBeGreaterThanOrEqual(95);
    const seen: string[] = [];
    let page = 1;
    for (;; page++) {
      const list = ids((await get(`/apps?page=${page}`)).json());
      if (list.length === 0) break;
      expect(list.length).toBeLessThanOrEqual(30);
      seen.push(...list);
    }
    expect(seen).toEqual(apps.map((a) => a.publicId));
    expect(page).toBe(Math.ceil(apps.length / 30) + 1);
    expect((await get('/apps?page=999')).json()).toEqual([]);
  });

  it('the first page has the default page size (30); itemsPerPage changes it and is capped at 100', async () => {
    expect(asObjects((await get('/apps')).json())).toHaveLength(30);
    expect(asObjects((await get('/apps?itemsPerPage=7')).json())).toHaveLength(7);
    expect(asObjects((await get('/deployments?itemsPerPage=5000')).json())).toHaveLength(100);
  });

  it('a malformed page or itemsPerPage is a 400 problem', async () => {
    for (const q of ['page=0', 'page=abc', 'page=-1', 'itemsPerPage=0', 'itemsPerPage=x']) {
      const res = await get(`/apps?${q}`);
      expect(res.status, q).toBe(400);
      expect((res.json() as Obj).status).toBe(400);
    }
  });

  it('JSON-LD paging: hydra:next links walk every object once', async () => {
    const apps = await allObjects(sb.origin, 'apps');
    const seen: string[] = [];
    let next: string | undefined = '/v1/apps?itemsPerPage=40';
    while (next) {
      const body = (await req(new URL(next, sb.origin).href, { token: sb.token })).json() as Obj;
      expect(body['hydra:totalItems']).toBe(apps.length);
      seen.push(...ids(body['hydra:member']));
      next = (body['hydra:view'] as Obj | undefined)?.['hydra:next'] as string | undefined;
    }
    expect(seen).toEqual(apps.map((a) => a.publicId));
  });
});

describe('publicId[] filter', () => {
  let apps: Obj[];
  let wanted: string[];
  beforeAll(async () => {
    apps = await allObjects(sb.origin, 'apps');
    // Out of order, beyond the first page, and one unknown ID.
    wanted = [apps[90]!, apps[2]!, apps[45]!].map((a) => String(a.publicId));
  });
  const expected = () => apps.filter((a) => wanted.includes(String(a.publicId))).map((a) => a.publicId);

  it('raw brackets: exactly the listed objects that exist, in collection order, one response', async () => {
    const res = await get(`/apps?${[...wanted, 'ap-unknown000'].map((id) => `publicId[]=${id}`).join('&')}`);
    expect(res.status).toBe(200);
    expect(ids(res.json())).toEqual(expected());
  });

  it('percent-encoded brackets (%5B%5D, any case) give the same answer', async () => {
    const upper = await get(`/apps?${wanted.map((id) => `publicId%5B%5D=${id}`).join('&')}`);
    const lower = await get(`/apps?${wanted.map((id) => `publicId%5b%5d=${id}`).join('&')}`);
    expect(ids(upper.json())).toEqual(expected());
    expect(ids(lower.json())).toEqual(expected());
  });

  it('is not cut by paging: 40 IDs with a page size of 30 come in one response, page 2 is empty', async () => {
    const forty = apps.slice(10, 50).map((a) => String(a.publicId));
    const q = forty.map((id) => `publicId[]=${id}`).join('&');
    expect(ids((await get(`/apps?${q}`)).json())).toEqual(forty);
    expect((await get(`/apps?${q}&page=2`)).json()).toEqual([]);
  });

  it('an ID of another collection or a duplicate does not add objects', async () => {
    const env = (await allObjects(sb.origin, 'environments'))[0]!;
    const id = String(apps[0]!.publicId);
    expect(ids((await get(`/apps?publicId[]=${id}&publicId[]=${id}&publicId[]=${String(env.publicId)}`)).json())).toEqual([id]);
  });

  it('works in JSON-LD too, without a hydra:view', async () => {
    const body = (await get(`/apps?${wanted.map((id) => `publicId[]=${id}`).join('&')}`, {})).json() as Obj;
    expect(ids(body['hydra:member'])).toEqual(expected());
    expect(body['hydra:totalItems']).toBe(3);
    expect(body['hydra:view']).toBeUndefined();
  });
});

describe('content negotiation', () => {
  it('no Accept header: JSON-LD with @context, a hydra:Collection and @id/@type on objects', async () => {
    const res = await get('/apps', {});
    expect(res.headers['content-type']).toMatch(/^application\/ld\+json/);
    const body = res.json() as Obj;
    expect(body['@context']).toBeTypeOf('object');
    expect(body['@type']).toBe('hydra:Collection');
    expect(body['@id']).toBe('/v1/apps');
    const members = asObjects(body['hydra:member']);
    expect(members).toHaveLength(30);
    expect(members[0]!['@id']).toBe(`/v1/apps/${String(members[0]!.publicId)}`);
    expect(members[0]!['@type']).toBe('App');
    expect((body['hydra:view'] as Obj)['hydra:next']).toBe('/v1/apps?page=2');
  });

  it('the same objects in both forms, once the @ members are dropped', async () => {
    const plain = asObjects((await get('/apps')).json());
    const ld = asObjects(((await get('/apps', {})).json() as Obj)['hydra:member']);
    const strip = (o: Obj) => Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith('@')));
    expect(ld.map(strip)).toEqual(plain);
  });

  it('a single object without Accept is JSON-LD; with Accept: application/json it has no @ member', async () => {
    const id = String((await allObjects(sb.origin, 'teams'))[0]!.publicId);
    const ld = (await get(`/teams/${id}`, {})).json() as Obj;
    expect(ld['@id']).toBe(`/v1/teams/${id}`);
    expect(ld['@type']).toBe('Team');
    expect(ld['@context']).toBeDefined();
    expect(Object.keys((await get(`/teams/${id}`)).json() as Obj).some((k) => k.startsWith('@'))).toBe(false);
  });

  it('an Accept the API cannot serve is a 406 problem', async () => {
    const res = await get('/apps', { accept: 'text/csv' });
    expect(res.status).toBe(406);
    expect(res.headers['content-type']).toBe('application/problem+json');
  });
});

describe('creating objects (POST to a collection)', () => {
  it('201 with the stored object: a new publicId, every field exactly as sent with its JSON type', async () => {
    const sent = '{"name":"typed","count":3,"ratio":1.5,"one":1.0,"big":12345678901234567890,"on":false,"none":null,"tags":["a",1],"meta":{"k":"v"},"num":"42"}';
    const res = await req(`${sb.url}/apps`, { method: 'POST', token: sb.token, headers: { ...JSON_ACCEPT, 'content-type': 'application/json' }, body: sent });
    expect(res.status).toBe(201);
    const id = /"publicId":"(ap-[a-z0-9]+)"/.exec(res.text)?.[1];
    expect(id).toBeDefined();
    expect(res.text).toBe(`{"publicId":"${id}",${sent.slice(1)}`);
    expect(res.headers.location).toBe(`/v1/apps/${id}`);
    expectRateHeaders(res);
    // Stored as sent: the single-object GET and the collection return the same text.
    expect((await get(`/apps/${id}`)).text).toBe(res.text);
    expect((await get(`/apps?publicId[]=${id}`)).text).toBe(`[${res.text}]`);
  });

  it('the request log keeps the POST body', async () => {
    await req(`${sb.origin}/_sandbox/requests`, { method: 'DELETE' });
    await req(`${sb.url}/teams`, { method: 'POST', token: sb.token, headers: JSON_ACCEPT, body: '{"name":"Logged","n":7}' });
    const log = asObjects((await req(`${sb.origin}/_sandbox/requests`)).json());
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ method: 'POST', path: '/v1/teams', query: '', status: 201, token: 'sandbox', ip: '127.0.0.1', body: { name: 'Logged', n: 7 } });
  });

  it('rejects bodies it cannot store: 400 invalid JSON, 422 not an object or with a publicId, 415 not JSON', async () => {
    const post = (body: string, contentType = 'application/json') =>
      req(`${sb.url}/apps`, { method: 'POST', token: sb.token, headers: { ...JSON_ACCEPT, 'content-type': contentType }, body });
    expect((await post('{"a":')).status).toBe(400);
    expect((await post('[1,2]')).status).toBe(422);
    expect((await post('{"publicId":"ap-mine"}')).status).toBe(422);
    expect((await post('a=b', 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await post(`{"x":"${'a'.repeat(1024 * 1024 + 10)}"}`)).status).toBe(413);
  });
});

describe('errors', () => {
  it('unknown paths are 404 problems with the rate-limit headers', async () => {
    for (const p of ['/nope', '/apps/ap-x/more', '/environments/en-x/domains', '/', '/apps/']) {
      const res = await get(p);
      expect(res.status, p).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, title: 'Not found' });
      expect((res.json() as Obj).type).toBeTypeOf('string');
      expect((res.json() as Obj).detail).toBeTypeOf('string');
      expectRateHeaders(res);
    }
    expect((await req(`${sb.origin}/elsewhere`, { token: sb.token })).status).toBe(404);
  });

  it('HEAD is answered like GET, without a body', async () => {
    const res = await req(`${sb.url}/apps`, { method: 'HEAD', token: sb.token, headers: JSON_ACCEPT });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(Number(res.headers['content-length'])).toBeGreaterThan(100);
    expectRateHeaders(res);
  });

  it('other methods are 405 with Allow', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/apps', 'GET, HEAD, POST'],
      ['PUT', '/apps/ap-x', 'GET, HEAD'],
      ['PATCH', '/environments/en-x/deployments', 'GET, HEAD'],
      ['POST', '/docs', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await req(`${sb.url}${path}`, { method, token: sb.token, headers: JSON_ACCEPT });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expectRateHeaders(res);
    }
  });
});

describe('/v1/docs', () => {
  it('is an OpenAPI 3.1 document built from the resource table when JSON is asked for', async () => {
    const res = await get('/docs');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, { operationId: string }>>; components: { schemas: Record<string, { properties: Obj }> } };
    expect(doc.openapi).toBe('3.1.0');
    for (const r of RESOURCES) {
      expect(Object.keys(doc.paths[r.path] ?? {}).sort(), r.path).toEqual(['get', 'post']);
      expect(doc.paths[`${r.path}/{publicId}`]?.get).toBeDefined();
    }
    expect(doc.paths['/environments/{id}/deployments']?.get).toBeDefined();
    expect(doc.paths['/docs']?.get).toBeDefined();
    expect(Object.keys(doc.components.schemas.App!.properties)).toEqual(expect.arrayContaining(['publicId', 'name', 'status', 'region', 'team', 'updatedAt']));
  });

  it('is a readable HTML page otherwise', async () => {
    const res = await get('/docs', {});
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<h1>/);
    expect(res.text).toContain('/v1/environments/{id}/deployments');
    expect((await get('/docs', { accept: 'text/html' })).headers['content-type']).toMatch(/^text\/html/);
  });

  it('needs the token like every request', async () => {
    const res = await req(`${sb.url}/docs`, { headers: JSON_ACCEPT });
    expect(res.status).toBe(401);
  });
});

describe('a token sees what its person sees', () => {
  it('a member of one team sees that team, its apps and their environments, and nothing else', async () => {
    const people = await allObjects(sb.origin, 'people');
    const member = people.find((p) => p.role !== 'owner' && Array.isArray(p.teams) && p.teams.length === 1)!;
    const team = String(member.team);
    const token = await createToken(sb.origin, 'member-of-one', String(member.publicId));
    const all = await allObjects(sb.origin, 'apps');
    const mine = all.filter((a) => a.team === team);
    const other = all.find((a) => a.team !== team)!;

    const seen = ids((await get('/apps?itemsPerPage=100', JSON_ACCEPT, token)).json());
    // Objects created by the tests without a team are seen by everyone.
    expect(seen.filter((id) => all.find((a) => a.publicId === id)?.team !== undefined)).toEqual(mine.map((a) => a.publicId));
    expect(ids((await get('/teams', JSON_ACCEPT, token)).json())).toEqual([team]);
    expect((await get(`/apps/${String(other.publicId)}`, JSON_ACCEPT, token)).status).toBe(404);
    expect(ids((await get(`/apps?publicId[]=${String(other.publicId)}&publicId[]=${String(mine[0]!.publicId)}`, JSON_ACCEPT, token)).json())).toEqual([mine[0]!.publicId]);

    const envs = asObjects((await get('/environments?itemsPerPage=100', JSON_ACCEPT, token)).json());
    const mineIds = new Set(mine.map((a) => a.publicId));
    expect(envs.length).toBeGreaterThan(0);
    for (const e of envs) expect(mineIds.has(e.app)).toBe(true);
    const foreignEnv = (await allObjects(sb.origin, 'environments')).find((e) => !mineIds.has(e.app))!;
    expect((await get(`/environments/${String(foreignEnv.publicId)}/deployments`, JSON_ACCEPT, token)).status).toBe(404);
  });

  it('the start token acts as the owner and sees every seeded object', async () => {
    const all = await allObjects(sb.origin, 'domains');
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const list = ids((await get(`/domains?page=${page}&itemsPerPage=100`)).json());
      if (list.length === 0) break;
      seen.push(...list);
    }
    expect(seen).toEqual(all.map((d) => d.publicId));
  });
});

// Tokens, failed authentications and the lockout, and the admin endpoints, over real HTTP
// on loopback. "Per IP" is proven by a second client on 127.0.0.2 (still loopback).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxServer, type RunningSandbox } from '../../src/sandbox/server.js';
import { asObjects, createToken, expectRateHeaders, ids, JSON_ACCEPT, req, type Obj } from './helpers.js';

let sb: RunningSandbox;
const api = (token: string | undefined, localAddress?: string, path = '/apps?itemsPerPage=1') => req(`${sb.url}${path}`, { token, headers: JSON_ACCEPT, localAddress });

describe('tokens', () => {
  beforeEach(async () => {
    sb = await startSandboxServer({ rateLimit: 1000, log: () => undefined });
  });
  afterEach(async () => {
    await sb.close();
  });

  it('the full token is shown once at creation; the listing has name, last four and creation date only', async () => {
    const res = await req(`${sb.origin}/_sandbox/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"ci"}' });
    expect(res.status).toBe(201);
    const created = res.json() as Obj;
    const token = String(created.token);
    expect(created).toMatchObject({ name: 'ci', last4: token.slice(-4) });
    expect(String(created.createdAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await api(token)).status).toBe(200);

    const listing = await req(`${sb.origin}/_sandbox/tokens`);
    const list = asObjects(listing.json());
    expect(list.map((t) => t.name)).toEqual(['sandbox', 'ci']);
    expect(list[1]).toEqual({ name: 'ci', last4: token.slice(-4), createdAt: created.createdAt, person: created.person });
    expect(list[0]!.last4).toBe(sb.token.slice(-4));
    expect(listing.text).not.toContain(token);
    expect(listing.text).not.toContain(sb.token);
  });

  it('rejects a duplicate name (409) and a bad name or person (422)', async () => {
    const post = (body: string) => req(`${sb.origin}/_sandbox/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('{"name":"sandbox"}')).status).toBe(409);
    expect((await post('{"name":""}')).status).toBe(422);
    expect((await post('{}')).status).toBe(422);
    expect((await post('{"name":"x","person":"pe-nobody"}')).status).toBe(422);
    expect((await post('not json')).status).toBe(400);
  });

  it('a deleted token is rejected from the next request on, while the other tokens keep working', async () => {
    const a = await createToken(sb.origin, 'a');
    const b = await createToken(sb.origin, 'b');
    expect((await api(a)).status).toBe(200);
    const del = await req(`${sb.origin}/_sandbox/tokens/a`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    const rejected = await api(a);
    expect(rejected.status).toBe(401);
    expect((await api(b)).status).toBe(200);
    expect((await api(sb.token)).status).toBe(200);
    expect(asObjects((await req(`${sb.origin}/_sandbox/tokens`)).json()).map((t) => t.name)).toEqual(['sandbox', 'b']);
    expect((await req(`${sb.origin}/_sandbox/tokens/a`, { method: 'DELETE' })).status).toBe(404);
  });

  it('a rejected credential is a 401 problem with WWW-Authenticate and the rate-limit headers', async () => {
    const missing = await api(undefined);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(missing.headers['content-type']).toBe('application/problem+json');
    expectRateHeaders(missing);
    const unknown = await api('hsb_thisisnotatoken');
    expect(unknown.status).toBe(401);
    expect(unknown.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(unknown.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
    expectRateHeaders(unknown);
    expect(unknown.headers['x-ratelimit-remaining']).toBe('8');
    const basic = await req(`${sb.url}/apps`, { headers: { authorization: `Basic ${Buffer.from(`x:${sb.token}`).toString('base64')}` } });
    expect(basic.status).toBe(401);
  });

  it('tokens act as a person: the person given at creation, else the owner', async () => {
    const people = asObjects((await req(`${sb.origin}/_sandbox/objects/people`)).json());
    const viewer = people.find((p) => p.role !== 'owner')!;
    const res = await req(`${sb.origin}/_sandbox/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'v', person: viewer.publicId }) });
    expect((res.json() as Obj).person).toBe(viewer.publicId);
    const plain = await createToken(sb.origin, 'plain');
    const owner = people.find((p) => p.role === 'owner')!;
    expect(asObjects((await req(`${sb.origin}/_sandbox/tokens`)).json()).find((t) => t.name === 'plain')?.person).toBe(owner.publicId);
    expect(ids((await api(plain, undefined, '/teams')).json())).toEqual(ids((await api(sb.token, undefined, '/teams')).json()));
  });
});

describe('lockout (3 failures, 600 s)', () => {
  beforeEach(async () => {
    sb = await startSandboxServer({ rateLimit: 1000, lockoutAfter: 3, lockoutSeconds: 600, log: () => undefined });
  });
  afterEach(async () => {
    await sb.close();
  });

  it('after N failed authentications the IP is refused even with a valid token; another IP is not', async () => {
    expect((await api(sb.token)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await api('hsb_wrong')).status).toBe(401);

    const locked = await api(sb.token);
    expect(locked.status).toBe(429);
    expect(locked.json()).toMatchObject({ status: 429, title: 'Locked out' });
    const retry = Number(locked.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(600);
    expectRateHeaders(locked);
    expect(locked.headers['x-ratelimit-remaining']).toBe('0');
    // Every request, whatever its token or path, and the docs too.
    expect((await api('hsb_wrong')).status).toBe(429);
    expect((await api(undefined, undefined, '/docs')).status).toBe(429);

    const other = await api(sb.token, '127.0.0.2');
    expect(other.status).toBe(200);
    expect((await api('hsb_wrong', '127.0.0.2')).status).toBe(401);

    const log = asObjects((await req(`${sb.origin}/_sandbox/requests`)).json());
    expect(log.map((e) => `${String(e.ip)} ${String(e.status)}`)).toEqual([
      '127.0.0.1 200',
      '127.0.0.1 401',
      '127.0.0.1 401',
      '127.0.0.1 401',
      '127.0.0.1 429',
      '127.0.0.1 429',
      '127.0.0.1 429',
      '127.0.0.2 200',
      '127.0.0.2 401',
    ]);
  });

  it('failed authentications are counted apart from the token’s requests', async () => {
    await api('hsb_wrong');
    await api('hsb_wrong');
    const ok = await api(sb.token);
    expect(ok.status).toBe(200);
    // Two failures did not spend the token's window, and a success does not clear the failures.
    expect(ok.headers['x-ratelimit-remaining']).toBe('999');
    expect((await api('hsb_wrong')).status).toBe(401);
    expect((await api(sb.token)).status).toBe(429);
  });

  it('the admin endpoints are not locked out, not rate limited and not logged', async () => {
    for (let i = 0; i < 3; i++) await api(undefined);
    expect((await api(sb.token)).status).toBe(429);
    await req(`${sb.origin}/_sandbox/requests`, { method: 'DELETE' });
    const tokens = await req(`${sb.origin}/_sandbox/tokens`);
    expect(tokens.status).toBe(200);
    expect(tokens.headers['x-ratelimit-limit']).toBeUndefined();
    expect(asObjects((await req(`${sb.origin}/_sandbox/requests`)).json())).toEqual([]);
  });
});

describe('admin hooks for tests', () => {
  beforeEach(async () => {
    sb = await startSandboxServer({ rateLimit: 1000, log: () => undefined });
  });
  afterEach(async () => {
    await sb.close();
  });

  it('the request log records method, path, raw query, status, token name, ip, time; DELETE clears it', async () => {
    await api(sb.token, undefined, '/apps?publicId%5B%5D=ap-a&publicId[]=ap-b');
    await api(undefined, undefined, '/teams');
    const log = asObjects((await req(`${sb.origin}/_sandbox/requests`)).json());
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ method: 'GET', path: '/v1/apps', query: 'publicId%5B%5D=ap-a&publicId[]=ap-b', status: 200, token: 'sandbox', ip: '127.0.0.1', body: null });
    expect(log[1]).toMatchObject({ path: '/v1/teams', status: 401, token: null });
    expect(Date.parse(String(log[0]!.at))).not.toBeNaN();
    expect(JSON.stringify(log)).not.toContain(sb.token);
    expect((await req(`${sb.origin}/_sandbox/requests`, { method: 'DELETE' })).status).toBe(204);
    expect((await req(`${sb.origin}/_sandbox/requests`)).json()).toEqual([]);
  });

  it('planted objects are served as given, hostile names and big numbers included', async () => {
    const hostile = '\u001b]0;pwned\u0007\u009b2J\u202eevil\tname\nnext';
    const body = `[{"publicId":"ap-hostile1","name":${JSON.stringify(hostile)},"status":"running","big":12345678901234567890},{"name":"no id"}]`;
    const res = await req(`${sb.origin}/_sandbox/objects/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(201);
    const [, second] = asObjects(res.json());
    expect(String(second!.publicId)).toMatch(/^ap-[a-z0-9]+$/);
    const one = await api(sb.token, undefined, '/apps/ap-hostile1');
    expect(one.text).toBe(`{"publicId":"ap-hostile1","name":${JSON.stringify(hostile)},"status":"running","big":12345678901234567890}`);
    // Planting the same publicId again replaces it in place.
    await req(`${sb.origin}/_sandbox/objects/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"publicId":"ap-hostile1","name":"tame"}' });
    expect((await api(sb.token, undefined, '/apps/ap-hostile1')).json()).toEqual({ publicId: 'ap-hostile1', name: 'tame' });
    expect((await req(`${sb.origin}/_sandbox/objects/nothing`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('unknown admin paths are 404 and wrong methods 405', async () => {
    expect((await req(`${sb.origin}/_sandbox/nope`)).status).toBe(404);
    const r = await req(`${sb.origin}/_sandbox/tokens`, { method: 'PUT' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, POST');
  });
});

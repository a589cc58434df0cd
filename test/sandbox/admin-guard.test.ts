// The sandbox is a server people run (issue 12): a web page in the user's browser must not
// be able to mint or read tokens (CSRF, DNS rebinding), the request log is bounded in bytes,
// header overflow is a 431, and binding a non-loopback address warns.

import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_LOG_BYTES, MAX_LOGGED_BODY_BYTES, RequestLog } from '../../src/sandbox/requestlog.js';
import { startSandboxServer, type RunningSandbox } from '../../src/sandbox/server.js';
import { JSON_ACCEPT, req } from './helpers.js';

let sb: RunningSandbox;
let lines: string[];

beforeEach(async () => {
  lines = [];
  sb = await startSandboxServer({ rateLimit: 100_000, log: (l) => lines.push(l) });
});
afterEach(async () => {
  await sb.close();
});

const JSON_TYPE = { 'content-type': 'application/json' };

describe('admin endpoints against CSRF and DNS rebinding', () => {
  it('a text/plain POST (what any web page may send) mints nothing', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const res = await req(`${sb.origin}/_sandbox/tokens`, { method: 'POST', headers: { 'content-type': type }, body: '{"name":"csrf"}' });
      expect(res.status, type).toBe(415);
    }
    const planted = await req(`${sb.origin}/_sandbox/objects/apps`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"publicId":"ap-csrf"}' });
    expect(planted.status).toBe(415);
    const list = await req(`${sb.origin}/_sandbox/tokens`);
    expect(JSON.stringify(list.json())).not.toContain('csrf');
  });

  it('a foreign Host (DNS rebinding) or a foreign Origin is refused, for reading too', async () => {
    for (const headers of [{ host: 'evil.invalid' }, { host: `evil.invalid:${new URL(sb.origin).port}` }, { origin: 'https://evil.invalid' }, { host: '127.0.0.1.evil.invalid' }]) {
      const read = await req(`${sb.origin}/_sandbox/tokens`, { headers });
      expect(read.status, JSON.stringify(headers)).toBe(403);
      const mint = await req(`${sb.origin}/_sandbox/tokens`, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: '{"name":"rebound"}' });
      expect(mint.status).toBe(403);
    }
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const ok = await req(`${sb.origin}/_sandbox/tokens`, { headers: { host: `${host}:${new URL(sb.origin).port}`, origin: `http://${host}` } });
      expect(ok.status, host).toBe(200);
    }
    const good = await req(`${sb.origin}/_sandbox/tokens`, { method: 'POST', headers: JSON_TYPE, body: '{"name":"fine"}' });
    expect(good.status).toBe(201);
  });
});

describe('the request log is bounded in bytes', () => {
  it('keeps the newest entries within MAX_LOG_BYTES, and no body past its own cap', () => {
    const log = new RequestLog();
    const body = { data: 'x'.repeat(600 * 1024) };
    const small = { data: 'y'.repeat(30 * 1024) };
    for (let i = 0; i < 300; i++) {
      log.add({ method: 'POST', path: `/v1/apps/${i}`, query: '', status: 201, token: 'sandbox', ip: '127.0.0.1', at: 'now', body: i % 2 ? body : small });
    }
    const text = log.toJson();
    expect(text.length).toBeLessThanOrEqual(MAX_LOG_BYTES + 2);
    const entries = JSON.parse(text) as { path: string; body: unknown }[];
    expect(entries.length).toBeGreaterThan(100);
    expect(entries[entries.length - 1]?.path).toBe('/v1/apps/299');
    expect(entries.find((e) => e.path === '/v1/apps/299')?.body).toMatch(/not kept/);
    expect(entries.find((e) => e.path === '/v1/apps/298')?.body).toEqual(small);
    expect(MAX_LOGGED_BODY_BYTES).toBeLessThan(600 * 1024);
  });

  it('over HTTP: the log answers as it logged', async () => {
    const res = await req(`${sb.url}/teams`, { method: 'POST', token: sb.token, headers: { ...JSON_ACCEPT, ...JSON_TYPE }, body: '{"name":"Logged"}' });
    expect(res.status).toBe(201);
    const log = (await req(`${sb.origin}/_sandbox/requests`)).json() as { body: unknown }[];
    expect(log.at(-1)?.body).toEqual({ name: 'Logged' });
  });
});

describe('header overflow and binding', () => {
  it('too many header bytes get 431, not 400', async () => {
    const port = Number(new URL(sb.origin).port);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`GET /v1/apps HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('binding a non-loopback address prints a warning; loopback does not', async () => {
    expect(lines.join('\n')).not.toMatch(/warning/);
    const wide: string[] = [];
    const open = await startSandboxServer({ host: '0.0.0.0', log: (l) => wide.push(l) });
    await open.close();
    expect(wide.join('\n')).toMatch(/^warning: the sandbox listens on 0\.0\.0\.0/m);
  });
});

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ApiError, AuthError, HostctlError, NetworkError, NotFoundError, RateLimitError, UsageError } from '../../src/errors.js';
import { appendQuery, setQueryParam, MAX_BODY_BYTES } from '../../src/http/client.js';
import { errorDetail } from '../../src/http/failures.js';
import { oneLine } from '../../src/output/sanitize.js';
import { FileBudgetStore, SLOT_MARGIN_MS } from '../../src/http/budget.js';
import { BASE_BACKOFF_MS, DEFAULT_RETRIES } from '../../src/http/retry.js';
import { VirtualClock } from '../support/inproc.js';
import { closeAfterEach, TOKEN, stub, json, harness, newState, closedPort, rejection, cleanupDirs, onFakeTimers } from './http-support.js';
import { lastRate } from '../../src/http/budget.js';
import { ResponseCache } from '../../src/http/cache.js';

const track = closeAfterEach();
afterAll(cleanupDirs);

/**
 * The backoffs of a GET's transient retries, slept on the client's clock: each within
 * its "equal jitter" range (half fixed, half random) of a ceiling that doubles.
 */
function expectBackoffs(sleeps: number[]): void {
  expect(sleeps).toHaveLength(DEFAULT_RETRIES);
  sleeps.forEach((ms, attempt) => {
    const ceiling = BASE_BACKOFF_MS * 2 ** attempt;
    expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
    expect(ms).toBeLessThanOrEqual(ceiling);
  });
}

describe('requests', () => {
  it('sends Accept, the bearer token and the User-Agent, and counts requests', async () => {
    const s = track(await stub((_req, res) => json(res, [{ publicId: 'ap-1' }])));
    const h = track(harness(s.baseUrl));
    const res = await h.client.request({ path: '/apps' });
    expect(res.status).toBe(200);
    expect(res.statusText).toBe('OK');
    expect(res.json()).toEqual([{ publicId: 'ap-1' }]);
    expect(res.url.href).toBe(`${s.baseUrl}/apps`);
    expect(s.seen[0]!.headers.accept).toBe('application/json');
    expect(s.seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(s.seen[0]!.headers['user-agent']).toBe('hostctl/test');
    expect(h.client.requestCount).toBe(1);
  });

  it('keeps [] raw in query keys and percent-encodes values', async () => {
    const s = track(await stub((_req, res) => json(res, [])));
    const h = track(harness(s.baseUrl));
    await h.client.request({ path: 'apps?x=1', query: [['publicId[]', 'ap-a b'], ['publicId[]', 'ap-&=']] });
    expect(s.seen[0]!.url).toBe('/v1/apps?x=1&publicId[]=ap-a%20b&publicId[]=ap-%26%3D');
  });

  it('resolves relative paths under the base URL and refuses other origins before sending', async () => {
    const s = track(await stub((_req, res) => json(res, [])));
    const h = track(harness(s.baseUrl));
    expect(h.client.resolveUrl('/apps').href).toBe(`${s.baseUrl}/apps`);
    expect(h.client.resolveUrl('apps').href).toBe(`${s.baseUrl}/apps`);
    expect(h.client.resolveUrl('//evil.invalid/x').origin).toBe(s.origin);
    expect(h.client.resolveUrl(`${s.origin}/v1/teams?page=2`).href).toBe(`${s.origin}/v1/teams?page=2`);
    const err = await rejection(h.client.request({ path: 'https://evil.invalid/v1/apps' }));
    expect(err).toBeInstanceOf(UsageError);
    const otherPort = await rejection(h.client.request({ path: `http://127.0.0.1:${s.port + 1}/v1/apps` }));
    expect(otherPort).toBeInstanceOf(UsageError);
    expect(h.client.requestCount).toBe(0);
    expect(s.seen).toHaveLength(0);
  });

  it('refuses an Authorization header from the caller, and says how the token is chosen', async () => {
    const s = track(await stub((_req, res) => json(res, [])));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/apps', headers: { authorization: 'Bearer other' } }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('hostctl sets the Authorization header itself, from the token of this profile.');
    expect((err as UsageError).hint).toBe('Use HOSTCTL_TOKEN or "hostctl auth login" to choose the token.');
    expect(s.seen).toHaveLength(0);
  });

  it('a header HTTP cannot carry, or one hostctl sets itself, is refused with its reason and next step before anything is sent', async () => {
    const s = track(await stub((_req, res) => json(res, [])));
    const h = track(harness(s.baseUrl));
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ 'X Note': '1' }, '"X Note" is not a valid header name.', 'Header names are letters, digits and - only.'],
      [{ 'X-Note': 'a\r\nX-Other: b' }, 'The value of header X-Note contains a line break.', 'Give each header on one line.'],
      [{ 'X-Note': 'bell\u0007' }, 'The value of header X-Note contains control characters or characters HTTP cannot carry.', 'Give printable characters only (Latin-1; percent-encode anything else).'],
      // Each header about the connection or its framing, which undici sets or must not send.
      ...['Host', 'Content-Length', 'Transfer-Encoding', 'Connection', 'Expect', 'Upgrade', 'Keep-Alive', 'TE', 'Trailer', 'Proxy-Connection'].map(
        (name): [Record<string, string>, string, string] => [{ [name]: 'x' }, `hostctl sets the ${name} header itself.`, `Leave out -H '${name}: …'.`],
      ),
    ];
    for (const [headers, message, hint] of cases) {
      const err = await rejection(h.client.request({ path: '/apps', headers }));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toBe(message);
      expect((err as UsageError).hint).toBe(hint);
    }
    expect(s.seen).toHaveLength(0);
  });

  it('a method that is not an HTTP token is refused, named on one line, before anything is sent', async () => {
    const s = track(await stub((_req, res) => json(res, [])));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ method: 'get /x', path: '/apps' }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('"GET /X" is not an HTTP method.');
    expect((err as UsageError).hint).toBe('Use GET, POST, PUT, PATCH or DELETE.');
    expect(s.seen).toHaveLength(0);
    expect(h.client.requestCount).toBe(0);
  });

  it('a closed client sends nothing more: a request after close() is refused', async () => {
    const s = track(await stub((_req, res) => json(res, [])));
    const h = harness(s.baseUrl);
    await h.client.request({ path: '/apps' });
    await h.client.close();
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(HostctlError);
    expect(err.message).toBe('The HTTP client is closed.');
    expect(s.seen).toHaveLength(1);
  });

  it('lets the caller override Accept and sends a JSON body with its content type', async () => {
    const s = track(await stub((_req, res) => json(res, { ok: true }, 201)));
    const h = track(harness(s.baseUrl));
    const res = await h.client.request({ method: 'post', path: '/apps', headers: { Accept: 'application/ld+json' }, body: '{"name":"x"}' });
    expect(res.status).toBe(201);
    expect(s.seen[0]!.method).toBe('POST');
    expect(s.seen[0]!.headers.accept).toBe('application/ld+json');
    expect(s.seen[0]!.headers['content-type']).toBe('application/json');
    expect(s.seen[0]!.body).toBe('{"name":"x"}');
  });

  it("keeps the caller's Content-Type for a body", async () => {
    const s = track(await stub((_req, res) => json(res, { ok: true })));
    const h = track(harness(s.baseUrl));
    await h.client.request({ method: 'PUT', path: '/apps/ap-1/readme', headers: { 'Content-Type': 'text/markdown' }, body: '# Hi' });
    expect(s.seen[0]!.headers['content-type']).toBe('text/markdown');
    expect(s.seen[0]!.body).toBe('# Hi');
  });

  it('query helpers keep other parameters as they were', () => {
    const u = appendQuery(new URL('http://127.0.0.1/v1/apps?a=%5B1%5D'), [['publicId[]', 'x']]);
    expect(u.search).toBe('?a=%5B1%5D&publicId[]=x');
    expect(setQueryParam(u, 'page', '3').search).toBe('?a=%5B1%5D&publicId[]=x&page=3');
    expect(setQueryParam(new URL('http://127.0.0.1/x?page=2&b=1'), 'page', '3').search).toBe('?b=1&page=3');
    // Nothing to append leaves the URL as it was, even a query left empty after its '?'.
    expect(appendQuery(new URL('http://127.0.0.1/v1/apps?'), []).href).toBe('http://127.0.0.1/v1/apps?');
  });
});

describe('status mapping', () => {
  it('401 → AuthError, marks the fingerprint in the saved state file, and is never retried', async () => {
    const s = track(await stub((_req, res) => json(res, { title: 'Unauthorized' }, 401, { 'retry-after': '1', 'x-ratelimit-remaining': '3' })));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(AuthError);
    expect(s.seen).toHaveLength(1);
    expect(h.state.rejected(h.fingerprint)?.status).toBe(401);
    const onDisk = readFileSync(h.statePath, 'utf8');
    expect(onDisk).toContain(h.fingerprint);
    expect(onDisk).not.toContain(TOKEN);
    // A 401's rate headers count failed logins, not this token's window.
    expect(await lastRate(h.statePath, h.fingerprint)).toBeUndefined();
  });

  it('401 with acceptAnyStatus resolves but still marks the token', async () => {
    const s = track(await stub((_req, res) => json(res, { title: 'Unauthorized' }, 401)));
    const h = track(harness(s.baseUrl));
    const res = await h.client.request({ path: '/apps', acceptAnyStatus: true });
    expect(res.status).toBe(401);
    expect(h.state.rejected(h.fingerprint)).toBeDefined();
  });

  it('403 → AuthError without marking the token', async () => {
    const s = track(await stub((_req, res) => json(res, { detail: 'You may not see billing.' }, 403)));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/payment-methods' }));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toContain('The API refused this request (403');
    expect(err.message).toContain('You may not see billing.');
    expect(h.state.rejected(h.fingerprint)).toBeUndefined();
  });

  it('404 → NotFoundError', async () => {
    const s = track(await stub((_req, res) => json(res, { error: 'no such thing' }, 404)));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/nope' }));
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).exitCode).toBe(3);
  });

  it('5xx with a JSON body → ApiError quoting one clean line of the detail, after the retries', async () => {
    const s = track(await stub((_req, res) => json(res, { type: 'x', title: 'Boom', detail: 'db\u001b[31m down\nsince 5 min\u202e' }, 503)));
    const clock = new VirtualClock();
    const h = track(harness(s.baseUrl, { clock }));
    const err = await rejection(h.client.request({ path: '/apps' }));
    // A GET answered 503 is sent again twice, after growing backoffs, then reported.
    expect(s.seen).toHaveLength(1 + DEFAULT_RETRIES);
    expectBackoffs(clock.sleeps);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).exitCode).toBe(1);
    expect(err.message).toContain('503 Service Unavailable');
    // The whole terminal sequence goes, not only its ESC (one sanitiser, issue 12).
    expect(err.message).toContain('"db down since 5 min"');
    expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  it('an HTML 502 page is never echoed', async () => {
    const s = track(await stub((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1><script>alert(1)</script></body></html>');
    }));
    const clock = new VirtualClock();
    const h = track(harness(s.baseUrl, { clock }));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(s.seen).toHaveLength(1 + DEFAULT_RETRIES);
    expectBackoffs(clock.sleeps);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toContain('an HTML error page');
    expect(err.message).not.toContain('<');
    expect(`${err.message}${(err as ApiError).hint}`).not.toContain('script');
  });

  it('other 4xx → ApiError; acceptAnyStatus resolves with the status instead', async () => {
    const s = track(await stub((_req, res) => json(res, { message: 'bad field' }, 422)));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/apps', method: 'POST', body: '{}' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toContain('422');
    expect(err.message).toContain('bad field');
    const res = await h.client.request({ path: '/apps', acceptAnyStatus: true });
    expect(res.status).toBe(422);
    expect(res.json()).toEqual({ message: 'bad field' });
  });

  it('errorDetail picks detail, title, message or error, and never HTML', () => {
    expect(errorDetail('{"title":"T","detail":"D"}', 'application/problem+json')).toBe('"D"');
    expect(errorDetail('{"error":{"message":"inner"}}', 'application/json')).toBe('"inner"');
    expect(errorDetail('<!DOCTYPE html><p>x</p>', 'text/plain')).toBe('an HTML error page');
    expect(errorDetail('not json', 'text/plain')).toBeUndefined();
    expect(oneLine('a'.repeat(500)).length).toBeLessThanOrEqual(160);
  });
});

describe('response bodies', () => {
  const CHECK_BASE_URL = 'Check that --base-url points at the API (it ends in /v1); run with --verbose to see the exchange.';
  const TRY_AGAIN = 'Try again; if it keeps happening the server is at fault. Run with --verbose to see the exchange.';
  const cases: Array<[string, (res: import('node:http').ServerResponse) => void, RegExp, string]> = [
    ['an empty 200 body', (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(); }, /empty response/, CHECK_BASE_URL],
    // Blank is empty too: there is nothing to parse, not something broken.
    ['a blank 200 body', (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(' \r\n'); }, /^The API sent an empty response for GET \/v1\/apps where JSON was expected\.$/, CHECK_BASE_URL],
    ['invalid JSON', (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"a": nope}'); }, /invalid or incomplete JSON/, TRY_AGAIN],
    ['truncated JSON', (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('[{"publicId":"ap-1"},{"publ'); }, /invalid or incomplete JSON/, TRY_AGAIN],
    ['a 200 HTML page', (res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end('<html></html>'); }, /not JSON \(text\/html, a web page rather than the API\)/, CHECK_BASE_URL],
    ['a 200 text/plain body', (res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('[]'); }, /not JSON \(text\/plain\)/, CHECK_BASE_URL],
    // A Content-Type of parameters only names no type: said so, rather than "()".
    ['a 200 body whose type is only a charset', (res) => { res.writeHead(200, { 'content-type': '; charset=utf-8' }); res.end('[]'); }, /^The API sent a response that is not JSON \(no content type\) for GET \/v1\/apps\.$/, CHECK_BASE_URL],
  ];
  for (const [name, reply, message, hint] of cases) {
    it(`${name} → ApiError(1) from json(), with the status and the next step`, async () => {
      const s = track(await stub((_req, res) => reply(res)));
      const h = track(harness(s.baseUrl));
      const res = await h.client.request({ path: '/apps' });
      let err: unknown;
      try {
        res.json();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).exitCode).toBe(1);
      expect((err as ApiError).message).toMatch(message);
      expect((err as ApiError).hint).toBe(hint);
      expect((err as ApiError).status).toBe(200);
    });
  }

  it('reads JSON that names no type, after a byte-order mark; json() parses once and gives the same value each time', async () => {
    const s = track(await stub((_req, res) => {
      res.writeHead(200);
      res.end('\uFEFF{"publicId":"ap-1"}');
    }));
    const h = track(harness(s.baseUrl));
    const res = await h.client.request({ path: '/apps/ap-1' });
    expect(res.headers['content-type']).toBeUndefined();
    const value = res.json();
    expect(value).toEqual({ publicId: 'ap-1' });
    expect(res.json()).toBe(value);
  });

  it('names the request as last sent: a POST that a 303 turned into a GET is the GET of the new place', async () => {
    const s = track(await stub((req, res) => {
      if (req.url === '/v1/jobs') { res.writeHead(303, { location: '/v1/jobs/1' }); res.end(); }
      else { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('queued'); }
    }));
    const h = track(harness(s.baseUrl));
    const res = await h.client.request({ method: 'POST', path: '/jobs', body: '{}' });
    expect(res.url.pathname).toBe('/v1/jobs/1');
    expect(() => res.json()).toThrow('The API sent a response that is not JSON (text/plain) for GET /v1/jobs/1.');
  });

  it('accepts JSON-LD', async () => {
    const s = track(await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/ld+json; charset=utf-8' });
      res.end('{"@context":"/c","hydra:member":[]}');
    }));
    const h = track(harness(s.baseUrl));
    const res = await h.client.request({ path: '/apps' });
    expect(res.json()).toEqual({ '@context': '/c', 'hydra:member': [] });
  });

  it('stops reading a body past 32 MiB (streamed, no length announced) → ApiError', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let written = 0;
    const s = track(await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
    }));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toContain('more than 32 MiB');
    expect(MAX_BODY_BYTES).toBe(32 * 1024 * 1024);
  });

  it('refuses a body that announces more than 32 MiB without reading it', async () => {
    const s = track(await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) });
      res.write('[');
    }));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toContain('more than 32 MiB');
  });
});

describe('network failures', () => {
  it('connection refused → NetworkError(6) naming host and port', async () => {
    const port = await closedPort();
    const h = track(harness(`http://127.0.0.1:${port}/v1`));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).exitCode).toBe(6);
    expect(err.message).toBe(`Could not connect to 127.0.0.1:${port}: connection refused.`);
    expect((err as NetworkError).hint).toBe('Is the server running, and is the base URL right (from --base-url)?');
  });

  /** Resolves once undici has received the head of a response (its diagnostics channel). */
  function headArrives(): Promise<void> {
    return new Promise((resolve) => {
      const seen = () => {
        unsubscribe('undici:request:headers', seen);
        resolve();
      };
      subscribe('undici:request:headers', seen);
    });
  }

  it('a server that never answers → timeout NetworkError', async () => {
    let asked!: () => void;
    const requested = new Promise<void>((resolve) => (asked = resolve));
    const s = track(await stub(() => asked()));
    const err = await onFakeTimers(async () => {
      const h = track(harness(s.baseUrl, { timeoutMs: 300 }));
      const pending = rejection(h.client.request({ path: '/apps' }));
      await requested;
      await vi.advanceTimersByTimeAsync(300);
      return pending;
    });
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain('No answer from 127.0.0.1:');
    expect(err.message).toContain('within 0.3s.');
    expect((err as NetworkError).hint).toBe('Raise --timeout or try later.');
    expect(err.message).not.toContain('stalled part-way');
  });

  it('a body that stalls part-way → timeout NetworkError', async () => {
    const s = track(await stub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"publicId":');
    }));
    // The timeout fires only once the head has arrived: the order a slow machine could
    // change on a real timer is the test's to decide.
    const err = await onFakeTimers(async () => {
      const h = track(harness(s.baseUrl, { timeoutMs: 1_000 }));
      const head = headArrives();
      const pending = rejection(h.client.request({ path: '/apps' }));
      await head;
      await vi.advanceTimersByTimeAsync(1_000);
      return pending;
    });
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain('within 1s (the response stalled part-way)');
  });

  it('a connection reset mid-body → NetworkError', async () => {
    const s = track(await stub((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('[{"publicId":"ap-1"}', () => setTimeout(() => req.socket.destroy(), 20));
    }));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain('broke off before the whole response had arrived');
  });

  it('a connection closed before any answer → NetworkError, after the retries', async () => {
    const s = track(await stub((req) => req.socket.destroy()));
    const clock = new VirtualClock();
    const h = track(harness(s.baseUrl, { clock }));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain('was closed before the server answered');
    expect(s.seen).toHaveLength(1 + DEFAULT_RETRIES);
    expectBackoffs(clock.sleeps);
  });

  it('DNS failure for a host under .invalid → NetworkError', async () => {
    const h = track(harness('https://hostctl-unit-test.invalid/v1'));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/hostctl-unit-test\.invalid: the DNS (lookup failed|server did not answer)/);
  });
});

describe('redirects', () => {
  it('follows a same-origin redirect with the token', async () => {
    const s = track(await stub((req, res) => {
      if (req.url === '/v1/old') {
        res.writeHead(301, { location: '/v1/new' });
        res.end();
      } else json(res, [1]);
    }));
    const h = track(harness(s.baseUrl));
    const res = await h.client.request({ path: '/old' });
    expect(res.url.pathname).toBe('/v1/new');
    expect(s.seen.map((x) => x.headers.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    expect(h.client.requestCount).toBe(2);
  });

  it('a redirect to another origin (another loopback port) never carries Authorization', async () => {
    const other = track(await stub((_req, res) => json(res, ['elsewhere'])));
    const s = track(await stub((_req, res) => {
      res.writeHead(302, { location: `${other.baseUrl}/apps` });
      res.end();
    }));
    const h = track(harness(s.baseUrl, { verbose: true }));
    const res = await h.client.request({ path: '/apps' });
    expect(res.json()).toEqual(['elsewhere']);
    expect(s.seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
    expect(h.stderr.text).toContain('another origin: without the token');
  });

  it('refuses a redirect to plain http on a non-loopback host, sending nothing there', async () => {
    const s = track(await stub((_req, res) => {
      res.writeHead(302, { location: 'http://api.hostctl-test.invalid/v1/apps' });
      res.end();
    }));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/apps' }));
    // ApiError (a refusal), not NetworkError (a DNS failure while trying).
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toContain('plain http');
    expect(h.client.requestCount).toBe(1);
  });

  it('307 keeps the method and body; 303 turns a POST into a GET without body', async () => {
    const s = track(await stub((req, res) => {
      if (req.url === '/v1/a') { res.writeHead(307, { location: '/v1/b' }); res.end(); }
      else if (req.url === '/v1/c') { res.writeHead(303, { location: '/v1/d' }); res.end(); }
      else json(res, {});
    }));
    const h = track(harness(s.baseUrl));
    await h.client.request({ path: '/a', method: 'POST', body: '{"x":1}' });
    await h.client.request({ path: '/c', method: 'POST', body: '{"x":1}' });
    expect(s.seen.map((x) => `${x.method} ${x.url} ${x.body}`)).toEqual([
      'POST /v1/a {"x":1}',
      'POST /v1/b {"x":1}',
      'POST /v1/c {"x":1}',
      'GET /v1/d ',
    ]);
  });

  it('stops after 5 redirects', async () => {
    const s = track(await stub((_req, res, _seen, n) => {
      res.writeHead(302, { location: `/v1/r${n}` });
      res.end();
    }));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/r0' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toContain('more than 5 times');
    expect(s.seen).toHaveLength(6);
  });
});

describe('verbose and the token', () => {
  it('logs each exchange with the token redacted, even when the server echoes it', async () => {
    const s = track(await stub((req, res) => {
      json(res, { detail: `bad token ${req.headers.authorization}` }, 500, { 'x-echo': String(req.headers.authorization), 'x-ratelimit-limit': '20' });
    }));
    const h = track(harness(s.baseUrl, { verbose: true }));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(h.stderr.text).toContain(`> GET ${s.baseUrl}/apps`);
    expect(h.stderr.text).toContain(`> authorization: Bearer ****${TOKEN.slice(-4)}`);
    expect(h.stderr.text).toMatch(/< 500 Internal Server Error \(\d+ ms\)/);
    expect(h.stderr.text).toContain('< x-ratelimit-limit: 20');
    expect(h.stderr.text).not.toContain(TOKEN);
    expect(err.message).not.toContain(TOKEN);
    expect(String((err as ApiError).hint)).not.toContain(TOKEN);
    expect(JSON.stringify(err)).not.toContain(TOKEN);
    expect(String(err.stack)).not.toContain(TOKEN);
  });

  it('network errors and their causes do not carry the token', async () => {
    const port = await closedPort();
    const h = track(harness(`http://127.0.0.1:${port}/v1`, { verbose: true }));
    const err = await rejection(h.client.request({ path: `/apps?t=${TOKEN}` }));
    expect(err).toBeInstanceOf(NetworkError);
    const all = [err.message, String((err as NetworkError).hint), String(err.stack), String((err.cause as Error | undefined)?.message), h.stderr.text].join('\n');
    expect(all).not.toContain(TOKEN);
  });
});

describe('rate limit through the client', () => {
  it('saves the state from the headers after every response (Reset in seconds)', async () => {
    const s = track(await stub((_req, res) => json(res, [], 200, { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '17', 'x-ratelimit-reset': '42' })));
    const h = track(harness(s.baseUrl));
    const before = Date.now();
    await h.client.request({ path: '/apps' });
    const r = (await lastRate(h.statePath, h.fingerprint))!;
    expect(r.limit).toBe(20);
    expect(r.remaining).toBe(17);
    expect(r.resetAt).toBeGreaterThanOrEqual(before + 42_000);
    expect(r.resetAt).toBeLessThanOrEqual(Date.now() + 42_000);
  });

  it('saves the state from the headers (Reset as a Unix time)', async () => {
    const at = Math.floor(Date.now() / 1000) + 30;
    const s = track(await stub((_req, res) => json(res, [], 200, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(at) })));
    const h = track(harness(s.baseUrl));
    await h.client.request({ path: '/apps' });
    expect(await lastRate(h.statePath, h.fingerprint)).toMatchObject({ limit: 60, remaining: 0, resetAt: at * 1000 });
  });

  it('on 429 waits Retry-After, resends the same request, and notes it once', async () => {
    const s = track(await stub((_req, res, _seen, n) => {
      if (n === 1) json(res, { title: 'Too Many Requests' }, 429, { 'retry-after': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' });
      else json(res, ['ok'], 200, { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '30', 'x-ratelimit-limit': '20' });
    }));
    const clock = new VirtualClock();
    const h = track(harness(s.baseUrl, { clock }));
    const res = await h.client.request({ path: '/apps', query: [['publicId[]', 'ap-1']] });
    expect(res.json()).toEqual(['ok']);
    // The one wait is the server's Retry-After, and the resend waited for nothing else.
    expect(clock.sleeps).toEqual([1_000]);
    expect(s.seen.map((x) => x.url)).toEqual(['/v1/apps?publicId[]=ap-1', '/v1/apps?publicId[]=ap-1']);
    expect(h.stderr.text).toBe('Rate limit reached: waiting 1s before retrying (--no-wait to fail instead).\n');
    expect((await lastRate(h.statePath, h.fingerprint))?.remaining).toBe(5);
  });

  it('with --no-wait a 429 is RateLimitError(5) at once', async () => {
    const s = track(await stub((_req, res) => json(res, {}, 429, { 'retry-after': '7' })));
    const h = track(harness(s.baseUrl, { wait: false }));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).exitCode).toBe(5);
    expect(err.message).toContain('frees up in 7s');
    expect(s.seen).toHaveLength(1);
    expect(h.stderr.text).toBe('');
    // The next command knows the window is spent.
    expect((await lastRate(h.statePath, h.fingerprint))?.remaining).toBe(0);
  });

  it('a 429 whose wait exceeds --max-wait fails at once without waiting', async () => {
    const s = track(await stub((_req, res) => json(res, {}, 429, { 'retry-after': '90' })));
    const h = track(harness(s.baseUrl, { maxWaitMs: 30_000 }));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.message).toContain('frees up in 90s');
    expect(err.message).toContain('--max-wait allows 30s');
    expect((err as RateLimitError).hint).toContain('raise --max-wait');
    expect(h.stderr.text).not.toContain('waiting');
    expect(s.seen).toHaveLength(1);
  });

  it('paces from the shared budget: the second request waits for the slot the first one holds', async () => {
    const s = track(await stub((_req, res) => json(res, [], 200, { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' })));
    const clock = new VirtualClock();
    const h = track(harness(s.baseUrl, { clock }));
    await h.client.request({ path: '/apps' });
    expect(h.stderr.text).toBe('');
    expect(clock.sleeps).toEqual([]);
    await h.client.request({ path: '/apps' });
    // The one-second window the first answer taught, from that answer, plus the slot's
    // margin: rounded up, 2 s.
    expect(clock.sleeps).toEqual([1_000 + SLOT_MARGIN_MS]);
    expect(h.stderr.text).toMatch(/^Rate limit window spent: waiting 2s before sending/);
    expect(s.seen).toHaveLength(2);
  });

  it('pacing with --no-wait fails before sending anything', async () => {
    const s = track(await stub((_req, res) => json(res, [], 200, { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '20' })));
    const h = track(harness(s.baseUrl, { wait: false }));
    await h.client.request({ path: '/apps' });
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(s.seen).toHaveLength(1);
    expect(h.client.requestCount).toBe(1);
  });
});

describe('the shared budget through the client', () => {
  /** Answers that teach a window of `limit` requests a second, counting down. */
  const windowOf = (limit: number) => stub((_req, res, _seen, n) => json(res, [], 200, {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(Math.max(0, limit - n)),
    'x-ratelimit-reset': '1',
  }));

  it('a client for a person at a terminal claims the next free slot while it waits for one; a batch client claims nothing', async () => {
    const s = track(await windowOf(1));
    for (const interactive of [true, false]) {
      const clock = new VirtualClock();
      const h = track(harness(s.baseUrl, { clock, interactive }));
      await h.client.request({ path: '/apps' });
      // The window is spent: the second request waits, and the budget says who waits for it.
      const pacing = clock.hold();
      const second = h.client.request({ path: '/apps' });
      await pacing.reached;
      const waiters = Object.keys(h.client.budgetSnapshot().waiters ?? {});
      pacing.release();
      await second;
      expect(waiters, interactive ? 'interactive' : 'batch').toHaveLength(interactive ? 1 : 0);
      // Served, the person's claim is gone.
      expect(h.client.budgetSnapshot().waiters).toBeUndefined();
    }
  });

  it('a proxy variable hostctl cannot use is refused before a slot of the budget is taken', async () => {
    const h = track(harness('https://api.hostctl-test.invalid/v1', { env: { HTTPS_PROXY: 'socks5://127.0.0.1:1080' } }));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('HTTPS_PROXY names a socks5: proxy (socks5://127.0.0.1:1080); hostctl uses http:// and https:// proxies only.');
    expect(h.client.budgetSnapshot().sends).toEqual([]);
    expect(h.client.requestCount).toBe(0);
  });

  it('close() closes a budget store that can be closed, and leaves alone one that cannot', async () => {
    const s = track(await stub((_req, res) => json(res, [])));
    const plain = newState();
    const h = harness(s.baseUrl, { budgetStore: new FileBudgetStore(plain.path, 'fp') }, plain);
    await h.client.request({ path: '/apps' });
    await expect(h.client.close()).resolves.toBeUndefined();
    let closed = 0;
    const closable = newState();
    const store = Object.assign(new FileBudgetStore(closable.path, 'fp'), { close: () => void closed++ });
    const c = harness(s.baseUrl, { budgetStore: store }, closable);
    await c.client.request({ path: '/apps' });
    await c.client.close();
    expect(closed).toBe(1);
  });
});

describe('the response cache through the client', () => {
  it('an answer the caller keeps is on disk at once: a run that fails afterwards does not undo it', async () => {
    const s = track(await stub((_req, res) => json(res, [{ publicId: 'ap-1' }])));
    const clock = new VirtualClock();
    const { state, path } = newState();
    const cache = () => new ResponseCache(join(dirname(path), 'cache'), new URL(s.baseUrl), 'fp', 60_000, clock.now);
    const first = cache();
    const h = track(harness(s.baseUrl, { clock, cache: first }, { state, path }));
    (await h.client.request({ path: '/apps' })).keep();
    await first.commit(false);
    // The next run reads it from disk: nothing more is sent.
    const next = track(harness(s.baseUrl, { clock, cache: cache() }, { state, path }));
    expect((await next.client.request({ path: '/apps' })).json()).toEqual([{ publicId: 'ap-1' }]);
    expect(s.seen).toHaveLength(1);
  });
});

describe('redirects and the lockout guard', () => {
  it('a 401 from another origin after a redirect does not mark the token', async () => {
    const other = track(await stub((_req, res) => json(res, { title: 'Unauthorized' }, 401)));
    const s = track(await stub((_req, res) => {
      res.writeHead(302, { location: `${other.baseUrl}/apps` });
      res.end();
    }));
    const h = track(harness(s.baseUrl));
    const err = await rejection(h.client.request({ path: '/apps' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(h.state.rejected(h.fingerprint)).toBeUndefined();
  });
});

// A self-signed certificate for 127.0.0.1 (test fixture only; valid until 2126).
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgjUNATV6cFyvjCpG1
2bb0MYy961ZvbR8HUZ/+uAEWWAGhRANCAAQGqjWF5/eWc8RlQaBVfk0DE3i/zJvS
TJqT5SS41yPnL5xbWsq/WidF1fmI2Jrw6Ud2STn+I6+4U9ltBtkVUG2z
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBkTCCATagAwIBAgIUaJGShHpKthTxvlgidGV4UEVF3YMwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMjE4NDczN1oYDzIxMjYxMDI5
MTg0NzM3WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQGqjWF5/eWc8RlQaBVfk0DE3i/zJvSTJqT5SS41yPnL5xbWsq/WidF
1fmI2Jrw6Ud2STn+I6+4U9ltBtkVUG2zo2QwYjAdBgNVHQ4EFgQUlSk3kB6jNC/5
HINM3gFdRdB7UGIwHwYDVR0jBBgwFoAUlSk3kB6jNC/5HINM3gFdRdB7UGIwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0kAMEYC
IQDKl//TyLq1BSuI845AOCoSJHgPXc60z9a/TOFH2ooiKAIhAPO5fj3kCctwmlcu
RCX6JMCsvr9mvuFqwwUh/6reKHp7
-----END CERTIFICATE-----`;

describe('TLS', () => {
  it('a certificate the client does not trust → NetworkError naming the TLS problem', async () => {
    let requests = 0;
    const server = createTlsServer({ key: TEST_KEY, cert: TEST_CERT }, (_req, res) => {
      requests++;
      res.end('[]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const h = track(harness(`https://127.0.0.1:${port}/v1`));
    try {
      const err = await rejection(h.client.request({ path: '/apps' }));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toContain(`Could not make a secure connection to 127.0.0.1:${port} (`);
      expect(requests).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

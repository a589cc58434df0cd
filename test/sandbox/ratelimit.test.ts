// The per-token rate limit over real HTTP on loopback, with the platform's default of 20
// requests in a sliding window of one minute. The sandbox's limiter runs on a clock the
// test sets (`now`), so a window slides exactly when the test says, however slow the
// machine.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxServer, type RunningSandbox } from '../../src/sandbox/server.js';
import { createToken, expectRateHeaders, JSON_ACCEPT, req } from './helpers.js';

let sb: RunningSandbox;
/** The limiter's time in ms; only the test moves it. */
let now = 0;
const clock = () => now;
const api = (token: string, path = '/apps?itemsPerPage=1') => req(`${sb.url}${path}`, { token, headers: JSON_ACCEPT });

describe('rate limit (defaults: 20 per 60 s)', () => {
  beforeEach(async () => {
    now = 0;
    sb = await startSandboxServer({ log: () => undefined, clock });
  });
  afterEach(async () => {
    await sb.close();
  });

  it('the 21st request in the window is a 429 with Retry-After; the headers count down on the way', async () => {
    for (let i = 1; i <= 20; i++) {
      const res = await api(sb.token);
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(20 - i));
      // The oldest request in the window is the first, a second older each time.
      expect(res.headers['x-ratelimit-reset']).toBe(String(60 - (i - 1)));
      now += 1_000;
    }
    const limited = await api(sb.token);
    expect(limited.status).toBe(429);
    // The first request leaves the window 60 s after it was made: 40 s from now.
    expect(limited.headers['retry-after']).toBe('40');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-limit']).toBe('20');
    expect(limited.headers['x-ratelimit-reset']).toBe('40');
    expect(limited.headers['content-type']).toBe('application/problem+json');
    expect(limited.json()).toMatchObject({ status: 429, title: 'Too many requests' });
  });

  it('every kind of answer counts, a 429 does not, and each token has its own window', async () => {
    const other = await createToken(sb.origin, 'other');
    // 200, 404, 405, 400 and the docs all spend the window.
    await api(sb.token, '/apps');
    await api(sb.token, '/nope');
    await req(`${sb.url}/apps`, { method: 'DELETE', token: sb.token });
    await api(sb.token, '/apps?page=0');
    await api(sb.token, '/docs');
    const sixth = await api(sb.token);
    expect(sixth.headers['x-ratelimit-remaining']).toBe('14');
    for (let i = 0; i < 14; i++) await api(sb.token);
    for (let i = 0; i < 5; i++) expect((await api(sb.token)).status).toBe(429);

    const fresh = await api(other);
    expect(fresh.status).toBe(200);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('19');

    const log = (await req(`${sb.origin}/_sandbox/requests`)).json() as Array<{ status: number; token: string }>;
    expect(log.filter((e) => e.token === 'sandbox' && e.status !== 429)).toHaveLength(20);
    expect(log.filter((e) => e.token === 'sandbox' && e.status === 429)).toHaveLength(5);
  });

  it('401, 404 and 429 all carry X-RateLimit-Limit, -Remaining and -Reset', async () => {
    const unauthorized = await api('hsb_nope');
    expect(unauthorized.status).toBe(401);
    expectRateHeaders(unauthorized);
    const notFound = await api(sb.token, '/nothing-here');
    expect(notFound.status).toBe(404);
    expectRateHeaders(notFound);
    for (let i = 0; i < 19; i++) await api(sb.token);
    const limited = await api(sb.token);
    expect(limited.status).toBe(429);
    expectRateHeaders(limited);
  });
});

describe('rate limit, sliding (2 per 2 s)', () => {
  beforeEach(async () => {
    now = 0;
    sb = await startSandboxServer({ rateLimit: 2, windowSeconds: 2, log: () => undefined, clock });
  });
  afterEach(async () => {
    await sb.close();
  });

  it('waiting Retry-After seconds is enough to be served again, and a moment less is not', async () => {
    expect((await api(sb.token)).status).toBe(200);
    now = 1_000;
    expect((await api(sb.token)).status).toBe(200);
    const limited = await api(sb.token);
    expect(limited.status).toBe(429);
    // The first request, at 0, leaves the window at 2 s.
    expect(limited.headers['retry-after']).toBe('1');
    now = 1_999;
    expect((await api(sb.token)).status).toBe(429);
    now = 1_000 + 1_000;
    expect((await api(sb.token)).status).toBe(200);
  });

  it('the window slides: each request frees its own slot, a window after it was made', async () => {
    expect((await api(sb.token)).status).toBe(200);
    now = 1_500;
    expect((await api(sb.token)).status).toBe(200);
    // At 2 s the first has left the window, the second not: one slot, not two.
    now = 2_000;
    const third = await api(sb.token);
    expect(third.status).toBe(200);
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
    const fourth = await api(sb.token);
    expect(fourth.status).toBe(429);
    // The second request, at 1.5 s, leaves at 3.5 s: 1.5 s from now, in whole seconds 2.
    expect(fourth.headers['retry-after']).toBe('2');
    now = 3_500;
    expect((await api(sb.token)).status).toBe(200);
  });
});

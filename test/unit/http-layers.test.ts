// Each layer of the request path alone, driven by a stub `next` that records what reached
// it and answers from a script: no server, no clock but an injected one.

import { describe, expect, it } from 'vitest';
import { ApiError, AuthError, InterruptedError, NotFoundError, RateLimitError } from '../../src/errors.js';
import { compose, type Exchange } from '../../src/http/layers.js';
import { answer, drive, rejection } from './http-support.js';
import { statusErrors } from '../../src/http/status.js';
import { MAX_REDIRECTS, nextHop, redirects, resolveUrl } from '../../src/http/origin.js';
import { MAX_429_RETRIES, wait429 } from '../../src/http/wait429.js';
import { bearer } from '../../src/http/bearer.js';
import { newTokenAdvice } from '../../src/auth/advice.js';
import { verboseLog } from '../../src/http/verbose.js';
import { budgetLayer } from '../../src/http/budget.js';

const ORIGIN = 'https://api.example.invalid';
const SECRET = 'hct_layers_TEST_secret_0123456789';
const get = (path = '/v1/apps', over: Partial<Exchange> = {}): Exchange => ({ method: 'GET', url: new URL(`${ORIGIN}${path}`), headers: { accept: 'application/json' }, body: undefined, ...over });

describe('error mapping (statusErrors)', () => {
  const layer = (acceptAnyStatus = false, recorded = true) => statusErrors({ acceptAnyStatus, origin: ORIGIN, recorded: () => recorded });

  it('passes a 2xx through, and any status with acceptAnyStatus', async () => {
    expect((await drive(layer(), [answer(204)]).send(get())).status).toBe(204);
    expect((await drive(layer(true), [answer(404)]).send(get())).status).toBe(404);
  });

  it('maps a final status to its typed error, naming the hop that answered', async () => {
    const err = await rejection(drive(layer(), [{ ...answer(404), url: new URL(`${ORIGIN}/v1/moved`), method: 'GET' }]).send(get('/v1/apps', { method: 'POST' })));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toContain('GET /v1/moved');
  });

  it('a 401 from another origin blames the redirect; an unrecorded 401 says the mark is missing', async () => {
    const elsewhere = await rejection(drive(layer(), [{ ...answer(401), url: new URL('https://other.invalid/x') }]).send(get()));
    expect(elsewhere).toBeInstanceOf(ApiError);
    expect(elsewhere.message).toMatch(/sends the token only to the base URL's origin/);
    const unrecorded = await rejection(drive(layer(false, false), [answer(401)]).send(get()));
    expect(unrecorded).toBeInstanceOf(AuthError);
    expect(unrecorded.message).toMatch(/could not record/);
  });

  it('every 2xx is an answer, up to 299', async () => {
    expect((await drive(layer(), [answer(299)]).send(get())).status).toBe(299);
  });

  it('a status without a reason phrase is named by its number alone', async () => {
    const err = await rejection(drive(layer(), [answer(520)]).send(get()));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('The API failed with 520 for GET /v1/apps.');
  });

  it('an error body the server calls HTML is an HTML error page, even when it does not look like one', async () => {
    const err = await rejection(drive(layer(), [answer(500, { 'content-type': 'text/html; charset=utf-8' }, 'Service down')]).send(get()));
    expect(err.message).toBe('The API failed with 500 Internal Server Error for GET /v1/apps. The server said: an HTML error page.');
  });
});

describe('origin guard and redirects', () => {
  it('resolveUrl keeps paths under the base URL and refuses other origins', () => {
    const base = new URL(`${ORIGIN}/v1`);
    expect(resolveUrl(base, 'apps').href).toBe(`${ORIGIN}/v1/apps`);
    expect(resolveUrl(base, '//evil.invalid/x').origin).toBe(ORIGIN);
    expect(() => resolveUrl(base, 'https://evil.invalid/v1/apps')).toThrow(/only to the base URL's origin/);
  });

  it('follows a redirect, and the answer names the hop that gave it', async () => {
    const notes: string[] = [];
    const { send, seen } = drive(redirects({ origin: ORIGIN, note: (l) => notes.push(l) }), [answer(302, { location: '/v1/elsewhere' }), answer(200)]);
    const res = await send(get());
    expect(seen.map((x) => x.url.pathname)).toEqual(['/v1/apps', '/v1/elsewhere']);
    expect(res.url?.pathname).toBe('/v1/elsewhere');
    expect(notes).toEqual([`* following redirect to ${ORIGIN}/v1/elsewhere`]);
  });

  it('another origin gets only harmless headers, and the note says it goes without the token', async () => {
    const notes: string[] = [];
    const { send, seen } = drive(redirects({ origin: ORIGIN, note: (l) => notes.push(l) }), [answer(307, { location: 'https://cdn.example.invalid/a' }), answer(200)]);
    const harmless = { accept: 'application/json', 'accept-language': 'de', 'user-agent': 'hostctl/test', 'content-type': 'application/json' };
    await send(get('/v1/apps', { headers: { ...harmless, cookie: 'c=1', 'x-api-key': 'k' } }));
    expect(seen[1]!.headers).toEqual(harmless);
    expect(notes[0]).toMatch(/another origin: without the token/);
  });

  it('refuses plain http off loopback, and a body resent to another origin, sending nothing there', async () => {
    const plain = drive(redirects({ origin: ORIGIN }), [answer(301, { location: 'http://api.example.invalid/v1/apps' })]);
    expect((await rejection(plain.send(get()))).message).toMatch(/plain http/);
    expect(plain.seen).toHaveLength(1);
    const body = drive(redirects({ origin: ORIGIN }), [answer(307, { location: 'https://other.invalid/x' })]);
    expect((await rejection(body.send(get('/v1/apps', { method: 'POST', body: '{}' })))).message).toMatch(/resend the request body/);
    expect(body.seen).toHaveLength(1);
  });

  it('a hop is never unpaced; 303 turns a POST into a GET without body', () => {
    const hop = nextHop(get('/v1/apps', { method: 'POST', body: '{}', unpaced: true, headers: { 'content-type': 'application/json' } }), 303, '/v1/x');
    expect(hop).toEqual({ method: 'GET', url: new URL(`${ORIGIN}/v1/x`), headers: {}, body: undefined });
  });

  it(`stops after ${MAX_REDIRECTS} hops`, async () => {
    const { send, seen } = drive(redirects({ origin: ORIGIN }), [answer(302, { location: '/v1/loop' })]);
    expect((await rejection(send(get()))).message).toMatch(/more than 5 times/);
    expect(seen).toHaveLength(MAX_REDIRECTS + 1);
  });

  // The refusals below are checked whole: the sentence, the next step and (for a redirect) the
  // status that caused it, as the entry point prints them.
  const refusal = (name: string, message: string, hint: string, more: Record<string, unknown> = {}) => expect.objectContaining({ name, message, hint, ...more });
  const climbs = (path: string, lands: string) =>
    refusal(
      'UsageError',
      `The path "${path}" resolves to ${ORIGIN}${lands}, outside the base URL ${ORIGIN}/v1; nothing was sent.`,
      `Give a path under the base URL, such as /apps; to call another path of ${ORIGIN} on purpose, give its full URL.`,
    );

  it('resolveUrl: a full URL of another origin, or one that does not parse, is refused with the next step', () => {
    const base = new URL(`${ORIGIN}/v1`);
    expect(() => resolveUrl(base, 'https://evil.invalid/v1/apps')).toThrow(
      refusal(
        'UsageError',
        `Refusing https://evil.invalid: hostctl sends requests (and the token) only to the base URL's origin, ${ORIGIN}.`,
        'Give a path relative to the base URL, such as /apps, or change --base-url.',
      ),
    );
    expect(() => resolveUrl(base, 'https://exa mple.invalid/x')).toThrow(
      refusal('UsageError', '"https://exa mple.invalid/x" is not a valid URL.', 'Give a path relative to the base URL, such as /apps.'),
    );
  });

  it('resolveUrl: a relative path is put under the base path once, whatever slashes lead it or end the base URL, and a URL in its query leaves it relative', () => {
    for (const base of [`${ORIGIN}/v1`, `${ORIGIN}/v1/`, `${ORIGIN}/v1//`]) {
      expect(resolveUrl(new URL(base), 'apps').href, base).toBe(`${ORIGIN}/v1/apps`);
    }
    const base = new URL(`${ORIGIN}/v1`);
    // Leading slashes and backslashes are the path's, not a host's.
    expect(resolveUrl(base, '//evil.invalid/x').href).toBe(`${ORIGIN}/v1/evil.invalid/x`);
    expect(resolveUrl(base, '\\\\evil.invalid\\x').href).toBe(`${ORIGIN}/v1/evil.invalid/x`);
    // Only a path that begins with scheme:// is a full URL.
    expect(resolveUrl(base, 'apps?next=https://evil.invalid/x').href).toBe(`${ORIGIN}/v1/apps?next=https://evil.invalid/x`);
  });

  it('resolveUrl: a path that comes back to the base path itself stays, as a server that decodes it reads it', () => {
    const base = new URL(`${ORIGIN}/v1`);
    expect(resolveUrl(base, 'apps%2f..').href).toBe(`${ORIGIN}/v1/apps%2f..`);
    expect(resolveUrl(base, '%252e').href).toBe(`${ORIGIN}/v1/%252e`);
  });

  it('resolveUrl: "." steps count for nothing, so a path that climbs out past one is refused', () => {
    // apps/./../../x: the ".." steps take off "apps" and "v1", not the ".".
    expect(() => resolveUrl(new URL(`${ORIGIN}/v1`), 'apps%2f.%2f..%2f..%2fx')).toThrow(climbs('apps%2f.%2f..%2f..%2fx', '/x'));
  });

  it('resolveUrl: a ".." escaped again and again is refused however often: escapes are decoded until none is left', () => {
    for (const times of [1, 2, 4, 5, 8]) {
      const dot = `%${'25'.repeat(times - 1)}2e`;
      const path = `${dot}${dot}/x`;
      expect(() => resolveUrl(new URL(`${ORIGIN}/v1`), path), path).toThrow(climbs(path, '/x'));
    }
  });

  it('resolveUrl: a path that climbs above the root is refused, even one that comes back under the base path', () => {
    // ../../v1/apps: a server may refuse it, or read it as another file; it is sent nowhere.
    expect(() => resolveUrl(new URL(`${ORIGIN}/v1`), '..%2f..%2fv1%2fapps')).toThrow(climbs('..%2f..%2fv1%2fapps', '/'));
  });

  it('follows a 308 as a 307: the same method, body and headers to the same origin', async () => {
    const { send, seen } = drive(redirects({ origin: ORIGIN }), [answer(308, { location: '/v1/moved' }), answer(200)]);
    const post = get('/v1/apps', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'x-api-key': 'k' } });
    expect((await send(post)).status).toBe(200);
    expect(seen[1]).toEqual({ ...post, url: new URL(`${ORIGIN}/v1/moved`) });
    for (const status of [307, 308]) {
      expect(nextHop(post, status, '/v1/x'), String(status)).toEqual({ ...post, url: new URL(`${ORIGIN}/v1/x`) });
    }
  });

  it("a hop to the same origin keeps the user's headers; HEAD stays HEAD, and a GET with a body (-X GET --input) keeps it, so it is never resent elsewhere", async () => {
    const headers = { accept: 'application/json', cookie: 'c=1', 'x-api-key': 'k', 'content-type': 'application/json' };
    for (const status of [301, 302]) {
      expect(nextHop(get('/v1/apps', { headers }), status, '/v1/x'), String(status)).toEqual({ method: 'GET', url: new URL(`${ORIGIN}/v1/x`), headers, body: undefined });
      expect(nextHop(get('/v1/apps', { method: 'HEAD' }), status, '/v1/x').method).toBe('HEAD');
      const search = get('/v1/search', { headers, body: '{"q":1}' });
      expect(nextHop(search, status, '/v1/x')).toEqual({ ...search, url: new URL(`${ORIGIN}/v1/x`) });
      expect(() => nextHop(search, status, 'https://other.invalid/x')).toThrow(
        refusal(
          'ApiError',
          `The API redirected GET /v1/search to another origin (https://other.invalid) with ${status}, which would resend the request body there; hostctl does not follow.`,
          'Check --base-url; it should point at the API itself.',
          { status },
        ),
      );
    }
  });

  it('refuses a redirect to an address that does not parse, or to a scheme other than http(s), sending nothing there', async () => {
    const cases: Array<[string, string]> = [
      ['http://[::1', 'The API redirected to an invalid address (http://[::1).'],
      ['ftp://files.example.invalid/x', 'The API redirected to a ftp: address; hostctl follows http(s) redirects only.'],
      ['file:///etc/passwd', 'The API redirected to a file: address; hostctl follows http(s) redirects only.'],
    ];
    for (const [location, message] of cases) {
      const { send, seen } = drive(redirects({ origin: ORIGIN }), [answer(302, { location }), answer(200)]);
      await expect(send(get()), location).rejects.toThrow(refusal('ApiError', message, 'Check --base-url.', { status: 302 }));
      expect(seen).toHaveLength(1);
    }
  });

  it('the refusals of plain http, of a body resent elsewhere and of a redirect loop name the next step and the status', async () => {
    const plain = drive(redirects({ origin: ORIGIN }), [answer(301, { location: 'http://api.example.invalid/v1/apps' })]);
    await expect(plain.send(get())).rejects.toThrow(
      refusal(
        'ApiError',
        'The API redirected to plain http (http://api.example.invalid); hostctl refuses to follow, so that nothing travels unencrypted.',
        'Check --base-url; use the https:// address of the API.',
        { status: 301 },
      ),
    );
    const body = drive(redirects({ origin: ORIGIN }), [answer(307, { location: 'https://other.invalid/x' })]);
    await expect(body.send(get('/v1/apps', { method: 'POST', body: '{}' }))).rejects.toThrow(
      refusal(
        'ApiError',
        'The API redirected POST /v1/apps to another origin (https://other.invalid) with 307, which would resend the request body there; hostctl does not follow.',
        'Check --base-url; it should point at the API itself.',
        { status: 307 },
      ),
    );
    const loop = drive(redirects({ origin: ORIGIN }), [answer(308, { location: '/v1/loop' })]);
    await expect(loop.send(get())).rejects.toThrow(
      refusal(
        'ApiError',
        `The API redirected more than ${MAX_REDIRECTS} times for GET /v1/apps; hostctl stopped following.`,
        'Check --base-url; it should point at the API itself (ending in /v1).',
        { status: 308 },
      ),
    );
  });
});

describe('the 429 wait', () => {
  it('waits as told and resends the same exchange, paced', async () => {
    const waits: Array<[Record<string, string>, string | undefined]> = [];
    const { send, seen } = drive(
      wait429({ on429: async (h, d) => void waits.push([h, d]) }),
      [answer(429, { 'retry-after': '3', 'content-type': 'application/json' }, '{"detail":"slow down"}'), answer(200)],
    );
    expect((await send(get('/v1/apps', { unpaced: true }))).status).toBe(200);
    expect(waits).toEqual([[{ 'retry-after': '3', 'content-type': 'application/json' }, '"slow down"']]);
    expect(seen.map((x) => x.unpaced)).toEqual([true, false]);
  });

  it("reads the server's words as its content type says: an HTML page is never quoted", async () => {
    const details: Array<string | undefined> = [];
    const { send } = drive(
      wait429({ on429: async (_h, d) => void details.push(d) }),
      [answer(429, { 'content-type': 'text/html' }, 'Too many requests, slow down'), answer(200)],
    );
    await send(get());
    expect(details).toEqual(['an HTML error page']);
  });

  it('a wait that is not allowed ends it (the error of on429)', async () => {
    const { send, seen } = drive(
      wait429({
        on429: () => Promise.reject(new RateLimitError('no wait', 'hint')),
      }),
      [answer(429)],
    );
    expect(await rejection(send(get()))).toBeInstanceOf(RateLimitError);
    expect(seen).toHaveLength(1);
  });

  it(`gives the 429 back after ${MAX_429_RETRIES} resends`, async () => {
    const { send, seen } = drive(wait429({ on429: async () => undefined }), [answer(429)]);
    expect((await send(get())).status).toBe(429);
    expect(seen).toHaveLength(MAX_429_RETRIES + 1);
  });
});

describe('the token layer (bearer)', () => {
  /** Marks kept as the state file keeps them (RejectedMark): the status, and `sandbox` when a sandbox said no. */
  function marks() {
    const m = new Map<string, { status: number; sandbox?: true }>();
    return { m, rejected: (fp: string) => m.get(fp), markRejected: (fp: string, status: number, sandbox?: boolean) => void m.set(fp, sandbox ? { status, sandbox } : { status }) };
  }

  it('adds the token for the base origin only, and strips any Authorization elsewhere', async () => {
    const store = marks();
    const { send, seen } = drive(bearer({ origin: ORIGIN, secret: SECRET, fingerprint: 'fp', marks: store }), [answer(200)]);
    await send(get());
    await send({ ...get(), url: new URL('https://other.invalid/x'), headers: { authorization: 'Bearer leaked' } });
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(seen[1]!.headers).not.toHaveProperty('authorization');
  });

  it('a 401 marks the token, and a marked token is never sent again', async () => {
    const store = marks();
    const { send, seen } = drive(bearer({ origin: ORIGIN, secret: SECRET, fingerprint: 'fp', marks: store }), [answer(401), answer(200)]);
    expect((await send(get())).status).toBe(401);
    expect(store.m.get('fp')).toEqual({ status: 401 });
    expect(await rejection(send(get()))).toBeInstanceOf(AuthError);
    expect(seen).toHaveLength(1);
  });

  it('the refusal of a marked token says why in one sentence, and where a new one comes from: the dashboard, or the sandbox that rejected it', async () => {
    const why =
      'The API rejected this token earlier in this run; hostctl will not send it again, because retrying a rejected token locks out your IP address.';
    const refusal = async (rejectedBy: Record<string, string>) => {
      const { send } = drive(bearer({ origin: ORIGIN, secret: SECRET, fingerprint: 'fp', marks: marks() }), [answer(401, rejectedBy)]);
      await send(get());
      const err = (await rejection(send(get()))) as AuthError;
      return { message: err.message, hint: err.hint };
    };
    expect(await refusal({})).toEqual({ message: why, hint: newTokenAdvice(false) });
    expect(await refusal({ 'x-hostctl-sandbox': '1' })).toEqual({ message: why, hint: newTokenAdvice(true) });
    expect(newTokenAdvice(true)).not.toBe(newTokenAdvice(false));
  });

  it('a 401 from another origin, and a 403, mark nothing', async () => {
    const store = marks();
    const { send } = drive(bearer({ origin: ORIGIN, secret: SECRET, fingerprint: 'fp', marks: store }), [answer(401), answer(403)]);
    await send({ ...get(), url: new URL('https://other.invalid/x') });
    await send(get());
    expect(store.m.size).toBe(0);
  });
});

describe('the verbose log', () => {
  it('logs each exchange with the token redacted and the time from the injected clock', async () => {
    let text = '';
    let t = 1_000;
    const layer = verboseLog({ write: (s) => (text += s), secret: SECRET, now: () => (t += 25) });
    const { send } = drive(layer, [answer(200, { 'x-echo': SECRET })]);
    await send({ ...get(), headers: { authorization: `Bearer ${SECRET}` }, body: 'abc' });
    expect(text).toContain(`> GET ${ORIGIN}/v1/apps\n`);
    expect(text).toContain('> (body: 3 bytes)');
    expect(text).toContain('< 200 OK (25 ms)');
    expect(text).not.toContain(SECRET);
  });

  // A token shorter than six characters is not masked in all text (io.ts: too likely to occur
  // by chance), so the log's own redaction of Authorization is all that keeps it out.
  it('writes Authorization redacted whatever the token, and every other header as sent', async () => {
    const short = 'Zq9x7';
    let text = '';
    const { send } = drive(verboseLog({ write: (s) => (text += s), secret: short, now: () => 0 }), [answer(204)]);
    await send({ ...get(), headers: { accept: 'application/json', authorization: `Bearer ${short}` } });
    expect(text).toBe(`> GET ${ORIGIN}/v1/apps\n> accept: application/json\n> authorization: Bearer ****\n< 204 No Content (0 ms)\n`);
    expect(text).not.toContain(short);
  });

  it('writes the status line with its reason phrase or its number alone, and a tab in a header as a space', async () => {
    let text = '';
    let t = 0;
    const { send } = drive(verboseLog({ write: (s) => (text += s), secret: SECRET, now: () => (t += 7) }), [answer(520, { 'x-note': 'one\ttwo' }), answer(200)]);
    await send(get());
    await send(get());
    expect(text).toBe([`> GET ${ORIGIN}/v1/apps`, '> accept: application/json', '< 520 (7 ms)', '< x-note: one two', `> GET ${ORIGIN}/v1/apps`, '> accept: application/json', '< 200 OK (7 ms)', ''].join('\n'));
  });
});

describe('the budget layer', () => {
  /** A budget that says wait as `waits` says (a number: a spent window), then gives a slot each time. */
  function file(waits: Array<number | { waitMs: number; deferred: true }>, probe = false) {
    const calls: string[] = [];
    let n = 0;
    return {
      calls,
      caller: () => 'caller',
      tryReserve: async (force = false) => {
        calls.push(`reserve${force ? '!' : ''}`);
        const w = waits[n++];
        if (w !== undefined) return typeof w === 'number' ? { waitMs: w } : w;
        return probe ? { sentAt: 100 + n, probe: true as const } : { sentAt: 100 + n };
      },
      observe: async (h: Record<string, string>, sentAt: number) => void calls.push(`observe@${sentAt}${Object.keys(h).length > 0 ? `:${JSON.stringify(h)}` : ''}`),
      on429: async (sentAt: number, ms: number) => void calls.push(`429@${sentAt}:${ms}`),
      withdraw: async () => void calls.push('withdraw'),
      unprobe: async () => void calls.push('unprobe'),
      release: async (sentAt: number) => void calls.push(`release@${sentAt}`),
    };
  }

  it('an exchange cancelled while it waits for a slot reserves nothing more, gives up its claim, and is not sent', async () => {
    const f = file([40, 40]);
    const caller = new AbortController();
    const { send, seen } = drive(
      budgetLayer({ budget: f, origin: ORIGIN, pace: async () => caller.abort(), now: () => 0 }),
      [answer(200)],
    );
    const err = await rejection(send(get('/v1/apps', { signal: caller.signal })));
    expect(err).toBeInstanceOf(InterruptedError);
    expect(seen).toHaveLength(0);
    expect(f.calls).toEqual(['reserve', 'withdraw']);
  });

  it('an exchange cancelled while its slot is being reserved gives the slot back, and is not sent', async () => {
    const caller = new AbortController();
    const f = file([]);
    const reserving = { ...f, tryReserve: () => (caller.abort(), f.tryReserve()) };
    const { send, seen } = drive(budgetLayer({ budget: reserving, origin: ORIGIN, pace: async () => undefined, now: () => 0 }), [answer(200)]);
    expect(await rejection(send(get('/v1/apps', { signal: caller.signal })))).toBeInstanceOf(InterruptedError);
    expect(seen).toHaveLength(0);
    expect(f.calls).toEqual(['reserve', 'release@101']);
  });

  it('a redirect hop of a cancelled exchange is cancelled with it: it is not sent', async () => {
    const caller = new AbortController();
    const sent: Exchange[] = [];
    const send = compose([redirects({ origin: ORIGIN }), budgetLayer({ budget: file([]), origin: ORIGIN, pace: async () => undefined, now: () => 0 })], async (x) => {
      sent.push(x);
      caller.abort();
      return { ...answer(302), headers: { location: '/v1/moved' } };
    });
    expect(await rejection(send(get('/v1/apps', { signal: caller.signal })))).toBeInstanceOf(InterruptedError);
    expect(sent.map((x) => x.url.pathname)).toEqual(['/v1/apps']);
  });

  it('waits until a slot is reserved, then sends and corrects the budget with the answer', async () => {
    const f = file([40, 2]);
    const paced: number[] = [];
    const { send } = drive(
      budgetLayer({ budget: f, origin: ORIGIN, pace: async (ms) => void paced.push(ms), now: () => 0 }),
      [answer(200, { 'x-ratelimit-remaining': '3' })],
    );
    await send(get());
    // At least 5 ms between asks, not a busy loop.
    expect(paced).toEqual([40, 5]);
    expect(f.calls).toEqual(['reserve', 'reserve', 'reserve', 'observe@103:{"x-ratelimit-remaining":"3"}']);
  });

  it('an unpaced exchange forces its slot; another origin spends none; a 429 blocks, a 401 teaches nothing', async () => {
    const f = file([]);
    const { send } = drive(budgetLayer({ budget: f, origin: ORIGIN, pace: async () => undefined, now: () => 0 }), [answer(200), answer(200), answer(429, { 'retry-after': '2' }), answer(401)]);
    await send(get('/v1/apps', { unpaced: true }));
    await send({ ...get(), url: new URL('https://other.invalid/x') });
    await send(get());
    await send(get());
    expect(f.calls).toEqual(['reserve!', 'observe@101', 'reserve', '429@102:2000', 'reserve']);
  });

  it('a probe\'s answer is recorded; a probe that learns nothing (a 401, a failure) lets the others go', async () => {
    const f = file([], true);
    const { send } = drive(budgetLayer({ budget: f, origin: ORIGIN, pace: async () => undefined, now: () => 0 }), [answer(200), answer(401)]);
    await send(get());
    await send(get());
    const failing = compose([budgetLayer({ budget: f, origin: ORIGIN, pace: async () => undefined, now: () => 0 })], async () => {
      throw new Error('connection refused');
    });
    await expect(failing(get())).rejects.toThrow('connection refused');
    expect(f.calls).toEqual(['reserve', 'observe@101', 'reserve', 'unprobe', 'reserve', 'unprobe']);
  });

  it('a request that was not the probe and fails undoes nothing: the budget counts it as sent', async () => {
    const f = file([]);
    const failing = compose([budgetLayer({ budget: f, origin: ORIGIN, pace: async () => undefined, now: () => 0 })], async () => {
      throw new Error('connection refused');
    });
    await expect(failing(get())).rejects.toThrow('connection refused');
    expect(f.calls).toEqual(['reserve']);
  });

  it('a wait while an interactive command takes the slot (deferred) goes to defer, a spent window to pace; without defer, both are paced', async () => {
    const waits = () => [{ waitMs: 100, deferred: true as const }, 40];
    const both: string[] = [];
    const f = file(waits());
    await drive(budgetLayer({ budget: f, origin: ORIGIN, pace: async (ms) => void both.push(`pace ${ms}`), defer: async (ms) => void both.push(`defer ${ms}`), now: () => 0 }), [answer(200)]).send(get());
    expect(both).toEqual(['defer 100', 'pace 40']);
    const paced: number[] = [];
    await drive(budgetLayer({ budget: file(waits()), origin: ORIGIN, pace: async (ms) => void paced.push(ms), now: () => 0 }), [answer(200)]).send(get());
    expect(paced).toEqual([100, 40]);
  });

  it('an answer that the store cannot record (Redis required and gone) is still returned: a write done is not lost', async () => {
    const gone = new Error('the shared store cannot be used');
    const f = { ...file([], true), observe: () => Promise.reject(gone), on429: () => Promise.reject(gone), unprobe: () => Promise.reject(gone) };
    const { send } = drive(budgetLayer({ budget: f, origin: ORIGIN, pace: async () => undefined, now: () => 0 }), [answer(201), answer(429, { 'retry-after': '2' }), answer(401)]);
    expect((await send(get())).status).toBe(201);
    expect((await send(get())).status).toBe(429);
    expect((await send(get())).status).toBe(401);
  });

  it('a wait that is refused (--no-wait, --max-wait) withdraws the claim, and nothing is sent', async () => {
    const f = file([40]);
    const { send, seen } = drive(budgetLayer({ budget: f, origin: ORIGIN, pace: () => Promise.reject(new RateLimitError('spent', 'hint')), now: () => 0 }), [answer(200)]);
    expect(await rejection(send(get()))).toBeInstanceOf(RateLimitError);
    expect(seen).toHaveLength(0);
    expect(f.calls).toEqual(['reserve', 'withdraw']);
  });
});

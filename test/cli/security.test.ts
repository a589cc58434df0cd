// Token safety end to end (issue 8): hostctl in-process against loopback servers that misbehave
// on purpose. The token never travels over plain http to a non-loopback host, never
// follows a redirect to another origin, and never shows in --verbose output, error
// messages, config or state files. Related tests elsewhere: the lockout guard and the
// token file of --insecure-storage in auth.test.ts; the keychain in keychain.test.ts.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest, type Env } from '../support/fixtures.js';
import { filesContaining } from '../support/inproc.js';
import { behaviours, expectCleanFailure, redirectTo, type HostileServer } from '../support/hostile-server.js';

const TOKEN = 'hct_e2e_SECURITY_secret_token_k8d3';
const REDACTED = `****${TOKEN.slice(-4)}`;

const test = cliTest().extend('runEnv', (): Env => ({ HOSTCTL_TOKEN: TOKEN }));

describe('plain http to a non-loopback host', () => {
  // The evidence that nothing was sent: HTTP_PROXY and HTTPS_PROXY point at a loopback
  // server, so any request to a non-loopback host, whatever its name, would reach it.
  // The control shows that it would: the same command over https is seen there.
  const proxied = (proxy: HostileServer) => ({ HTTP_PROXY: proxy.origin, HTTPS_PROXY: proxy.origin });

  test('control: with https the request goes out (through the proxy, which refuses the tunnel)', async ({ hostctl, hostile }) => {
    const proxy = await hostile(behaviours.ok);
    const r = await hostctl(['apps', 'list', '--base-url', 'https://api.example.invalid/v1'], proxied(proxy));
    expect(r.code).toBe(6);
    expect(proxy.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['CONNECT api.example.invalid:443']);
    // A tunnel: the proxy sees the host, never the token.
    expect(JSON.stringify(proxy.seen)).not.toContain(TOKEN);
  });

  test('exit 2 before any connection, from --base-url, HOSTCTL_BASE_URL or a profile', async ({ hostctl, hostile, config }) => {
    const proxy = await hostile(behaviours.ok);
    const url = 'http://api.example.invalid/v1';
    writeFileSync(join(config.path, 'config.json'), JSON.stringify({ profiles: { plain: { baseUrl: url } } }));
    const runs = [
      await hostctl(['apps', 'list', '-v', '--base-url', url], proxied(proxy)),
      await hostctl(['apps', 'list', '-v'], { ...proxied(proxy), HOSTCTL_BASE_URL: url }),
      await hostctl(['apps', 'list', '-v', '--profile', 'plain'], proxied(proxy)),
    ];
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/Refusing base URL http:\/\/api\.example\.invalid .*only travel over https/);
      // -v logs every request line ("> GET …"); there is none.
      expect(r.stderr).not.toMatch(/^> /m);
      expect(r.stderr).not.toContain(TOKEN);
    }
    expect(proxy.connections()).toBe(0);
  });

  test('a name that only looks local (*.localhost, 127.x as a label) is not loopback', async ({ hostctl }) => {
    for (const url of ['http://api.localhost/v1', 'http://127.0.0.1.example.invalid/v1', 'http://localhost.example.invalid/v1']) {
      // config set checks a base URL exactly as a request would, and never connects.
      const r = await hostctl(['config', 'set', 'profiles.default.baseUrl', url]);
      expect(r.code, `${url}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/only travel over https/);
    }
    expect((await hostctl(['config', 'set', 'profiles.default.baseUrl', 'http://localhost:8080/v1'])).code).toBe(0);
  });
});

describe('redirects to another origin', () => {
  for (const [name, host] of [
    ['127.0.0.1:A → 127.0.0.1:B', '127.0.0.1'],
    ['127.0.0.1 → localhost', 'localhost'],
  ] as const) {
    test(`${name}: the first origin gets the token, the second never does`, async ({ hostctl, hostile }) => {
      const second = await hostile(behaviours.ok);
      const first = await hostile(redirectTo(`http://${host}:${second.port}`));
      const r = await hostctl(['apps', 'list', '--json', '-v', '--base-url', first.baseUrl]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ publicId: 'ap-hostile001', name: 'fine' }]);
      expect(first.seen.map((s) => s.headers.authorization)).toEqual([`Bearer ${TOKEN}`]);
      expect(second.seen).toHaveLength(1);
      expect(second.seen[0]?.headers.authorization).toBeUndefined();
      expect(JSON.stringify(second.seen)).not.toContain(TOKEN);
      expect(r.stderr).toMatch(/following redirect to .* \(another origin: without the token\)/);
      expect(r.stderr).not.toContain(TOKEN);
    });
  }

  test('a redirect to plain http on a non-loopback host is refused (exit 1); nothing goes there', async ({ hostctl, hostile }) => {
    const proxy = await hostile(behaviours.ok);
    const first = await hostile(redirectTo('http://api.example.invalid'));
    const r = await hostctl(['apps', 'list', '--base-url', first.baseUrl], { HTTP_PROXY: proxy.origin, HTTPS_PROXY: proxy.origin });
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/redirected to plain http \(http:\/\/api\.example\.invalid\); hostctl refuses to follow/);
    expect(first.seen).toHaveLength(1);
    expect(proxy.connections()).toBe(0);
  });
});

describe('--verbose and error messages', () => {
  test('show the token as **** + last four, also where a hostile server echoes it in headers and body', async ({ hostctl, hostile }) => {
    const echo = await hostile(behaviours.echoesToken);
    const r = await hostctl(['apps', 'list', '-v', '--base-url', echo.baseUrl]);
    expect(r.code).toBe(1);
    expect(echo.seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // The request headers as sent, the response headers as echoed, the error message.
    expect(r.stderr).toContain(`> authorization: Bearer ${REDACTED}`);
    expect(r.stderr).toContain(`< x-echo-authorization: Bearer ${REDACTED}`);
    expect(r.stderr).toMatch(new RegExp(`^hostctl: .*could not use Bearer \\*{4}${TOKEN.slice(-4)}`, 'm'));
    expect(r.stderr).not.toContain(TOKEN);
    expect(r.stdout).not.toContain(TOKEN);

    // Without -v the message is still scrubbed, and clean.
    const quiet = await hostctl(['apps', 'list', '--base-url', echo.baseUrl]);
    expectCleanFailure(quiet, 1, TOKEN);
    expect(quiet.stderr).toContain(REDACTED);
  });
});

describe('--verbose and the one sink', () => {
  test('masks the token in every case a server echoes it, and a short token whole, as every other output does', async ({ hostctl, hostile }) => {
    // Long enough for the sink (6), too short to show its last four (under 12).
    const short = 'hct_9zq7Wx';
    const variants = (t: string) => [t, t.toUpperCase(), t.toLowerCase()];
    const echo = await hostile((req, res) => {
      const auth = req.headers.authorization ?? '';
      const token = auth.replace(/^Bearer /, '');
      res.writeHead(500, { 'content-type': 'application/problem+json', 'x-echo': auth, 'x-echo-upper': token.toUpperCase(), 'x-echo-lower': token.toLowerCase() });
      res.end(JSON.stringify({ title: 'Internal error', detail: `could not use ${token.toUpperCase()}` }));
    });
    for (const token of [TOKEN, short]) {
      const r = await hostctl(['apps', 'list', '-v', '--base-url', echo.baseUrl], { HOSTCTL_TOKEN: token });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('< x-echo-upper: ****');
      for (const v of variants(token)) {
        expect(r.stderr).not.toContain(v);
        expect(r.stdout).not.toContain(v);
      }
    }
    // All of a short token is hidden: not even its last four, in any line of the log.
    const r = await hostctl(['apps', 'list', '-v', '--base-url', echo.baseUrl], { HOSTCTL_TOKEN: short });
    expect(r.stderr).toContain('> authorization: Bearer ****\n');
    expect(r.stderr).toContain('< x-echo: Bearer ****\n');
    expect(r.stderr.toLowerCase()).not.toContain(short.slice(-4).toLowerCase());
  });
});

describe('files', () => {
  test('config and state hold fingerprints, never the token, after successful, failing and rejected runs', async ({ hostctl, sandbox, config, home }) => {
    const env = { HOSTCTL_TOKEN: sandbox.token, HOSTCTL_BASE_URL: sandbox.baseUrl };
    expect((await hostctl(['config', 'set', 'profiles.default.output', 'json'], env)).code).toBe(0);
    const listed = await hostctl(['apps', 'list', '-v', '-R', '--limit', '2'], env);
    expect(listed.code).toBe(0);
    const id = String((JSON.parse(listed.stdout) as { publicId: string }[])[0]?.publicId);
    expect((await hostctl(['apps', 'get', id, 'ap-doesnotexist'], env)).code).toBe(3);
    const bogus = 'hct_e2e_made_up_token_never_valid_9z9z';
    expect((await hostctl(['apps', 'list'], { ...env, HOSTCTL_TOKEN: bogus })).code).toBe(4);
    expect((await hostctl(['apps', 'list', '-v'], { ...env, HOSTCTL_TOKEN: bogus })).code).toBe(4);

    const state = readFileSync(join(config.path, 'state.json'), 'utf8');
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    // What the state is for: the mark of the bad one; the good token's rate state is in its budget file.
    expect(JSON.parse(state)).toMatchObject({ rejected: { [sha(bogus)]: { status: 401 } } });
    expect(JSON.parse(state)).not.toHaveProperty('rateLimits');
    const rateOf = (t: string) => {
      const file = join(config.path, 'budget', `${sha(t)}.json`);
      return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { rate?: unknown }).rate : undefined;
    };
    expect(rateOf(sandbox.token)).toMatchObject({ limit: expect.any(Number), remaining: expect.any(Number), seenAt: expect.any(Number) });
    // A rejected token's 401 teaches no rate state.
    expect(rateOf(bogus)).toBeUndefined();
    for (const t of [sandbox.token, bogus]) {
      expect(filesContaining(config.path, t)).toEqual([]);
      expect(filesContaining(home.path, t)).toEqual([]);
    }
    expect(listed.stderr).not.toContain(sandbox.token);
    expect(listed.stderr).toContain(`****${sandbox.token.slice(-4)}`);
  });
});

describe('a token that cannot be a header value', () => {
  test('CR, LF or another control character in HOSTCTL_TOKEN is a usage error (exit 2), nothing sent, the token not echoed', async ({ hostctl, hostile }) => {
    const api = await hostile(behaviours.ok);
    for (const bad of [`${TOKEN}\r\nX-Injected: 1`, `${TOKEN}\nsecond-line`, `abc\u0000${TOKEN}`, `${TOKEN}\u007f`]) {
      const r = await hostctl(['apps', 'list', '--base-url', api.baseUrl], { HOSTCTL_TOKEN: bad });
      expect(r.code, JSON.stringify(bad)).toBe(2);
      expect(r.stderr).toBe(
        'hostctl: The token from HOSTCTL_TOKEN holds a line break or another character that cannot be sent in an HTTP header; nothing was sent.\nSet HOSTCTL_TOKEN to the token alone, on one line.\n',
      );
    }
    expect(api.seen).toEqual([]);
  });
});

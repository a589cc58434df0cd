// Trust at the edges (issue 12): hostctl in-process against hostile loopback servers and odd
// input. The token never reaches stdout or stderr, whichever path built the text (one sink,
// io.ts); numbers from the server are bounded; redirects and next links are handled safely.
// Read-only dirs take another user and the real process: test/e2e/unwritable-dirs.test.ts.

import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { filesContaining, runCli, type RunResult } from '../support/inproc.js';
import { cliTest } from '../support/fixtures.js';
import {
  answer,
  bearer,
  behaviours,
  expectCleanFailure,
  jsonEscaped,
  NO_PROXY_ENV,
} from '../support/hostile-server.js';

const TOKEN = 'hct_e2e_EDGES_secret_token_q7w2';
const REDACTED = `****${TOKEN.slice(-4)}`;
const JSON_TYPE = { 'content-type': 'application/json' };

function chmodRecursive(path: string): void {
  try {
    chmodSync(path, 0o700);
    for (const e of readdirSync(path, { withFileTypes: true })) if (e.isDirectory()) chmodRecursive(join(path, e.name));
  } catch {
    // gone already
  }
}

// Every run has the token, and none of the developer's XDG state or runtime dirs.
const test = cliTest().extend('runEnv', ({ home, config }, { onCleanup }) => {
  // A test may have made a directory read-only; give it back so it can be removed.
  onCleanup(() => {
    chmodRecursive(home.path);
    chmodRecursive(config.path);
  });
  return { HOSTCTL_TOKEN: TOKEN, XDG_STATE_HOME: undefined, XDG_RUNTIME_DIR: undefined };
});

function expectNoToken(r: RunResult): void {
  const all = `${r.stdout}\n${r.stderr}`;
  expect(all, all).not.toContain(TOKEN);
  expect(all.toLowerCase(), all).not.toContain(TOKEN.toLowerCase());
  // No more than the last four of it, anywhere.
  expect(all, all).not.toContain(TOKEN.slice(0, 12));
}

describe('the token never reaches stdout or stderr (one sink)', () => {
  test('a 429 body that echoes the Authorization header', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(429, { ...JSON_TYPE, 'retry-after': '30' }, (req) => JSON.stringify({ detail: `slow down, ${req.headers.authorization}` })));
    const r = await hostctl(['apps', 'list', '--base-url', s.baseUrl, '--no-wait']);
    expectCleanFailure(r, 5, TOKEN);
    expectNoToken(r);
    expect(r.stderr).toContain(REDACTED);
  });

  test('a long 500 detail is cut after the token is replaced, not before', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(500, JSON_TYPE, (req) => JSON.stringify({ detail: `${'x'.repeat(130)} ${bearer(req)} and more text after it` })));
    const r = await hostctl(['apps', 'list', '--base-url', s.baseUrl]);
    expectCleanFailure(r, 1, TOKEN);
    expectNoToken(r);
  });

  test('a Link header carrying the token, quoted as an invalid next page', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, { ...JSON_TYPE, link: (req) => `<http://[${bearer(req)}>; rel="next"` }, '[{"publicId":"ap-1","name":"a"}]'));
    const r = await hostctl(['apps', 'list', '--all', '--base-url', s.baseUrl]);
    expect(r.code, r.stderr).toBe(1);
    expectNoToken(r);
  });

  test('a next link whose host is the token, printed as the origin', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, { ...JSON_TYPE, link: (req) => `<https://${bearer(req)}.invalid/v1/apps?page=2>; rel="next"` }, '[{"publicId":"ap-1","name":"a"}]'));
    const r = await hostctl(['apps', 'list', '--all', '--base-url', s.baseUrl]);
    expect(r.code, r.stderr).toBe(1);
    expectNoToken(r);
  });

  test('a redirect whose host is the token (lower-cased by URL parsing)', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(302, { location: (req) => `http://${bearer(req)}.invalid/v1/apps`, 'content-length': '0' }, ''));
    const r = await hostctl(['apps', 'list', '--base-url', s.baseUrl, '-v']);
    expect(r.code, r.stderr).toBe(1);
    expectNoToken(r);
  });

  test('an object holding the token, in tsv, json and table output', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, JSON_TYPE, (req) => JSON.stringify([{ publicId: 'ap-1', name: bearer(req), [bearer(req)]: 1 }])));
    for (const output of ['tsv', 'json', 'ndjson', 'table']) {
      const r = await hostctl(['apps', 'list', '-o', output, '--base-url', s.baseUrl]);
      expect(r.code, r.stderr).toBe(0);
      expectNoToken(r);
      expect(r.stdout).toContain(REDACTED);
    }
  });

  test('hostctl api: a JSON-escaped token (\\u0068…, \\/) is caught once decoded', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, JSON_TYPE, (req) => `{"echo":"${jsonEscaped(bearer(req))}","slashed":"${bearer(req).replace(/_/g, '\\/_')}"}`));
    for (const output of ['json', 'ndjson', 'tsv']) {
      const r = await hostctl(['api', '/apps', '-o', output, '--base-url', s.baseUrl]);
      expect(r.code, r.stderr).toBe(0);
      expectNoToken(r);
      expect(r.stdout).toContain(REDACTED);
    }
  });

  test('hostctl api on text that is not JSON, and -i headers', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, { 'content-type': 'text/plain', 'x-echo': (req) => bearer(req) }, (req) => `you sent ${bearer(req)}\n`));
    const r = await hostctl(['api', '/apps', '-i', '--base-url', s.baseUrl]);
    expect(r.code, r.stderr).toBe(0);
    expectNoToken(r);
  });

  test('auth token is the one command that prints it', async ({ hostctl }) => {
    const r = await hostctl(['auth', 'token']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${TOKEN}\n`);
  });

  test('docs --open does not hand HOSTCTL_TOKEN to the browser', async ({ hostctl, home: { path: home } }) => {
    const out = join(home, 'browser-env.txt');
    const browser = join(home, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nenv > '${out}'\n`, { mode: 0o700 });
    const r = await hostctl(['docs', '--open', '--base-url', 'http://127.0.0.1:9/v1'], { BROWSER: browser });
    expect(r.code, r.stderr).toBe(0);
    const env = readFileSync(out, 'utf8');
    expect(env).toContain('HOSTCTL_CONFIG_DIR=');
    expect(env).not.toContain('HOSTCTL_TOKEN');
    expect(env).not.toContain(TOKEN);
  });
});

// The lockout guard on read-only dirs, and EACCES on the config dir, take the real process
// as another user: test/e2e/unwritable-dirs.test.ts.

describe('numbers from the server are bounded', () => {
  test('a Reset more than an hour away is not trusted, and rate-limit --refresh always sends', async ({ hostctl, hostile: server }) => {
    const s = await server(
      answer(200, { ...JSON_TYPE, 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1000000000000' }, '[]'),
    );
    const first = await hostctl(['apps', 'list', '--base-url', s.baseUrl]);
    expect(first.code, first.stderr).toBe(0);
    const second = await hostctl(['apps', 'list', '--base-url', s.baseUrl, '--no-wait']);
    expect(second.code, second.stderr).toBe(0);
    const refresh = await hostctl(['rate-limit', '--refresh', '--base-url', s.baseUrl, '--no-wait']);
    expect(refresh.code, refresh.stderr).toBe(0);
    expect(s.seen.length).toBe(3);
  });

  test('rate-limit --refresh sends even when the window is spent', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, { ...JSON_TYPE, 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '600' }, '[]'));
    expect((await hostctl(['apps', 'list', '--base-url', s.baseUrl])).code).toBe(0);
    const refresh = await hostctl(['rate-limit', '--refresh', '--base-url', s.baseUrl, '--no-wait']);
    expect(refresh.code, refresh.stderr).toBe(0);
    expect(s.seen.length).toBe(2);
  });

  test('--timeout above 2^31-1 ms, or with sub-millisecond digits, works; nonsensical values are usage errors', async ({ hostctl, hostile: server }) => {
    const s = await server(behaviours.ok);
    for (const t of ['3000000', '99999999999', '1.0005']) {
      const r = await hostctl(['apps', 'list', '--base-url', s.baseUrl, '--timeout', t]);
      expect(r.code, `--timeout ${t}: ${r.stderr}`).toBe(0);
    }
    const big = await hostctl(['apps', 'list', '--base-url', s.baseUrl, '--max-wait', '1e13']);
    expect(big.code, big.stderr).toBe(0);
    for (const args of [
      ['--timeout', '1e400'],
      ['--timeout', 'Infinity'],
      ['--timeout', '0.0001'],
      ['--timeout', 'NaN'],
      ['--max-wait', '-1'],
      ['--max-wait', '1e400'],
    ]) {
      const r = await hostctl(['apps', 'list', '--base-url', s.baseUrl, ...args]);
      expectCleanFailure(r, 2, TOKEN);
    }
    expect(s.seen.length).toBe(4);
  });

  test('a Retry-After beyond any timer with --max-wait 1e13: no tight loop of retries', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(429, { ...JSON_TYPE, 'retry-after': '99999999999' }, '{"detail":"later"}'));
    const r = await hostctl(['apps', 'list', '--base-url', s.baseUrl, '--max-wait', '1e13']);
    expectCleanFailure(r, 5, TOKEN);
    expect(s.seen.length).toBe(1);
  });
});

describe('bodies: any depth, any size up to the cap', () => {
  const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;

  test('10,000-deep JSON is refused with one clear sentence, in list and in api', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, JSON_TYPE, deep(10_000)));
    for (const args of [['apps', 'list'], ['api', '/apps']]) {
      const r = await hostctl([...args, '--base-url', s.baseUrl]);
      expectCleanFailure(r, 1, TOKEN);
      expect(r.stderr).toMatch(/nested more than 512 levels deep/);
    }
    const json = await hostctl(['api', '/apps', '--json', '--base-url', s.baseUrl]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'api', message: expect.stringMatching(/nested more than 512 levels deep/) as unknown } });
  });

  test('a 16-digit number makes no difference to deep JSON (the exact parser refuses it the same way)', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, JSON_TYPE, `${'['.repeat(10_000)}1234567890123456789${']'.repeat(10_000)}`));
    const r = await hostctl(['api', '/apps', '--base-url', s.baseUrl]);
    expectCleanFailure(r, 1, TOKEN);
  });

  test('JSON 500 levels deep is printed, exact printer included', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, JSON_TYPE, `[${deep(499)},12345678901234567890]`));
    for (const output of ['json', 'ndjson']) {
      const r = await hostctl(['api', '/apps', '-o', output, '--base-url', s.baseUrl]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.replace(/\s/g, '')).toBe(output === 'json' ? `[${deep(499)},12345678901234567890]` : `${deep(499)}12345678901234567890`);
    }
  });

  test('a valid 12 MB body with a 16-digit number parses, the number exact', async ({ hostctl, hostile: server }) => {
    const big = 'x'.repeat(12 * 1024 * 1024);
    const body = `[{"publicId":"ap-big","name":"${big}","bytes":1234567890123456789}]`;
    const s = await server(answer(200, JSON_TYPE, body));
    const api = await hostctl(['api', '/apps', '--json', '--base-url', s.baseUrl]);
    expect(api.code, api.stderr.slice(0, 500)).toBe(0);
    expect(api.stdout).toContain('"bytes": 1234567890123456789');
    const list = await hostctl(['apps', 'list', '--json', '--fields', 'publicId,bytes', '--base-url', s.baseUrl]);
    expect(list.code, list.stderr.slice(0, 500)).toBe(0);
    expect(list.stdout).toContain('1234567890123456789');
  });

  test('api: a body said to be JSON that is not, or a compressed body, is an error with nothing printed', async ({ hostctl, hostile: server }) => {
    const bad = await server(answer(200, JSON_TYPE, '{"a": 1, '));
    const r1 = await hostctl(['api', '/apps', '--base-url', bad.baseUrl]);
    expectCleanFailure(r1, 1, TOKEN);
    expect(r1.stderr).toMatch(/invalid or incomplete JSON/);
    const gz = await server(answer(200, { ...JSON_TYPE, 'content-encoding': 'gzip' }, '\u001f\u008b\u0008\u0000binary'));
    const r2 = await hostctl(['api', '/apps', '--base-url', gz.baseUrl]);
    expectCleanFailure(r2, 1, TOKEN);
    expect(r2.stderr).toMatch(/compressed body \(gzip\)/);
  });
});

describe('redirects and next links', () => {
  test('a cross-origin redirect drops the user\'s -H headers but harmless ones', async ({ hostctl, hostile: server }) => {
    const other = await server(behaviours.ok);
    const s = await server(answer(307, { location: `${other.baseUrl}/apps`, 'content-length': '0' }, ''));
    const r = await hostctl(['api', '/apps', '-H', 'Cookie: session=abc', '-H', 'X-Secret: s3cr3t', '-H', 'Accept-Language: de', '--base-url', s.baseUrl]);
    expect(r.code, r.stderr).toBe(0);
    expect(s.seen[0]?.headers.cookie).toBe('session=abc');
    const there = other.seen[0]?.headers;
    expect(there?.cookie).toBeUndefined();
    expect(there?.['x-secret']).toBeUndefined();
    expect(there?.authorization).toBeUndefined();
    expect(there?.['accept-language']).toBe('de');
  });

  test('a cross-origin 307 of a request with a body is not followed; a 302 turns it into a GET without it', async ({ hostctl, hostile: server }) => {
    const other = await server(behaviours.ok);
    const s307 = await server(answer(307, { location: `${other.baseUrl}/apps`, 'content-length': '0' }, ''));
    const r = await hostctl(['api', '-X', 'POST', '/apps', '-f', 'name=secret-plan', '--base-url', s307.baseUrl]);
    expectCleanFailure(r, 1, TOKEN);
    expect(other.seen).toEqual([]);
    const s302 = await server(answer(302, { location: `${other.baseUrl}/apps`, 'content-length': '0' }, ''));
    const r2 = await hostctl(['api', '-X', 'POST', '/apps', '-f', 'name=secret-plan', '--base-url', s302.baseUrl]);
    expect(r2.code, r2.stderr).toBe(0);
    expect(other.seen.map((x) => x.method)).toEqual(['GET']);
  });

  test('a next link to another origin is ignored where one page is shown, and fails only a walk', async ({ hostctl, hostile: server }) => {
    const s = await server(
      answer(200, { ...JSON_TYPE, link: '<https://elsewhere.invalid/v1/apps?page=2>; rel="next"' }, '[{"publicId":"ap-1","name":"a"},{"publicId":"ap-2","name":"b"}]'),
    );
    for (const args of [['apps', 'list'], ['apps', 'list', '--limit', '1'], ['apps', 'list', '--page', '1'], ['apps', 'get', 'ap-1']]) {
      const r = await hostctl([...args, '-o', 'tsv', '--base-url', s.baseUrl]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/^ap-1\t/);
    }
    const walk = await hostctl(['apps', 'list', '--all', '--base-url', s.baseUrl]);
    expectCleanFailure(walk, 1, TOKEN);
    expect(walk.stderr).toMatch(/another origin/);
  });
});

describe('local mistakes are usage errors (exit 2), sent nowhere', () => {
  test('-H values with control characters, forbidden headers, a line break', async ({ hostctl, hostile: server }) => {
    const s = await server(behaviours.ok);
    for (const h of ['X-A: a\u0001b', 'X-A: a\u007fb', 'X-A: 😀', 'Expect: 100-continue', 'Upgrade: websocket', 'Keep-Alive: timeout=5', 'TE: trailers', 'X-A: one\r\nX-B: two']) {
      const r = await hostctl(['api', '/apps', '-H', h, '--base-url', s.baseUrl]);
      expectCleanFailure(r, 2, TOKEN);
    }
    expect(s.connections()).toBe(0);
  });

  test('a base URL without /v1, or not http(s), from any origin', async ({ hostctl, hostile: server }) => {
    const s = await server(behaviours.ok);
    for (const url of [s.origin, `${s.origin}/api`, 'javascript:alert(1)', 'file:///etc/passwd']) {
      const r = await hostctl(['apps', 'list', '--base-url', url]);
      expectCleanFailure(r, 2, TOKEN);
      expect(r.stderr).not.toMatch(/null/);
    }
    const env = await hostctl(['apps', 'list'], { HOSTCTL_BASE_URL: s.origin });
    expectCleanFailure(env, 2, TOKEN);
    expect(env.stderr).toMatch(/must end in \/v1/);
    expect(s.connections()).toBe(0);
  });

  test('an empty, path-like or unknown profile name', async ({ hostctl, hostile: server, config: { path: config } }) => {
    const s = await server(behaviours.ok);
    writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { prod: { baseUrl: s.baseUrl }, staging: { baseUrl: s.baseUrl } } }));
    for (const name of ['', 'a/../x', '../../etc']) {
      const r = await hostctl(['--profile', name, 'apps', 'list', '--base-url', s.baseUrl]);
      expectCleanFailure(r, 2, TOKEN);
    }
    const unknown = await hostctl(['--profile', 'prdo', 'apps', 'list', '--base-url', s.baseUrl]);
    expectCleanFailure(unknown, 2, TOKEN);
    expect(unknown.stderr).toMatch(/no profile prdo; known: prod, staging\./);
    const fromEnv = await hostctl(['apps', 'list', '--base-url', s.baseUrl], { HOSTCTL_PROFILE: 'prdo' });
    expectCleanFailure(fromEnv, 2, TOKEN);
    // Named as such with no base URL anywhere, too: not "No base URL is set".
    for (const r of [await hostctl(['--profile', 'prdo', 'apps', 'list']), await hostctl(['teams', 'list'], { HOSTCTL_PROFILE: 'prdo' })]) {
      expectCleanFailure(r, 2, TOKEN);
      expect(r.stderr).toMatch(/no profile prdo; known: prod, staging\./);
      expect(r.stderr).not.toMatch(/No base URL/);
    }
    expect(s.connections()).toBe(0);
    const known = await hostctl(['--profile', 'prod', 'apps', 'list']);
    expect(known.code, known.stderr).toBe(0);
  });

  test('--json with a different -o', async ({ hostctl, hostile: server }) => {
    const s = await server(behaviours.ok);
    const r = await hostctl(['apps', 'list', '--json', '-o', 'tsv', '--base-url', s.baseUrl]);
    // Under --json the error is one JSON line (issue 27); without it, a clean sentence.
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'usage', message: '--json and -o tsv ask for two different formats.' } });
    expectCleanFailure(await hostctl(['apps', 'list', '-o', 'tsv', '--jq', '.[', '--base-url', s.baseUrl]), 2, TOKEN);
    expect(s.connections()).toBe(0);
    const same = await hostctl(['apps', 'list', '--json', '-o', 'json', '--base-url', s.baseUrl]);
    expect(same.code, same.stderr).toBe(0);
  });

  test('a global option that means nothing to the sandbox, before it: a clean usage error', async ({ hostctl }) => {
    const r = await hostctl(['--profile', 'x', 'sandbox']);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain('--profile does not apply to the sandbox');
  });

  test('auth login and auth status --check need the API\'s JSON: a web page is refused, nothing stored', async ({ hostctl, hostile: server, config: { path: config }, home: { path: home } }) => {
    const s = await server(answer(200, { 'content-type': 'text/html' }, '<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>'));
    const login = await runCli(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', s.baseUrl], {
      env: { ...NO_PROXY_ENV, HOME: home, HOSTCTL_CONFIG_DIR: config },
      input: TOKEN,
    });
    expectCleanFailure(login, 1, TOKEN);
    // The state file and the shared request budget (src/http/budget.ts) hold fingerprints, never a token.
    expect(readdirSync(config).filter((f) => f !== 'state.json' && f !== 'budget')).toEqual([]);
    expect(filesContaining(config, TOKEN)).toEqual([]);
    const check = await hostctl(['auth', 'status', '--check', '--base-url', s.baseUrl]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/Check: +failed/);
  });
});

describe('terminal safety, completed', () => {
  const NAMES = ['ap-\u200b1', 'a\u202eb\u2066c\u2069\ufeffd\u2028e\u2029f\u200dg', '\u001b]8;;https://evil.invalid/\u001b\\link\u001b]8;;\u001b\\', 'dcs\u001bPq#0\u001b\\done'];
  const rows = NAMES.map((name, i) => ({ publicId: `ap-${i}`, name }));

  test('zero-width, bidi and format characters are stripped from table and tsv; no stray backslash after OSC/DCS', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, JSON_TYPE, JSON.stringify(rows)));
    for (const output of ['tsv', 'table']) {
      const r = await hostctl(['apps', 'list', '-o', output, '--base-url', s.baseUrl]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u2028\u2029\u001b]/);
      expect(r.stdout).toContain('ap-1');
      expect(r.stdout).toContain('abcdefg');
      expect(r.stdout).toMatch(/\blink\b/);
      expect(r.stdout).not.toContain('\\link');
      expect(r.stdout).not.toMatch(/link\\/);
      expect(r.stdout).toContain('dcsdone');
    }
  });

  test('JSON keeps the exact strings', async ({ hostctl, hostile: server }) => {
    const s = await server(answer(200, JSON_TYPE, JSON.stringify(rows)));
    const r = await hostctl(['apps', 'list', '--json', '--base-url', s.baseUrl]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { name: string }[]).map((x) => x.name)).toEqual(NAMES);
  });
});

describe('clear messages instead of "unexpected error"', () => {
  test('a file in the way of the config dir', async ({ hostctl, home: { path: home } }) => {
    const file = join(home, 'not-a-dir');
    writeFileSync(file, '');
    const inTheWay = await hostctl(['config', 'set', 'defaultProfile', 'staging'], { HOSTCTL_CONFIG_DIR: file });
    expectCleanFailure(inTheWay, 1, TOKEN);
    expect(inTheWay.stderr).toMatch(/a file is in the way/);
    const login = await runCli(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', 'http://127.0.0.1:9/v1'], {
      env: { ...NO_PROXY_ENV, HOME: home, HOSTCTL_CONFIG_DIR: join(file, 'sub') },
      input: TOKEN,
    });
    // Refused before the token is sent anywhere: the config dir asked for cannot be read
    // (a usage error: the user points HOSTCTL_CONFIG_DIR elsewhere).
    expectCleanFailure(login, 2, TOKEN);
    expect(login.stderr).toMatch(/^hostctl: Cannot read the config file .*\/not-a-dir\/sub\/config\.json \(a file is in the way where a directory should be, ENOTDIR\)\.\nCheck the file, or point HOSTCTL_CONFIG_DIR at a directory of yours\.\n$/);
  });

  test('no proxy hint when NO_PROXY sent the request past the proxy', async ({ hostctl, hostile: server }) => {
    const proxy = await server(behaviours.ok);
    const r = await hostctl(['apps', 'list', '--base-url', 'https://api.example.invalid/v1'], {
      HTTPS_PROXY: proxy.origin,
      NO_PROXY: 'localhost,.example.invalid',
    });
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).not.toMatch(/proxy/i);
    expect(proxy.seen).toEqual([]);
  });

  test('auth logout with no keychain reachable gives logout advice, not the ways to store a token', async ({ hostctl }) => {
    expect((await hostctl(['config', 'set', 'profiles.kc.storage', 'keychain'])).code).toBe(0);
    const r = await hostctl(['--profile', 'kc', 'auth', 'logout'], { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus', HOSTCTL_TOKEN: undefined });
    expectCleanFailure(r, 4, TOKEN);
    expect(r.stderr).toMatch(/Run "hostctl auth logout" again where the keychain is reachable/);
    expect(r.stderr).not.toMatch(/insecure-storage/);
  });
});

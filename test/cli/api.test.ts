// `hostctl api` end to end: hostctl in-process (test/support/inproc.ts) against the sandbox (and the
// independent alt server where its different choices matter: Link-header paging, its own
// error bodies, and as "another origin" that must never be reached).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest, type Env } from '../support/fixtures.js';
import type { RunResult } from '../support/inproc.js';
import { platformOf, type PlatformServer } from '../support/servers.js';
import { smallWorld } from '../support/small-world.js';

interface LoggedBody {
  method: string;
  path: string;
  query: string;
  status: number;
  body: unknown;
}

/** The sandbox's own request log, with bodies, as raw text and parsed. */
async function sandboxLog(server: PlatformServer): Promise<{ text: string; entries: LoggedBody[] }> {
  const res = await fetch(`${new URL(server.baseUrl).origin}/_sandbox/requests`);
  const text = await res.text();
  return { text, entries: JSON.parse(text) as LoggedBody[] };
}

const PAGE_SIZE = 7;

/** Twenty apps in pages of seven: a walk of three pages and the empty one that ends it. */
const APPS = Array.from({ length: 20 }, (_, i) => ({
  publicId: `ap-api${String(i).padStart(6, '0')}`,
  name: `api-app-${i}`,
  status: i % 5 === 4 ? 'stopped' : 'running',
  region: 'eu-west',
  createdAt: `2026-01-${String(10 + i)}T10:00:00Z`,
}));

const test = cliTest({ sandbox: ['--rate-limit', '100000', '--page-size', String(PAGE_SIZE), ...smallWorld(undefined, { apps: APPS })], runOnSandbox: true })
  .extend('server', ({ sandbox }): PlatformServer => platformOf(sandbox))
  /** The file's sandbox's apps as the test begins (earlier tests may have created some). */
  .extend('apps', ({ server }) => server.all('apps'))
  .extend('files', ({ newDir }) => ({ path: newDir('hostctl-api-files-') }));

/** hostctl's address and token for `server`. */
const on = (server: { baseUrl: string; token: string }): Env => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token });

const ok = (r: RunResult): RunResult => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r;
};

describe('hostctl api against the sandbox', () => {
  test('GET by default: the body as pretty JSON without JSON-LD members, one request', async ({ hostctl, server, apps }) => {
    await server.clearRequests();
    const r = ok(await hostctl(['api', '/apps']));
    expect(r.stdout).toMatch(/^\[\n {2}\{\n {4}"publicId"/);
    const body = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(body.map((a) => a.publicId)).toEqual(apps.slice(0, PAGE_SIZE).map((a) => a.publicId));
    expect(r.stdout).not.toMatch(/"@/);
    expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/apps', query: '' }]);
  });

  test('takes a path without a slash, and an absolute URL of the same origin', async ({ hostctl, server, apps }) => {
    const id = String(apps[0]!.publicId);
    const plain = JSON.parse(ok(await hostctl(['api', `apps/${id}`])).stdout) as Record<string, unknown>;
    const absolute = JSON.parse(ok(await hostctl(['api', `${server.baseUrl}/apps/${id}`])).stdout) as Record<string, unknown>;
    expect(plain).toEqual(apps[0]);
    expect(absolute).toEqual(apps[0]);
  });

  test('POST with -f and -F: the server receives typed JSON (numbers, booleans, null, @file, nesting)', async ({ hostctl, server, files }) => {
    await server.clearRequests();
    const readme = join(files.path, 'readme.txt');
    writeFileSync(readme, 'line one\nline "two"\n');
    const r = ok(
      await hostctl([
        'api', '/apps',
        '-f', 'name=typed-demo', '-f', 'count=2', '-f', 'tags[]=a', '-f', 'tags[]=b',
        '-F', 'replicas=3', '-F', 'ratio=0.25', '-F', 'public=true', '-F', 'paused=false', '-F', 'note=null',
        '-F', 'big=12345678901234567890', '-F', 'zip=007', '-F', `readme=@${readme}`,
        '-F', 'owner[team]=te-1', '-F', 'owner[size]=4', '-F', 'labels[]', '-F', 'ports[][name]=http', '-F', 'ports[][port]=80', '-F', 'ports[][name]=https',
      ]),
    );
    const { text, entries } = await sandboxLog(server);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: 'POST', path: '/v1/apps', status: 201 });
    expect(entries[0]!.body).toEqual({
      name: 'typed-demo',
      count: '2',
      tags: ['a', 'b'],
      replicas: 3,
      ratio: 0.25,
      public: true,
      paused: false,
      note: null,
      big: expect.any(Number) as unknown,
      zip: '007',
      readme: 'line one\nline "two"\n',
      owner: { team: 'te-1', size: 4 },
      labels: [],
      ports: [{ name: 'http', port: 80 }, { name: 'https' }],
    });
    // The big integer arrived exactly, not rounded by a double on the way.
    expect(text).toContain('"big":12345678901234567890');
    const created = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(created).toMatchObject({ name: 'typed-demo', replicas: 3, public: true });
    expect(String(created.publicId)).toMatch(/^ap-/);
    expect(r.stdout).toContain('"big": 12345678901234567890');
    // And the server really stored it.
    const fetched = JSON.parse(ok(await hostctl(['api', `/apps/${String(created.publicId)}`])).stdout) as Record<string, unknown>;
    expect(fetched.replicas).toBe(3);
  });

  test('-X GET puts the fields in the query string, brackets raw, in order', async ({ hostctl, server, apps }) => {
    await server.clearRequests();
    const [a, b] = [String(apps[3]!.publicId), String(apps[1]!.publicId)];
    const r = ok(await hostctl(['api', '-X', 'GET', '/apps', '-f', `publicId[]=${a}`, '-F', `publicId[]=${b}`]));
    expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/apps', query: `publicId[]=${a}&publicId[]=${b}` }]);
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((x) => x.publicId).sort()).toEqual([a, b].sort());
  });

  test('--input FILE sends the file as the body, byte for byte; fields then go to the query string', async ({ hostctl, server, files }) => {
    await server.clearRequests();
    const file = join(files.path, 'body.json');
    writeFileSync(file, '{"name":"from-file","size":1.50}');
    const r = ok(await hostctl(['api', '/apps', '--input', file, '-f', 'dryRun=no']));
    const { entries } = await sandboxLog(server);
    expect(entries.map((e) => [e.method, e.path, e.query])).toEqual([['POST', '/v1/apps', 'dryRun=no']]);
    expect(entries[0]!.body).toEqual({ name: 'from-file', size: 1.5 });
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'from-file' });
  });

  test('--input - reads the body from stdin; -F key=@- reads a value from stdin', async ({ hostctl, server }) => {
    await server.clearRequests();
    ok(await hostctl(['api', '/apps', '--input', '-'], {}, { input: '{"name":"from-stdin"}' }));
    ok(await hostctl(['api', '/apps', '-F', 'description=@-', '-f', 'name=stdin-field'], {}, { input: 'typed on stdin\n' }));
    const { entries } = await sandboxLog(server);
    expect(entries.map((e) => e.body)).toEqual([{ name: 'from-stdin' }, { description: 'typed on stdin\n', name: 'stdin-field' }]);
  });

  test('-H sends a header: Accept: text/html gets the HTML reference, printed as it came', async ({ hostctl }) => {
    const r = ok(await hostctl(['api', '/docs', '-H', 'Accept: text/html']));
    expect(r.stdout).toMatch(/^<!doctype html>/i);
    const json = ok(await hostctl(['api', '/docs']));
    expect(JSON.parse(json.stdout)).toMatchObject({ openapi: expect.stringMatching(/^3\./) as unknown });
  });

  test('-i prints the status line and headers on stdout before the body', async ({ hostctl, apps }) => {
    const r = ok(await hostctl(['api', '-i', `/apps/${String(apps[0]!.publicId)}`]));
    const [head, body] = r.stdout.split('\n\n', 2) as [string, string];
    const lines = head.split('\n');
    expect(lines[0]).toBe('HTTP/1.1 200 OK');
    expect(lines).toContain('X-Ratelimit-Limit: 100000');
    expect(lines.some((l) => /^Content-Type: application\/json/.test(l))).toBe(true);
    expect(JSON.parse(body)).toEqual(apps[0]);
  });

  test('--paginate walks every page (?page=N+1) and concatenates the arrays', async ({ hostctl, server, apps }) => {
    await server.clearRequests();
    const r = ok(await hostctl(['api', '/apps', '--paginate']));
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((a) => a.publicId)).toEqual(apps.map((a) => a.publicId));
    // Full pages, then a shorter (or empty) one that ends the walk.
    const pages = Math.floor(apps.length / PAGE_SIZE) + 1;
    const requests = await server.requests();
    expect(requests).toHaveLength(pages);
    expect(requests.map((q) => q.query)).toEqual(['', ...Array.from({ length: pages - 1 }, (_v, i) => `page=${i + 2}`)]);
  });

  test('--paginate -o ndjson prints one object per line; -i prints each page\'s head', async ({ hostctl, apps }) => {
    const nd = ok(await hostctl(['api', '/apps', '--paginate', '-o', 'ndjson']));
    const lines = nd.stdout.trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as Record<string, unknown>).publicId)).toEqual(apps.map((a) => a.publicId));
    const withHead = ok(await hostctl(['api', '/apps', '--paginate', '-i', '-o', 'ndjson']));
    expect(withHead.stdout.match(/^HTTP\/1\.1 200 OK$/gm)).toHaveLength(Math.floor(apps.length / PAGE_SIZE) + 1);
  });

  test('-o tsv and --fields go through the same output layer as list', async ({ hostctl, apps }) => {
    const r = ok(await hostctl(['api', '/apps', '-o', 'tsv', '--fields', 'publicId,name']));
    expect(r.stdout).toBe(apps.slice(0, PAGE_SIZE).map((a) => `${String(a.publicId)}\t${String(a.name)}\n`).join(''));
    const json = ok(await hostctl(['api', '/apps', '--json', '--fields', 'publicId']));
    expect(JSON.parse(json.stdout)).toEqual(apps.slice(0, PAGE_SIZE).map((a) => ({ publicId: a.publicId })));
  });

  test('-X sends that method; a 4xx other than 401/403/404 exits 1 with its body', async ({ hostctl, server, apps }) => {
    await server.clearRequests();
    const r = await hostctl(['api', '-X', 'delete', `/apps/${String(apps[0]!.publicId)}`]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 405 });
    expect(r.stderr).toMatch(/^hostctl: The API refused the request with 405 Method Not Allowed for DELETE /);
    expect((await server.requests()).map((q) => q.method)).toEqual(['DELETE']);
  });

  test('prints JSON by default even where the profile sets another output format', async ({ hostctl, apps }) => {
    expect((await hostctl(['config', 'set', 'profiles.default.output', 'tsv'])).code).toBe(0);
    const listed = await hostctl(['apps', 'list', '--fields', 'publicId']);
    expect(listed.stdout.split('\n')[0]).toBe(String(apps[0]!.publicId));
    const r = await hostctl(['api', '/apps', '--fields', 'publicId']);
    expect(JSON.parse(r.stdout)).toEqual(apps.slice(0, PAGE_SIZE).map((a) => ({ publicId: a.publicId })));
  });

  test('a 404 exits 3: the problem body on stdout, one message on stderr', async ({ hostctl }) => {
    const r = await hostctl(['api', '/apps/ap-doesnotexist']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 404 });
    expect(r.stderr).toMatch(/^hostctl: Not found: GET \/v1\/apps\/ap-doesnotexist \(404\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('a cross-origin URL is refused (exit 2) and no request reaches either origin', async ({ hostctl, server, alt }) => {
    const other = await alt();
    await server.clearRequests();
    const elsewhere = await hostctl(['api', `${other.baseUrl}/apps`]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stdout).toBe('');
    expect(elsewhere.stderr).toMatch(/Refusing http:\/\/127\.0\.0\.1:\d+: hostctl sends requests \(and the token\) only to the base URL's origin/);
    // Same server, other spelling of the host: another origin all the same.
    const port = new URL(server.baseUrl).port;
    expect((await hostctl(['api', `http://localhost:${port}/v1/apps`])).code).toBe(2);
    expect(other.alt.requests).toHaveLength(0);
    expect(await server.requests()).toHaveLength(0);
  });

  test('a relative path that climbs out of the base path, however spelt: exit 2 naming where it lands, nothing sent, no token needed', async ({ hostctl, server }) => {
    const origin = new URL(server.baseUrl).origin;
    await server.clearRequests();
    const cases: Array<[string, string]> = [
      ['/../../x', '/x'],
      ['%2e%2e/x', '/x'],
      ['%2E%2E/x', '/x'],
      ['.%2e/x', '/x'],
      ['..%2fx', '/x'],
      ['..%2Fapps', '/apps'],
      ['%252e%252e/x', '/x'],
      ['..\\x', '/x'],
      ['\\..\\..\\x', '/x'],
      ['apps/..%5c..%5cx', '/x'],
      ['/apps/../../x?y=1', '/x?y=1'],
      ['..', '/'],
    ];
    for (const [path, lands] of cases) {
      for (const env of [{}, { HOSTCTL_TOKEN: undefined }]) {
        const r = await hostctl(['api', path], env);
        expect(r.code, `${path}: ${r.stderr}`).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr, path).toContain(`resolves to ${origin}${lands}, outside the base URL ${server.baseUrl}; nothing was sent.`);
      }
    }
    expect(await server.requests()).toHaveLength(0);
    // Steps that stay under the base path are fine, and a full URL of the origin is taken as meant.
    ok(await hostctl(['api', './apps/../apps']));
    const meant = await hostctl(['api', `${origin}/x`]);
    expect(meant.code, meant.stderr).toBe(3);
    expect((await server.requests()).map((q) => q.path)).toEqual(['/v1/apps', '/x']);
  });

  test('bad input is a usage error (exit 2) before any request, with the next step', async ({ hostctl, server, files }) => {
    await server.clearRequests();
    const cases: Array<[string[], RegExp]> = [
      [['api', '/apps', '-f', 'novalue'], /-f "novalue" is not key=value/],
      [['api', '/apps', '-F', '=1'], /has no key/],
      [['api', '/apps', '-F', 'a=1', '-F', 'a[b]=2'], /already a value/],
      [['api', '/apps', '-F', `x=@${join(files.path, 'missing.txt')}`], /Cannot read .*no such file/],
      [['api', '/apps', '--input', join(files.path, 'missing.json')], /Cannot read .*no such file/],
      [['api', '/apps', '-H', 'no colon here'], /is not a header/],
      [['api', '/apps', '-H', 'Authorization: Bearer other'], /sets the Authorization header itself/],
      [['api', '/apps', '-X', 'GE T'], /not an HTTP method/],
      [['api', '/apps', '--paginate', '-X', 'POST'], /--paginate fetches pages with GET/],
      [['api', '/apps', '--input', '-', '-F', 'a=@-'], /Only one of --input - and -F key=@-/],
      [['api', '/apps', '--bogus'], /unknown option/],
    ];
    for (const [args, message] of cases) {
      const r = await hostctl(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
    expect(await server.requests()).toHaveLength(0);
  });

  test('-R prints the rate-limit line; -v logs the exchange with the token redacted', async ({ hostctl, server }) => {
    const r = await hostctl(['api', '/apps', '-R', '-v', '-o', 'tsv', '--fields', 'publicId']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Rate limit: \d+\/100000 requests left, resets in \d+s \(this command: \d+ requests?\)$/m);
    expect(r.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/v1\/apps$/m);
    expect(r.stderr).toContain(`authorization: Bearer ****${server.token.slice(-4)}`);
    expect(r.stderr).not.toContain(server.token);
    expect(r.stdout).not.toContain(server.token);
  });

  test('a rejected token: exit 4, the 401 body on stdout, the sandbox\'s advice, and the next run sends nothing', async ({ hostctl, server }) => {
    await server.clearRequests();
    const env = { HOSTCTL_TOKEN: 'hsb_not_a_real_token' };
    const first = await hostctl(['api', '/apps'], env);
    expect(first.code).toBe(4);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 401 });
    // The sandbox says it is one: its advice, not the dashboard's (it has none).
    expect(first.stderr).toContain('This base URL is a hostctl sandbox');
    expect(first.stderr).not.toContain('dashboard');
    const second = await hostctl(['api', '/apps'], env);
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(/will not send it again/);
    expect(await server.requests()).toHaveLength(1);
  });
});

describe('hostctl api and the rate limit (sandbox: 1 request per 2 s)', () => {
  test('a 429 is waited out and the request sent again; --no-wait exits 5', async ({ hostctl, sandboxes, newDir }) => {
    const limited = await sandboxes(['--rate-limit', '1', '--window', '2']);
    // Separate config dirs: no saved state, so the second command meets a 429.
    const run = (extra: string[] = []) =>
      hostctl(['api', '/apps', '-o', 'tsv', '--fields', 'publicId', ...extra], { ...on(limited), HOSTCTL_CONFIG_DIR: newDir('hostctl-config-') });
    expect((await run()).code).toBe(0);
    const waited = await run();
    expect(waited.code).toBe(0);
    expect(waited.stderr).toMatch(/Rate limit reached: waiting \d+s/);
    expect(waited.stdout).not.toBe('');
    const refused = await run(['--no-wait']);
    expect(refused.code).toBe(5);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/--no-wait is set/);
  });
});

describe('hostctl api against the alt server (Link-header paging, its own error bodies)', () => {
  test('--paginate follows the Link header, as list --all does', async ({ hostctl, alt }) => {
    const server = await alt({ limit: 100000, pageSize: 4 });
    const apps = await server.all('apps');
    server.alt.clearRequests();
    const r = await hostctl(['api', '/apps', '--paginate'], on(server));
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((a) => a.publicId)).toEqual(apps.map((a) => a.publicId));
    expect(server.alt.requests).toHaveLength(Math.ceil(apps.length / 4));
    expect(server.alt.requests.slice(1).every((q) => /(^|&)cursor=/.test(q.query))).toBe(true);
  });

  test('a 5xx exits 1, with the server\'s error body on stdout', async ({ hostctl, alt, files }) => {
    const server = await alt({ limit: 100000, pageSize: 4 });
    const bad = join(files.path, 'bad.json');
    writeFileSync(bad, '{not json');
    const r = await hostctl(['api', '/apps', '--input', bad], on(server));
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'internal', message: 'Something broke.' } });
    expect(r.stderr).toMatch(/^hostctl: The API failed with 500 Internal Server Error for POST \/v1\/apps/);
  });
});

// hostctl asks for plain JSON; a server may answer JSON-LD anyway, and its `@` members
// never reach the output (the envelope itself is what the server said, and is kept).
describe.each(['member', 'hydra'] as const)('hostctl api against a server that answers JSON-LD to Accept: application/json (%s)', (style) => {
  test('GET: the envelope without its @ members', async ({ hostctl, alt }) => {
    const server = await alt({ limit: 100000, pageSize: 4, jsonLd: style });
    const r = await hostctl(['api', '/apps'], on(server));
    expect(r.code).toBe(0);
    const [member, view, next] = style === 'hydra' ? ['hydra:member', 'hydra:view', 'hydra:next'] : ['member', 'view', 'next'];
    expect(JSON.parse(r.stdout)).toEqual({ [member]: server.alt.objects('apps').slice(0, 4), [view]: { [next]: expect.stringMatching(/^\/v1\/apps\?cursor=\w+$/) as unknown } });
    expect(r.stdout).not.toMatch(/"@/);
  });

  test('--paginate: every item of every envelope, without @ members', async ({ hostctl, alt }) => {
    const server = await alt({ limit: 100000, pageSize: 4, jsonLd: style });
    const r = await hostctl(['api', '/apps', '--paginate'], on(server));
    expect(r.code).toBe(0);
    const all = server.alt.objects('apps');
    expect(JSON.parse(r.stdout)).toEqual(all);
    expect(r.stdout).not.toMatch(/"@/);
    expect(server.alt.requests).toHaveLength(Math.ceil(all.length / 4));
  });
});

describe('hostctl api never prints the token, even when a server echoes it', () => {
  const token = 'echo_token_0123456789abcdefWXYZ';

  test('in the body, in -i headers, in error bodies and across --paginate pages', async ({ hostctl, hostile }) => {
    const echo = await hostile((req, res) => {
      const auth = req.headers.authorization ?? '';
      const seen = auth.replace(/^Bearer /, '');
      const status = req.url?.startsWith('/v1/fail') ? 400 : 200;
      const firstPage = !/[?&]page=/.test(req.url ?? '');
      const list = firstPage ? [{ publicId: 'x-1', seen }] : [];
      const body = req.url?.startsWith('/v1/list') ? JSON.stringify(list) : JSON.stringify({ seen, [seen]: 'as a key' });
      res.writeHead(status, { 'Content-Type': 'application/json', 'X-Echo': auth, 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '99', 'X-RateLimit-Reset': '60' });
      res.end(body);
    });
    const run = (args: string[]) => hostctl(args, { HOSTCTL_BASE_URL: echo.baseUrl, HOSTCTL_TOKEN: token });
    const runs = [await run(['api', '-i', '/echo']), await run(['api', '/fail']), await run(['api', '/list', '--paginate', '-i']), await run(['api', '/echo', '-o', 'tsv'])];
    expect(runs.map((r) => r.code)).toEqual([0, 1, 0, 0]);
    for (const r of runs) {
      expect(r.stdout + r.stderr).not.toContain(token);
    }
    expect(runs[0]!.stdout).toContain(`X-Echo: Bearer ****${token.slice(-4)}`);
    expect(JSON.parse(runs[1]!.stdout)).toEqual({ seen: `****${token.slice(-4)}`, [`****${token.slice(-4)}`]: 'as a key' });
    expect(runs[2]!.stdout).toContain(`"seen": "****${token.slice(-4)}"`);
  });
});

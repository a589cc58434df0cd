// `hostctl api` end to end: hostctl in-process (test/support/inproc.ts) against the sandbox (and the
// independent alt server where its different choices matter: Link-header paging, its own
// error bodies, and as "another origin" that must never be reached).

import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tmpDir, type RunResult } from '../support/inproc.js';
import { startAlt, startSandboxServer, type PlatformServer } from '../support/inproc.js';

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

describe('hostctl api against the sandbox', () => {
  let server: PlatformServer;
  let config: { path: string; cleanup(): void };
  let files: { path: string; cleanup(): void };
  let apps: Record<string, unknown>[];

  const hostctl = (args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<RunResult> =>
    runCli(args, {
      input: opts.input,
      env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path, ...opts.env },
    });
  const ok = (r: RunResult): RunResult => {
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return r;
  };

  beforeAll(async () => {
    server = await startSandboxServer(['--rate-limit', '100000', '--page-size', String(PAGE_SIZE), '--seed', '3']);
    config = tmpDir();
    files = tmpDir();
    apps = await server.all('apps');
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
    files?.cleanup();
  });

  it('GET by default: the body as pretty JSON without JSON-LD members, one request', async () => {
    await server.clearRequests();
    const r = ok(await hostctl(['api', '/apps']));
    expect(r.stdout).toMatch(/^\[\n {2}\{\n {4}"publicId"/);
    const body = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(body.map((a) => a.publicId)).toEqual(apps.slice(0, PAGE_SIZE).map((a) => a.publicId));
    expect(r.stdout).not.toMatch(/"@/);
    expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/apps', query: '' }]);
  });

  it('takes a path without a slash, and an absolute URL of the same origin', async () => {
    const id = String(apps[0]!.publicId);
    const plain = JSON.parse(ok(await hostctl(['api', `apps/${id}`])).stdout) as Record<string, unknown>;
    const absolute = JSON.parse(ok(await hostctl(['api', `${server.baseUrl}/apps/${id}`])).stdout) as Record<string, unknown>;
    expect(plain).toEqual(apps[0]);
    expect(absolute).toEqual(apps[0]);
  });

  it('POST with -f and -F: the server receives typed JSON (numbers, booleans, null, @file, nesting)', async () => {
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

  it('-X GET puts the fields in the query string, brackets raw, in order', async () => {
    await server.clearRequests();
    const [a, b] = [String(apps[3]!.publicId), String(apps[1]!.publicId)];
    const r = ok(await hostctl(['api', '-X', 'GET', '/apps', '-f', `publicId[]=${a}`, '-F', `publicId[]=${b}`]));
    expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/apps', query: `publicId[]=${a}&publicId[]=${b}` }]);
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((x) => x.publicId).sort()).toEqual([a, b].sort());
  });

  it('--input FILE sends the file as the body, byte for byte; fields then go to the query string', async () => {
    await server.clearRequests();
    const file = join(files.path, 'body.json');
    writeFileSync(file, '{"name":"from-file","size":1.50}');
    const r = ok(await hostctl(['api', '/apps', '--input', file, '-f', 'dryRun=no']));
    const { entries } = await sandboxLog(server);
    expect(entries.map((e) => [e.method, e.path, e.query])).toEqual([['POST', '/v1/apps', 'dryRun=no']]);
    expect(entries[0]!.body).toEqual({ name: 'from-file', size: 1.5 });
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'from-file' });
  });

  it('--input - reads the body from stdin; -F key=@- reads a value from stdin', async () => {
    await server.clearRequests();
    ok(await hostctl(['api', '/apps', '--input', '-'], { input: '{"name":"from-stdin"}' }));
    ok(await hostctl(['api', '/apps', '-F', 'description=@-', '-f', 'name=stdin-field'], { input: 'typed on stdin\n' }));
    const { entries } = await sandboxLog(server);
    expect(entries.map((e) => e.body)).toEqual([{ name: 'from-stdin' }, { description: 'typed on stdin\n', name: 'stdin-field' }]);
  });

  it('-H sends a header: Accept: text/html gets the HTML reference, printed as it came', async () => {
    const r = ok(await hostctl(['api', '/docs', '-H', 'Accept: text/html']));
    expect(r.stdout).toMatch(/^<!doctype html>/i);
    const json = ok(await hostctl(['api', '/docs']));
    expect(JSON.parse(json.stdout)).toMatchObject({ openapi: expect.stringMatching(/^3\./) as unknown });
  });

  it('-i prints the status line and headers on stdout before the body', async () => {
    const r = ok(await hostctl(['api', '-i', `/apps/${String(apps[0]!.publicId)}`]));
    const [head, body] = r.stdout.split('\n\n', 2) as [string, string];
    const lines = head.split('\n');
    expect(lines[0]).toBe('HTTP/1.1 200 OK');
    expect(lines).toContain('X-Ratelimit-Limit: 100000');
    expect(lines.some((l) => /^Content-Type: application\/json/.test(l))).toBe(true);
    expect(JSON.parse(body)).toEqual(apps[0]);
  });

  it('--paginate walks every page (?page=N+1) and concatenates the arrays', async () => {
    // Read again: the POSTs above added apps.
    const apps = await server.all('apps');
    await server.clearRequests();
    const r = ok(await hostctl(['api', '/apps', '--paginate']));
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((a) => a.publicId)).toEqual(apps.map((a) => a.publicId));
    // Full pages, then a shorter (or empty) one that ends the walk.
    const pages = Math.floor(apps.length / PAGE_SIZE) + 1;
    const requests = await server.requests();
    expect(requests).toHaveLength(pages);
    expect(requests.map((q) => q.query)).toEqual(['', ...Array.from({ length: pages - 1 }, (_v, i) => `page=${i + 2}`)]);
  });

  it('--paginate -o ndjson prints one object per line; -i prints each page\'s head', async () => {
    const apps = await server.all('apps');
    const nd = ok(await hostctl(['api', '/apps', '--paginate', '-o', 'ndjson']));
    const lines = nd.stdout.trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as Record<string, unknown>).publicId)).toEqual(apps.map((a) => a.publicId));
    const withHead = ok(await hostctl(['api', '/apps', '--paginate', '-i', '-o', 'ndjson']));
    expect(withHead.stdout.match(/^HTTP\/1\.1 200 OK$/gm)).toHaveLength(Math.floor(apps.length / PAGE_SIZE) + 1);
  });

  it('-o tsv and --fields go through the same output layer as list', async () => {
    const r = ok(await hostctl(['api', '/apps', '-o', 'tsv', '--fields', 'publicId,name']));
    expect(r.stdout).toBe(apps.slice(0, PAGE_SIZE).map((a) => `${String(a.publicId)}\t${String(a.name)}\n`).join(''));
    const json = ok(await hostctl(['api', '/apps', '--json', '--fields', 'publicId']));
    expect(JSON.parse(json.stdout)).toEqual(apps.slice(0, PAGE_SIZE).map((a) => ({ publicId: a.publicId })));
  });

  it('-X sends that method; a 4xx other than 401/403/404 exits 1 with its body', async () => {
    await server.clearRequests();
    const r = await hostctl(['api', '-X', 'delete', `/apps/${String(apps[0]!.publicId)}`]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 405 });
    expect(r.stderr).toMatch(/^hostctl: The API refused the request with 405 Method Not Allowed for DELETE /);
    expect((await server.requests()).map((q) => q.method)).toEqual(['DELETE']);
  });

  it('prints JSON by default even where the profile sets another output format', async () => {
    const dir = tmpDir();
    try {
      const env = { HOSTCTL_CONFIG_DIR: dir.path };
      expect((await hostctl(['config', 'set', 'profiles.default.output', 'tsv'], { env })).code).toBe(0);
      const listed = await hostctl(['apps', 'list', '--fields', 'publicId'], { env });
      expect(listed.stdout.split('\n')[0]).toBe(String(apps[0]!.publicId));
      const r = await hostctl(['api', '/apps', '--fields', 'publicId'], { env });
      expect(JSON.parse(r.stdout)).toEqual(apps.slice(0, PAGE_SIZE).map((a) => ({ publicId: a.publicId })));
    } finally {
      dir.cleanup();
    }
  });

  it('a 404 exits 3: the problem body on stdout, one message on stderr', async () => {
    const r = await hostctl(['api', '/apps/ap-doesnotexist']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 404 });
    expect(r.stderr).toMatch(/^hostctl: Not found: GET \/v1\/apps\/ap-doesnotexist \(404\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a cross-origin URL is refused (exit 2) and no request reaches either origin', async () => {
    const other = await startAlt();
    try {
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
    } finally {
      await other.stop();
    }
  });

  it('a relative path that climbs out of the base path, however spelt: exit 2 naming where it lands, nothing sent, no token needed', async () => {
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
        const r = await hostctl(['api', path], { env });
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

  it('bad input is a usage error (exit 2) before any request, with the next step', async () => {
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

  it('-R prints the rate-limit line; -v logs the exchange with the token redacted', async () => {
    const r = await hostctl(['api', '/apps', '-R', '-v', '-o', 'tsv', '--fields', 'publicId']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Rate limit: \d+\/100000 requests left, resets in \d+s \(this command: \d+ requests?\)$/m);
    expect(r.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/v1\/apps$/m);
    expect(r.stderr).toContain(`authorization: Bearer ****${server.token.slice(-4)}`);
    expect(r.stderr).not.toContain(server.token);
    expect(r.stdout).not.toContain(server.token);
  });

  it('a rejected token: exit 4, the 401 body on stdout, the sandbox\'s advice, and the next run sends nothing', async () => {
    const dir = tmpDir();
    try {
      await server.clearRequests();
      const env = { HOSTCTL_TOKEN: 'hsb_not_a_real_token', HOSTCTL_CONFIG_DIR: dir.path };
      const first = await hostctl(['api', '/apps'], { env });
      expect(first.code).toBe(4);
      expect(JSON.parse(first.stdout)).toMatchObject({ status: 401 });
      // The sandbox says it is one: its advice, not the dashboard's (it has none).
      expect(first.stderr).toContain('This base URL is a hostctl sandbox');
      expect(first.stderr).not.toContain('dashboard');
      const second = await hostctl(['api', '/apps'], { env });
      expect(second.code).toBe(4);
      expect(second.stderr).toMatch(/will not send it again/);
      expect(await server.requests()).toHaveLength(1);
    } finally {
      dir.cleanup();
    }
  });
});

describe('hostctl api and the rate limit (sandbox: 1 request per 2 s)', () => {
  let server: PlatformServer;
  beforeAll(async () => {
    server = await startSandboxServer(['--rate-limit', '1', '--window', '2']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a 429 is waited out and the request sent again; --no-wait exits 5', async () => {
    // Separate config dirs: no saved state, so the second command meets a 429.
    const dirs = [tmpDir(), tmpDir(), tmpDir()];
    const run = (i: number, extra: string[] = []) =>
      runCli(['api', '/apps', '-o', 'tsv', '--fields', 'publicId', ...extra], {
        env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: dirs[i]!.path },
      });
    try {
      expect((await run(0)).code).toBe(0);
      const waited = await run(1);
      expect(waited.code).toBe(0);
      expect(waited.stderr).toMatch(/Rate limit reached: waiting \d+s/);
      expect(waited.stdout).not.toBe('');
      const refused = await run(2, ['--no-wait']);
      expect(refused.code).toBe(5);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/--no-wait is set/);
    } finally {
      for (const d of dirs) d.cleanup();
    }
  });
});

describe('hostctl api against the alt server (Link-header paging, its own error bodies)', () => {
  let server: Awaited<ReturnType<typeof startAlt>>;
  let config: { path: string; cleanup(): void };
  const hostctl = (args: string[]): Promise<RunResult> =>
    runCli(args, { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path } });

  beforeAll(async () => {
    server = await startAlt({ limit: 100000, pageSize: 4 });
    config = tmpDir();
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
  });

  it('--paginate follows the Link header, as list --all does', async () => {
    const apps = await server.all('apps');
    server.alt.clearRequests();
    const r = await hostctl(['api', '/apps', '--paginate']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((a) => a.publicId)).toEqual(apps.map((a) => a.publicId));
    expect(server.alt.requests).toHaveLength(Math.ceil(apps.length / 4));
    expect(server.alt.requests.slice(1).every((q) => /(^|&)cursor=/.test(q.query))).toBe(true);
  });

  it('a 5xx exits 1, with the server\'s error body on stdout', async () => {
    const bad = join(config.path, 'bad.json');
    writeFileSync(bad, '{not json');
    const r = await hostctl(['api', '/apps', '--input', bad]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'internal', message: 'Something broke.' } });
    expect(r.stderr).toMatch(/^hostctl: The API failed with 500 Internal Server Error for POST \/v1\/apps/);
  });
});

// hostctl asks for plain JSON; a server may answer JSON-LD anyway, and its `@` members
// never reach the output (the envelope itself is what the server said, and is kept).
describe.each(['member', 'hydra'] as const)('hostctl api against a server that answers JSON-LD to Accept: application/json (%s)', (style) => {
  let server: Awaited<ReturnType<typeof startAlt>>;
  let config: { path: string; cleanup(): void };
  const hostctl = (args: string[]): Promise<RunResult> =>
    runCli(args, { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path } });
  const items = (n: number) => server.alt.objects('apps').slice(0, n);

  beforeAll(async () => {
    server = await startAlt({ limit: 100000, pageSize: 4, jsonLd: style });
    config = tmpDir();
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
  });

  it('GET: the envelope without its @ members', async () => {
    const r = await hostctl(['api', '/apps']);
    expect(r.code).toBe(0);
    const [member, view, next] = style === 'hydra' ? ['hydra:member', 'hydra:view', 'hydra:next'] : ['member', 'view', 'next'];
    expect(JSON.parse(r.stdout)).toEqual({ [member]: items(4), [view]: { [next]: expect.stringMatching(/^\/v1\/apps\?cursor=\w+$/) as unknown } });
    expect(r.stdout).not.toMatch(/"@/);
  });

  it('--paginate: every item of every envelope, without @ members', async () => {
    server.alt.clearRequests();
    const r = await hostctl(['api', '/apps', '--paginate']);
    expect(r.code).toBe(0);
    const all = server.alt.objects('apps');
    expect(JSON.parse(r.stdout)).toEqual(all);
    expect(r.stdout).not.toMatch(/"@/);
    expect(server.alt.requests).toHaveLength(Math.ceil(all.length / 4));
  });
});

describe('hostctl api never prints the token, even when a server echoes it', () => {
  const token = 'echo_token_0123456789abcdefWXYZ';
  let echo: Server;
  let baseUrl: string;
  let config: { path: string; cleanup(): void };

  beforeAll(async () => {
    config = tmpDir();
    echo = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      const seen = auth.replace(/^Bearer /, '');
      const status = req.url?.startsWith('/v1/fail') ? 400 : 200;
      const firstPage = !/[?&]page=/.test(req.url ?? '');
      const list = firstPage ? [{ publicId: 'x-1', seen }] : [];
      const body = req.url?.startsWith('/v1/list') ? JSON.stringify(list) : JSON.stringify({ seen, [seen]: 'as a key' });
      res.writeHead(status, { 'Content-Type': 'application/json', 'X-Echo': auth, 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '99', 'X-RateLimit-Reset': '60' });
      res.end(body);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => echo.close(() => resolve()));
    config?.cleanup();
  });

  const hostctl = (args: string[]) => runCli(args, { env: { HOSTCTL_BASE_URL: baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: config.path } });

  it('in the body, in -i headers, in error bodies and across --paginate pages', async () => {
    const runs = [await hostctl(['api', '-i', '/echo']), await hostctl(['api', '/fail']), await hostctl(['api', '/list', '--paginate', '-i']), await hostctl(['api', '/echo', '-o', 'tsv'])];
    expect(runs.map((r) => r.code)).toEqual([0, 1, 0, 0]);
    for (const r of runs) {
      expect(r.stdout + r.stderr).not.toContain(token);
    }
    expect(runs[0]!.stdout).toContain(`X-Echo: Bearer ****${token.slice(-4)}`);
    expect(JSON.parse(runs[1]!.stdout)).toEqual({ seen: `****${token.slice(-4)}`, [`****${token.slice(-4)}`]: 'as a key' });
    expect(runs[2]!.stdout).toContain(`"seen": "****${token.slice(-4)}"`);
  });
});

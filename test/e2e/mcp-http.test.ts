// `hostctl mcp --http` as agents that cannot start a process meet it: the built CLI as a
// child process, the MCP SDK's own client over Streamable HTTP (and raw HTTP where a client
// would never send what an attacker does), against the sandbox and the independent alt
// server. The same tool calls over stdio and HTTP give the same results.
//
// Each test has servers of its own and runs beside the others, most of them waiting (for a
// rate window, a headers timeout); those that only send what no client should, and need
// nothing of a server but that it is fresh enough to be let in, share one, one at a time.

import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect } from 'vitest';
import { e2eTest } from '../support/fixtures.js';
import { runCli, sandboxAdmin, tmpDir } from '../support/cli.js';
import { connectMcp, startMcpHttp, type McpHttpServer } from '../support/mcp.js';
import { platformOf, startAlt } from '../support/servers.js';
import { startSandboxHere } from '../support/sandbox-here.js';
import { opensslUnavailable, selfSignedCert } from '../support/tls.js';

const test = e2eTest()
  .extend('mcpHttp', async ({ homeEnv }, { onCleanup }) => {
    const servers: McpHttpServer[] = [];
    onCleanup(async () => {
      for (const s of servers) await s.stop();
    });
    return async (env: Record<string, string | undefined>, mcpArgs: string[] = []): Promise<McpHttpServer> => {
      const s = await startMcpHttp({ ...homeEnv, ...env }, mcpArgs);
      servers.push(s);
      return s;
    };
  })
  // The file's `hostctl mcp --http`, at the file's sandbox: for the tests that reach no API.
  .extend('shared', { scope: 'file' }, async ({ sandbox }, { onCleanup }) => {
    const s = await startMcpHttp({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token });
    onCleanup(async () => void (await s.stop()));
    return s;
  });

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with exactly these headers (Host included), as no MCP client would send it. */
function raw(url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: o.method ?? 'POST', headers: o.headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** Each tool once, with arguments the servers' data answers (`app`: one of its apps). */
function everyTool(app: string, status: string): [string, Record<string, unknown>][] {
  return [
    ['list_objects', { resource: 'apps', limit: 2 }],
    ['get_objects', { resource: 'apps', ids: [app], fields: ['publicId', 'status'] }],
    ['wait_for', { resource: 'apps', ids: [app], for: [`status=${status}`], deadline: '30s' }],
    ['app_status', { app }],
    ['list_operations', {}],
    ['call_operation', { path: '/apps' }],
    ['rate_limit', {}],
    ['auth_status', {}],
  ];
}

/**
 * What a result says, without what changes from one moment or process to the next: a
 * countdown, a note on where a copy came from, a cursor's seal (each process draws its own
 * key; the position it seals is compared).
 */
function steady(result: unknown): unknown {
  const moving = ['resetInSeconds', 'seenAt', 'note', 'remaining', 'resetAt'];
  return JSON.parse(JSON.stringify(result, (k, v: unknown) => (moving.includes(k) ? undefined : k === 'nextCursor' && typeof v === 'string' ? v.split('.')[0] : v)));
}

describe('hostctl mcp --http serves the same tools as stdio', { concurrent: true }, () => {
  for (const which of ['sandbox', 'alt'] as const) {
    test(`an SDK client lists and calls every tool, with the results stdio gives, on the ${which}`, async ({ mcpHttp, homeEnv, onTestFinished }) => {
      const server = which === 'sandbox' ? platformOf(await startSandboxHere({ rateLimit: 100_000 })) : await startAlt({ limit: 100_000, reference: 'openapi' });
      onTestFinished(() => server.stop());
      const env = { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token };
      const http = await mcpHttp(env);
      expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const overHttp = await http.connect();
      const stdio = await connectMcp({ ...homeEnv, ...env });
      onTestFinished(() => stdio.close());
      expect((await overHttp.listTools()).tools).toEqual((await stdio.client.listTools()).tools);
      const apps = (await overHttp.callTool({ name: 'list_objects', arguments: { resource: 'apps', limit: 1 } })).structuredContent as { items: { publicId: string; status: string }[] };
      const app = apps.items[0]!;
      const names: string[] = [];
      for (const [name, args] of everyTool(app.publicId, app.status)) {
        const a = await stdio.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
        const b = await overHttp.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
        expect(b.isError ?? false, `${name}: ${JSON.stringify(b.content).slice(0, 300)}`).toBe(false);
        expect(steady(b.structuredContent), name).toEqual(steady(a.structuredContent));
        names.push(name);
      }
      expect(names.sort()).toEqual((await overHttp.listTools()).tools.map((t) => t.name).sort());
      // The token never reaches a client: not in a result, not in a log line.
      expect(JSON.stringify(await overHttp.callTool({ name: 'auth_status', arguments: {} }))).not.toContain(server.token);
      expect(http.stderr()).not.toContain(server.token);
      expect(http.stderr()).not.toContain(http.key);
    });
  }
});

describe('hostctl mcp --http lets in only its clients', { concurrent: true }, () => {
  test.sequential('a request without the key, with a wrong one or with the platform token is answered 401 and nothing else, and reaches no API', async ({ shared: http, sandbox }) => {
    const admin = sandboxAdmin(sandbox);
    await admin.clearRequests();
    for (const authorization of [undefined, `Bearer ${http.key.slice(0, -1)}x`, `Bearer ${sandbox.token}`, http.key, `Basic ${http.key}`]) {
      const r = await raw(http.url, { headers: { ...JSON_HEADERS, ...(authorization === undefined ? {} : { Authorization: authorization }) }, body: INITIALIZE });
      expect({ status: r.status, challenge: r.headers['www-authenticate'], body: r.body }, String(authorization).slice(0, 12)).toEqual({ status: 401, challenge: 'Bearer', body: '' });
    }
    await expect(http.connect({ key: sandbox.token })).rejects.toThrow();
    expect(await admin.requests()).toEqual([]);
    const ok = await raw(http.url, { headers: { ...JSON_HEADERS, Authorization: `Bearer ${http.key}` }, body: INITIALIZE });
    expect(ok.status).toBe(200);
  });

  test.sequential('a foreign Host or Origin is answered 403, even with the key; loopback names on any port are let in', async ({ shared: http }) => {
    const port = new URL(http.url).port;
    const auth = { ...JSON_HEADERS, Authorization: `Bearer ${http.key}` };
    const status = async (headers: Record<string, string>) => (await raw(http.url, { headers: { ...auth, ...headers }, body: INITIALIZE })).status;
    expect(await status({ Host: 'evil.invalid' })).toBe(403);
    expect(await status({ Host: `evil.invalid:${port}` })).toBe(403);
    expect(await status({ Host: `127.0.0.1:${port}`, Origin: 'http://evil.invalid' })).toBe(403);
    expect(await status({ Host: `127.0.0.1:${port}`, Origin: `http://evil.invalid:${port}` })).toBe(403);
    expect(await status({ Host: `127.0.0.1:${port}`, Origin: 'null' })).toBe(403);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost']) expect(await status({ Host: host }), host).toBe(200);
    expect(await status({ Host: `localhost:${port}`, Origin: 'http://localhost:3000' })).toBe(200);
    expect(await status({ Host: `localhost:${port}`, Origin: 'https://[::1]' })).toBe(200);
  });

  test('HOSTCTL_MCP_KEY is the key when set; the platform token as the key is refused with exit 2', async ({ mcpHttp, homeEnv, sandboxes }) => {
    const sandbox = await sandboxes();
    const fixed = 'a-fixed-key-for-a-container-0123456789';
    const http = await mcpHttp({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_MCP_KEY: fixed });
    expect(http.key).toBe(fixed);
    expect((await (await http.connect()).listTools()).tools.length).toBeGreaterThan(0);
    const r = await runCli(['mcp', '--http'], { env: { ...homeEnv, HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_MCP_KEY: sandbox.token } });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^hostctl: HOSTCTL_MCP_KEY is the platform token[^\n]*\n[^\n]+\n$/);
    expect(r.stderr).not.toContain(sandbox.token);
  });
});

describe('hostctl mcp --http off loopback', { concurrent: true }, () => {
  test('a non-loopback --listen without TLS is refused with exit 2 before anything listens', async ({ homeEnv }) => {
    for (const listen of ['0.0.0.0:0', '[::]:0', 'mcp.example.invalid:8443']) {
      const r = await runCli(['mcp', '--http', '--listen', listen], { env: { ...homeEnv, HOSTCTL_BASE_URL: 'http://127.0.0.1:9/v1', HOSTCTL_TOKEN: 'mcp-http-token-0123456789abcdef' } });
      expect({ code: r.code, stdout: r.stdout }, listen).toEqual({ code: 2, stdout: '' });
      expect(r.stderr, listen).toMatch(/^hostctl: --listen \S+ is not a loopback address[^\n]*\nAdd --tls-cert FILE --tls-key FILE[^\n]*\n$/);
    }
  });

  test.skipIf(opensslUnavailable() !== undefined)('with --tls-cert and --tls-key it serves HTTPS, which a client trusting the certificate reaches', async ({ mcpHttp, sandboxes, onTestFinished }) => {
    const dir = tmpDir('hostctl-mcp-tls-');
    onTestFinished(() => dir.cleanup());
    const cert = selfSignedCert(dir.path, { dns: ['localhost'], ip: ['127.0.0.1'] });
    const sandbox = await sandboxes();
    const http = await mcpHttp({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token }, ['--tls-cert', cert.certFile, '--tls-key', cert.certFile.replace(/\.crt$/, '.key')]);
    expect(http.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const dispatcher = new Agent({ connect: { ca: readFileSync(cert.certFile, 'utf8') } });
    onTestFinished(() => dispatcher.close());
    const trusting = ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch;
    const client = await http.connect({ fetch: trusting });
    const r = await client.callTool({ name: 'get_objects', arguments: { resource: 'apps', ids: ['ap-0000000000'] } });
    expect(r.structuredContent).toEqual({ items: [], notFound: ['ap-0000000000'] });
    // Not over plain HTTP, and not to a client that does not trust the certificate.
    await expect(raw(http.url.replace('https:', 'http:'), { headers: { ...JSON_HEADERS, Authorization: `Bearer ${http.key}` }, body: INITIALIZE })).rejects.toThrow();
    await expect(http.connect()).rejects.toThrow();
  });
});

describe('hostctl mcp --tools', { concurrent: true }, () => {
  test('offers only the tools named, over stdio and HTTP alike; any other is unknown', async ({ mcpHttp, homeEnv, sandboxes, onTestFinished }) => {
    const sandbox = await sandboxes();
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token };
    const http = await (await mcpHttp(env, ['--tools', 'list_objects,get_objects'])).connect();
    const stdio = await connectMcp({ ...homeEnv, ...env }, [], ['--tools', 'list_objects,get_objects']);
    onTestFinished(() => stdio.close());
    for (const client of [http, stdio.client]) {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_objects', 'list_objects']);
      await expect(client.callTool({ name: 'call_operation', arguments: { path: '/apps' } })).rejects.toThrow(/Unknown tool: call_operation\. The tools are: list_objects, get_objects\./);
    }
    expect(await sandboxAdmin(sandbox).requests()).toEqual([]);
    const r = await runCli(['mcp', '--tools', 'list_objects,delete_everything'], { env: { ...homeEnv, ...env } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hostctl: Unknown tool for --tools: delete_everything\.\nThe tools are: list_objects, get_objects, [^\n]+\.\n$/);
  });
});

describe('hostctl mcp --http under load and abuse', { concurrent: true }, () => {
  // One server: a session's client that must go on is never another test's to evict.
  describe('one abuse at a time, on one server', { concurrent: true }, () => {
    test.sequential('a flood of 1,000 unauthenticated requests reaches no API and leaves memory flat; the clients go on', async ({ shared: http, sandbox }) => {
      const client = await http.connect();
      await client.listTools();
      const admin = sandboxAdmin(sandbox);
      await admin.clearRequests();
      const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${http.pid}/status`, 'utf8'))?.[1]);
      const before = rss();
      const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_objects', arguments: { resource: 'apps' } } });
      const statuses = new Map<number, number>();
      for (let round = 0; round < 20; round++) {
        const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => raw(http.url, { headers: { ...JSON_HEADERS, Authorization: `Bearer wrong-${round}-${i}` }, body })));
        for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 401: 1000 });
      expect(await admin.requests()).toEqual([]);
      expect(rss() / before).toBeLessThan(1.5);
      expect((await client.callTool({ name: 'rate_limit', arguments: {} })).isError ?? false).toBe(false);
    });

    test.sequential('sessions are bounded: past the cap a new one takes the place of the one idle longest, and the rest go on', async ({ shared: http }) => {
      const auth = { ...JSON_HEADERS, Authorization: `Bearer ${http.key}` };
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) ids.push(String((await raw(http.url, { headers: auth, body: INITIALIZE })).headers['mcp-session-id']));
      const ping = async (id: string) => (await raw(http.url, { headers: { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) })).status;
      expect(await ping(ids[0]!)).toBe(404);
      expect(await ping(ids[99]!)).toBe(200);
      expect((await (await http.connect()).listTools()).tools.length).toBeGreaterThan(0);
    });

    test.sequential('a body past the limit is answered 413 without being read whole', async ({ shared: http }) => {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(2 * 1024 * 1024) } });
      expect((await raw(http.url, { headers: { ...JSON_HEADERS, Authorization: `Bearer ${http.key}` }, body: big })).status).toBe(413);
      expect((await (await http.connect()).listTools()).tools.length).toBeGreaterThan(0);
    });
  });

  test('three HTTP clients and three CLI processes at a small limit share one budget and collect no 429', async ({ mcpHttp, homeEnv, sandboxes }) => {
    const sandbox = await sandboxes(['--rate-limit', '5', '--window', '2']);
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token };
    const admin = sandboxAdmin(sandbox);
    const apps = (await (await fetch(`${sandbox.origin}/_sandbox/objects/apps`)).json()) as { publicId: string }[];
    const app = apps[0]!.publicId;
    const http = await mcpHttp(env);
    const clients = await Promise.all([1, 2, 3].map(() => http.connect()));
    const calls = clients.flatMap((c) => [1, 2, 3].map(() => c.callTool({ name: 'get_objects', arguments: { resource: 'apps', ids: [app], fields: ['publicId'] } }, undefined, { timeout: 120_000 })));
    const commands = [1, 2, 3].map(() => runCli(['apps', 'get', app, '--json'], { env: { ...homeEnv, ...env }, timeoutMs: 120_000 }));
    const results = await Promise.all(calls);
    const runs = await Promise.all(commands);
    expect(results.filter((r) => r.isError).length).toBe(0);
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    const log = await admin.requests();
    expect({ refused: log.filter((r) => r.status === 429).length, sent: log.length }).toEqual({ refused: 0, sent: 12 });
  });

  test('a client that never finishes its headers loses its connection, and the clients go on', { timeout: 60_000 }, async ({ mcpHttp }) => {
    const http = await mcpHttp({ HOSTCTL_BASE_URL: 'http://127.0.0.1:9/v1', HOSTCTL_TOKEN: 'mcp-http-token-0123456789abcdef' });
    const { port } = new URL(http.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One header line now and then, never the blank line that ends them.
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 500);
    await new Promise((resolve) => socket.on('close', resolve));
    clearInterval(drip);
    expect((await (await http.connect()).listTools()).tools.length).toBeGreaterThan(0);
  });

  test('a client that goes away while its call waits for the budget ends the call: nothing is sent for it', async ({ mcpHttp, sandboxes }) => {
    // A window long enough, on a busy machine, that the cut call comes while the first five
    // still fill it, and that the server has seen its connection go before its slot comes
    // (the test runs beside the headers-timeout one, which waits longer).
    const sandbox = await sandboxes(['--rate-limit', '5', '--window', '8']);
    const admin = sandboxAdmin(sandbox);
    const apps = (await (await fetch(`${sandbox.origin}/_sandbox/objects/apps`)).json()) as { publicId: string }[];
    const app = apps[0]!.publicId;
    const http = await mcpHttp({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token });
    const client = await http.connect();
    const get = () => client.callTool({ name: 'get_objects', arguments: { resource: 'apps', ids: [app] } }, undefined, { timeout: 60_000 });
    await Promise.all([1, 2, 3, 4, 5].map(get));
    // A session of its own, by hand, whose connection is then cut while its call waits.
    const auth = { ...JSON_HEADERS, Authorization: `Bearer ${http.key}` };
    const init = await raw(http.url, { headers: auth, body: INITIALIZE });
    const session = String(init.headers['mcp-session-id']);
    await raw(http.url, { headers: { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const mark = http.stderr().length;
    const req = httpRequest(http.url, { method: 'POST', headers: { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, agent: false });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_objects', arguments: { resource: 'apps', ids: [app] } } }));
    while (!/waiting \d+s before sending/.test(http.stderr().slice(mark))) await new Promise((resolve) => setTimeout(resolve, 10));
    req.destroy();
    // The next call gets the slot the cut one would have had first. That window then has
    // room for it and four more: had the cut one sent its request when its slot came
    // (before these, which came after it), the last of these would wait for the window
    // after, and be answered after it.
    expect((await get()).isError ?? false).toBe(false);
    expect((await Promise.all([1, 2, 3, 4].map(get))).filter((r) => r.isError)).toEqual([]);
    const log = await admin.requests();
    expect({ sent: log.length, refused: log.filter((r) => r.status === 429).length }).toEqual({ sent: 10, refused: 0 });
  });

  test('SIGTERM closes the sessions and exits 143; SIGINT exits 130', async ({ mcpHttp }) => {
    for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
      const http = await mcpHttp({ HOSTCTL_BASE_URL: 'http://127.0.0.1:9/v1', HOSTCTL_TOKEN: 'mcp-http-token-0123456789abcdef' });
      await (await http.connect()).listTools();
      expect(await http.stop(signal)).toBe(code);
    }
  });
});

// The library (src/lib, `import { createClient } from 'hostctl'`) in this worker against
// the sandbox and the independent alt server on loopback: each method answers what its
// command answers, with the requests its command sends (counted at the server), and its
// errors are HostctlError with the `--json` codes. test/e2e/library.test.ts runs the
// built package as processes (import, exit, the shared budget).

import { inspect } from 'node:util';
import { describe, expect, onTestFinished } from 'vitest';
import { createClient, HostctlError, type ApiObject, type Client, type ClientOptions } from '../../src/lib/index.js';
import { test as base } from '../support/fixtures.js';
import { runCli, startAlt, startSandboxServer, type PlatformServer } from '../support/inproc.js';

const servers: Array<[string, () => Promise<PlatformServer>]> = [
  ['sandbox', () => startSandboxServer(['--rate-limit', '100000', '--seed', '11', '--page-size', '5'])],
  ['alt', () => startAlt({ limit: 100000 })],
];

const test = base.extend('open', ({ newDir }, { onCleanup }) => {
  const clients: Client[] = [];
  onCleanup(async () => {
    for (const c of clients) await c.close();
  });
  /** A client of the test's own, with a config dir of its own, closed after the test. */
  return async (server: { baseUrl: string; token: string }, o: ClientOptions = {}): Promise<Client> => {
    const client = await createClient({ env: { HOSTCTL_CONFIG_DIR: newDir('hostctl-lib-config-'), HOME: newDir('hostctl-lib-home-') }, baseUrl: server.baseUrl, token: server.token, ...o });
    clients.push(client);
    return client;
  };
});

async function started(start: () => Promise<PlatformServer>): Promise<PlatformServer> {
  const server = await start();
  onTestFinished(() => server.stop());
  return server;
}

/** What a failing call threw. */
async function failure(p: Promise<unknown> | (() => Promise<unknown>)): Promise<HostctlError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(HostctlError);
    return err as HostctlError;
  }
  throw new Error('the call did not fail');
}

async function all(it: AsyncIterable<ApiObject>): Promise<ApiObject[]> {
  const out: ApiObject[] = [];
  for await (const o of it) out.push(o);
  return out;
}

/** The same command's answer, in-process, with a config dir of its own. */
async function command(server: PlatformServer, dir: string, args: string[]): Promise<unknown> {
  const r = await runCli([...args, '--json'], { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: dir } });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

const requestLine = (r: { method: string; path: string; query: string }) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`;

describe.each(servers)('the library against %s', (_name, start) => {
  test('list yields every object of every page, as "list --all --json" prints them, with the requests it sends', async ({ open, newDir }) => {
    const server = await started(start);
    const expected = await command(server, newDir(), ['apps', 'list', '--all']);
    const byCommand = (await server.requests()).map(requestLine);
    await server.clearRequests();
    const client = await open(server);
    expect(await all(client.list('apps'))).toEqual(expected);
    expect((await server.requests()).map(requestLine)).toEqual(byCommand);
  });

  test('leaving the loop fetches no further page', async ({ open }) => {
    const server = await started(start);
    const client = await open(server);
    for await (const app of client.list('apps')) {
      expect(typeof app.publicId).toBe('string');
      break;
    }
    expect(await server.requests()).toHaveLength(1);
    const limited = await all(client.list('apps', { limit: 2 }));
    expect(limited).toHaveLength(2);
    expect(await server.requests()).toHaveLength(2);
  });

  test('a relation filter answers and costs what the command does (deployments of an app)', async ({ open, newDir }) => {
    const server = await started(start);
    const [app] = (await server.all('environments')).map((e) => Object.values(e).find((v) => typeof v === 'string' && v.startsWith('ap-')) ?? (e.app as { publicId?: string } | undefined)?.publicId);
    expect(typeof app).toBe('string');
    await server.clearRequests();
    const expected = await command(server, newDir(), ['deployments', 'list', '--app', String(app)]);
    const byCommand = (await server.requests()).map(requestLine);
    await server.clearRequests();
    const client = await open(server);
    expect(await all(client.list('deployments', { app: String(app) }))).toEqual(expected);
    expect((await server.requests()).map(requestLine)).toEqual(byCommand);
  });

  test('getMany: one request, the order asked for, the IDs not found named; get throws not_found', async ({ open }) => {
    const server = await started(start);
    const [a, b] = (await server.all('apps')).map((x) => String(x.publicId));
    await server.clearRequests();
    const client = await open(server);
    const { items, notFound } = await client.getMany('apps', [String(b), 'ap-notthere01', String(a)]);
    expect(items.map((x) => x.publicId)).toEqual([b, a]);
    expect(notFound).toEqual(['ap-notthere01']);
    expect(await server.requests()).toHaveLength(1);
    expect((await client.get('apps', String(a))).publicId).toBe(a);
    const err = await failure(client.get('apps', 'ap-notthere01'));
    expect([err.code, err.exit, err.ids]).toEqual(['not_found', 3, ['ap-notthere01']]);
  });

  test('wait resolves with the objects once every condition holds, and throws deadline with the values unmet', async ({ open }) => {
    const server = await started(start);
    await server.plant('apps', [
      { publicId: 'ap-libwait0001', name: 'w1', status: 'running' },
      { publicId: 'ap-libwait0002', name: 'w2', status: 'deploying' },
    ]);
    const client = await open(server);
    const done = await client.wait('apps', ['ap-libwait0001'], { for: ['status=running'] });
    expect(done.map((o) => o.status)).toEqual(['running']);
    const err = await failure(client.wait('apps', ['ap-libwait0001', 'ap-libwait0002'], { for: ['status=running'], deadline: '0s' }));
    expect([err.code, err.exit, err.unmet]).toEqual(['deadline', 7, { 'ap-libwait0002': { status: 'deploying' } }]);
  });

  test('status is what "status --json" prints, with the requests it sends', async ({ open, newDir }) => {
    const server = await started(start);
    const [a] = (await server.all('apps')).map((x) => String(x.publicId));
    await server.clearRequests();
    const expected = await command(server, newDir(), ['status', String(a)]);
    const byCommand = (await server.requests()).map(requestLine);
    await server.clearRequests();
    const client = await open(server);
    expect(await client.status(String(a))).toEqual(expected);
    expect((await server.requests()).map(requestLine)).toEqual(byCommand);
  });

  test('request answers any status as hostctl api does, with the query as given', async ({ open }) => {
    const server = await started(start);
    const [a] = (await server.all('apps')).map((x) => String(x.publicId));
    await server.clearRequests();
    const client = await open(server);
    const res = await client.request('GET', '/apps', { query: { 'publicId[]': [String(a)] } });
    expect(res.status).toBe(200);
    expect((res.json() as ApiObject[]).map((x) => x.publicId)).toEqual([a]);
    const missing = await client.request('GET', '/no-such-collection');
    expect(missing.status).toBe(404);
    expect((await server.requests()).map((r) => r.path)).toEqual(['/v1/apps', '/v1/no-such-collection']);
  });
});

describe('the library', () => {
  test('rateLimit() is what "rate-limit --json" prints for the same token and config', async ({ open, newDir }) => {
    const server = await started(servers[0]![1]);
    const dir = newDir();
    const client = await open(server, { env: { HOSTCTL_CONFIG_DIR: dir, HOME: newDir() } });
    await client.request('GET', '/apps');
    const report = await client.rateLimit();
    expect(report.limit).toBe(100000);
    expect(report.remaining).toEqual(expect.any(Number));
    const printed = (await command(server, dir, ['rate-limit'])) as Record<string, unknown>;
    expect({ ...report, resetInSeconds: null }).toEqual({ ...printed, resetInSeconds: null });
  });

  test('input a command would refuse is a usage error (exit 2) and sends nothing', async ({ open }) => {
    const server = await started(servers[0]![1]);
    const client = await open(server);
    const refusals = [
      () => all(client.list('nope' as 'apps')),
      () => all(client.list('deployments', { app: 'ap-1', environment: 'en-1' })),
      () => all(client.list('apps', { app: 'ap-1' } as never)),
      () => all(client.list('environments', { app: 'en-not-an-app' })),
      () => client.getMany('apps', ['not an id']),
      () => client.get('apps', 'en-wrongprefix'),
      () => client.wait('apps', ['ap-1'], { for: [] }),
      () => client.wait('apps', ['ap-1'], { for: ['status=running'], deadline: 'soon' }),
      () => client.request('GET', '/apps', { headers: { authorization: 'Bearer x' } }),
    ];
    for (const refuse of refusals) {
      const err = await failure(refuse);
      expect([err.code, err.exit], err.message).toEqual(['usage', 2]);
      expect(err.hint).toEqual(expect.any(String));
    }
    expect(await server.requests()).toEqual([]);
  });

  test('an aborted wait ends as interrupted and sends nothing more', async ({ open }) => {
    const server = await started(servers[0]![1]);
    const client = await open(server);
    const err = await failure(client.wait('apps', ['ap-1'], { for: ['status=running'], signal: AbortSignal.abort() }));
    expect([err.code, err.exit]).toEqual(['interrupted', 130]);
    expect(await server.requests()).toEqual([]);
  });

  test('a token the API rejected once is not sent again by a new client (the lockout guard, in the shared state file)', async ({ newDir }) => {
    const server = await started(servers[0]![1]);
    const env = { HOSTCTL_CONFIG_DIR: newDir(), HOME: newDir() };
    const client = await createClient({ env, baseUrl: server.baseUrl, token: 'hostctl-lib-revoked-token' });
    const first = await failure(client.getMany('apps', ['ap-1']));
    expect([first.code, first.exit]).toEqual(['auth', 4]);
    await client.close();
    const again = await failure(createClient({ env, baseUrl: server.baseUrl, token: 'hostctl-lib-revoked-token' }));
    expect(again.code).toBe('auth');
    expect(again.message).toMatch(/will not send it again/);
    expect(await server.requests()).toHaveLength(1);
  });

  test('settings resolve as the CLI\'s: the option over HOSTCTL_BASE_URL, and no base URL anywhere is a usage error', async ({ newDir }) => {
    const server = await started(servers[0]![1]);
    const env = { HOSTCTL_CONFIG_DIR: newDir(), HOME: newDir(), HOSTCTL_TOKEN: server.token, HOSTCTL_BASE_URL: 'http://hostctl-lib.invalid/v1' };
    const client = await createClient({ env, baseUrl: server.baseUrl });
    onTestFinished(() => client.close());
    expect((await client.request('GET', '/apps')).status).toBe(200);
    const none = await failure(createClient({ env: { HOSTCTL_CONFIG_DIR: env.HOSTCTL_CONFIG_DIR, HOME: env.HOME, HOSTCTL_TOKEN: server.token } }));
    expect([none.code, none.exit]).toEqual(['usage', 2]);
    expect(none.message).toMatch(/No base URL is set/);
  });

  test('a warning the CLI would print goes to onWarning, and nothing is written to stdout or stderr', async ({ open }) => {
    const server = await started(servers[0]![1]);
    const warnings: string[] = [];
    const written: string[] = [];
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      // A fleet's store that cannot be reached: the CLI warns, and keeps the budget locally.
      const client = await open(server, { redisUrl: 'redis://127.0.0.1:1', onWarning: (m) => warnings.push(m) });
      expect((await client.request('GET', '/apps')).status).toBe(200);
      await client.close();
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
    expect(written).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^the shared store at .* cannot be used/)]);
  });
});

describe('the token', () => {
  const token = 'hostctl-lib-secret-token-0123456789';
  const shows = (value: unknown) => [inspect(value, { depth: 10, showHidden: true }), JSON.stringify(value), value instanceof HostctlError ? `${value.message}\n${value.stack ?? ''}\n${value.hint ?? ''}` : ''].join('\n');

  test('appears in no inspect or JSON of a client, nor in a message, stack, inspect or JSON of an error', async ({ newDir }) => {
    const server = await started(servers[0]![1]);
    const secret = server.token;
    const client = await createClient({ env: { HOSTCTL_CONFIG_DIR: newDir(), HOME: newDir() }, baseUrl: server.baseUrl, token: secret });
    onTestFinished(() => client.close());
    expect(shows(client)).not.toContain(secret);
    // The token pasted where an ID goes: the error names the IDs it did not find.
    const err = await failure(client.get('teams', secret));
    expect(err.code).toBe('not_found');
    expect(err.message).toContain('****');
    expect(shows(err)).not.toContain(secret);
    expect(JSON.stringify(err.ids)).not.toContain(secret);
  });

  test('appears in no response, even from a server that echoes it', async ({ newDir, hostile }) => {
    const server = await hostile((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-echo': req.headers.authorization ?? '' });
      res.end(JSON.stringify({ authorization: req.headers.authorization }));
    });
    const client = await createClient({ env: { HOSTCTL_CONFIG_DIR: newDir(), HOME: newDir() }, baseUrl: server.baseUrl, token });
    onTestFinished(() => client.close());
    const res = await client.request('GET', '/echo');
    expect(res.status).toBe(200);
    expect([shows(res), shows(res.json()), JSON.stringify(res.headers)].join('\n')).not.toContain(token);
  });
});

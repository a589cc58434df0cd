// `hostctl mcp` as agents meet it: the built CLI as a child process, spoken to by the MCP
// SDK's own client over stdio, and once by raw JSON-RPC lines with no SDK at all, against
// a sandbox started in this worker. Every byte the server writes is searched for the token.
//
// A server is a process of ~0.5 s of CPU: the tests that need nothing of one but its tools
// share one per platform server (onSandbox, onAlt, …), started by the first test that asks
// and ended with the file; each test still makes its own objects and reads only what it
// caused. A test whose promise is about the server's configuration or state starts its own.
// The describes run beside each other, but for those that compare every request a server
// received; tests that share a server's next line or its data run one at a time.

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from '../support/mcp.js';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, ROOT, runCli, sandboxAdmin, tmpDir } from '../support/cli.js';
import { closedPort, platformOf, startAlt } from '../support/servers.js';
import { behaviours, startHostile, type Behaviour } from '../support/hostile-server.js';
import { startSandboxHere } from '../support/sandbox-here.js';

interface Session {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Every byte the server wrote to stdout and stderr so far: all it sent the client, at least. */
  written(): Promise<string>;
  /** Ends the server (closing its stdin), then returns every byte it wrote to stdout and stderr. */
  end(): Promise<string>;
}

/**
 * Where what a helper makes is undone: the test's onTestFinished (the context's, which
 * concurrent tests need), or fileScope.
 */
type Scope = (undo: () => Promise<void> | void) => void;
/** What the file shares (its servers and their worlds), undone after the file. */
const fileCleanups: (() => Promise<void> | void)[] = [];
const fileScope: Scope = (undo) => void fileCleanups.push(undo);
afterAll(async () => {
  while (fileCleanups.length > 0) await fileCleanups.pop()?.();
});

/** A config dir and HOME of its own, and the env that points hostctl at `baseUrl` with `token`. */
function world(baseUrl: string, token: string, scope: Scope) {
  const dir = tmpDir('hostctl-mcp-');
  scope(() => dir.cleanup());
  return { HOME: dir.path, HOSTCTL_CONFIG_DIR: join(dir.path, 'config'), XDG_CACHE_HOME: join(dir.path, 'cache'), HOSTCTL_BASE_URL: baseUrl, HOSTCTL_TOKEN: token };
}

/**
 * `hostctl mcp` under the SDK's client. Its stdout passes through tee into a file on the
 * way, so that the test sees every byte the server wrote, not only what the SDK parsed.
 */
async function connect(env: Record<string, string>, args: string[], scope: Scope): Promise<Session> {
  const dir = tmpDir('hostctl-mcp-out-');
  const out = join(dir.path, 'stdout');
  writeFileSync(out, '');
  const { client, stderr, teed } = await connectMcp(env, args, [], { teeTo: out });
  let ended: Promise<string> | undefined;
  const session: Session = {
    client,
    stderr,
    written: async () => (await teed()) + stderr(),
    // After the client closed, tee has written its file whole (it may pass a line on before writing it).
    end: () => (ended ??= client.close().then(() => readFileSync(out, 'utf8') + stderr())),
  };
  scope(async () => {
    await session.end();
    dir.cleanup();
  });
  return session;
}

/** `start()` once, for the whole file: the first test that asks starts it. */
function shared<T>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => (started ??= start());
}

/** The file's sandbox, started in this worker. */
const fileSandbox = shared(async () => {
  const sandbox = await startSandboxHere({ rateLimit: 100_000, pageSize: 1000 });
  fileScope(() => sandbox.stop());
  return sandbox;
});
/** A `hostctl mcp` at the file's sandbox, with the sandbox. */
const onSandbox = shared(async () => {
  const sandbox = await fileSandbox();
  return { sandbox, s: await connect(world(sandbox.baseUrl, sandbox.token, fileScope), [], fileScope) };
});
/** A `hostctl mcp` at an alt server of the file's (as the platform would page), with the server. */
const onAlt = shared(async () => {
  const alt = await startAlt({ limit: 100_000 });
  fileScope(() => alt.stop());
  return { alt, s: await connect(world(alt.baseUrl, alt.token, fileScope), [], fileScope) };
});

interface ToolText {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  json: Record<string, unknown>;
}

async function call(s: Session, name: string, args: Record<string, unknown> = {}, onprogress?: () => void): Promise<ToolText> {
  const r = await s.client.callTool({ name, arguments: args }, undefined, { onprogress, timeout: 60_000 });
  const content = r.content as { type: string; text: string }[];
  expect(content[0]?.type).toBe('text');
  return { isError: r.isError === true, structuredContent: r.structuredContent as Record<string, unknown> | undefined, json: JSON.parse(content[0]?.text ?? '') as Record<string, unknown> };
}

function errorOf(r: ToolText): Record<string, unknown> {
  expect(r.isError).toBe(true);
  return r.json.error as Record<string, unknown>;
}

/** The file's `hostctl mcp` at the sandbox or the alt server, with that server. */
async function onServer(which: 'sandbox' | 'alt') {
  if (which === 'alt') {
    const { alt, s } = await onAlt();
    return { server: alt, s };
  }
  const { sandbox, s } = await onSandbox();
  return { server: platformOf(sandbox), s };
}

// These compare every request the sandbox and the alt server received: they run alone.
describe('one question, one walk: list_objects and the list command send the same requests', () => {
  for (const which of ['sandbox', 'alt'] as const) {
    it(`deployments of one app cost what "deployments list --app" costs, on the ${which}`, async ({ onTestFinished }) => {
      const { server, s } = await onServer(which);
      // An app with a few environments: the API's route for each, never the whole collection.
      const byApp = new Map<string, number>();
      for (const e of await server.all('environments')) {
        const app = String(e.app ?? e.appId);
        byApp.set(app, (byApp.get(app) ?? 0) + 1);
      }
      const app = [...byApp].find(([, n]) => n >= 2 && n <= 3)?.[0];
      expect(app).toBeDefined();
      const env = world(server.baseUrl, server.token, onTestFinished);
      const sent = async () => (await server.requests()).map((r) => `${r.method} ${r.path}?${r.query}`);

      await server.clearRequests();
      const cli = await runCli(['deployments', 'list', '--app', String(app), '--limit', '100', '--json'], { env });
      expect(cli.code, cli.stderr).toBe(0);
      const byCommand = await sent();
      await server.clearRequests();
      const got = await call(s, 'list_objects', { resource: 'deployments', app, limit: 100 });
      expect(got.isError).toBe(false);
      const byTool = await sent();

      expect(byTool).toEqual(byCommand);
      expect(byTool.filter((r) => /\/deployments\?/.test(r) && !/\/environments\//.test(r))).toEqual([]);
      expect((got.json.items as { publicId: string }[]).map((d) => d.publicId)).toEqual((JSON.parse(cli.stdout) as { publicId: string }[]).map((d) => d.publicId));
    });
  }
});

describe('one question, one walk, past the route shortcut', () => {
  for (const which of ['sandbox', 'alt'] as const) {
    it(`deployments of an app with more environments than the shortcut asks one by one cost what the command costs, on the ${which}`, async ({ onTestFinished }) => {
      const { server, s } = await onServer(which);
      // Both servers' field names, so that each finds the references its own way.
      const app = 'ap-walkmany01';
      const envs = Array.from({ length: 5 }, (_, i) => `en-walkmany0${i}`);
      await server.plant('apps', [{ publicId: app, name: 'walk-many', status: 'live' }]);
      await server.plant('environments', envs.map((e) => ({ publicId: e, name: e, app, appId: app })));
      await server.plant('deployments', envs.flatMap((e, i) => [0, 1].map((j) => ({ publicId: `de-walkmany${i}${j}`, environment: e, environmentId: e, status: 'succeeded' }))));
      const env = world(server.baseUrl, server.token, onTestFinished);
      const sent = async () => (await server.requests()).map((r) => `${r.method} ${r.path}?${r.query}`);

      await server.clearRequests();
      const cli = await runCli(['deployments', 'list', '--app', app, '--limit', '100', '--json'], { env });
      expect(cli.code, cli.stderr).toBe(0);
      const byCommand = await sent();
      await server.clearRequests();
      const got = await call(s, 'list_objects', { resource: 'deployments', app, limit: 100 });
      expect(byCommand.length).toBeGreaterThan(1);
      expect(await sent()).toEqual(byCommand);
      const ids = (got.json.items as { publicId: string }[]).map((d) => d.publicId);
      expect(ids).toEqual((JSON.parse(cli.stdout) as { publicId: string }[]).map((d) => d.publicId));
      expect(ids).toHaveLength(10);
    });
  }
});

// Beside the describes after it; its tests, which share a server and its data, one at a time.
describe('hostctl mcp under the SDK client', { concurrent: true }, () => {
  it.sequential('initializes, lists tools whose schemas are valid JSON Schema, and answers every tool', async () => {
    const { sandbox, s } = await onSandbox();
    expect(s.client.getServerVersion()?.name).toBe('hostctl');
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['app_status', 'auth_status', 'call_operation', 'get_objects', 'list_objects', 'list_operations', 'rate_limit', 'wait_for']);
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    for (const t of tools) {
      expect(ajv.validateSchema(t.inputSchema), `${t.name} input`).toBe(true);
      expect(ajv.validateSchema(t.outputSchema ?? {}), `${t.name} output`).toBe(true);
      expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      expect(t.description?.split('\n')).toHaveLength(1);
    }

    const list = await call(s, 'list_objects', { resource: 'apps', limit: 3 });
    expect(list.isError).toBe(false);
    const apps = list.json.items as Record<string, unknown>[];
    expect(apps).toHaveLength(3);
    expect(list.structuredContent).toEqual(list.json);
    expect(typeof list.json.nextCursor).toBe('string');
    for (const app of apps) expect(Object.keys(app).filter((k) => k.startsWith('@'))).toEqual([]);

    const ids = apps.map((a) => String(a.publicId));
    const got = await call(s, 'get_objects', { resource: 'apps', ids: [...ids, 'ap-0000000000'], fields: ['publicId', 'status'] });
    expect((got.json.items as unknown[]).map((i) => (i as { publicId: string }).publicId)).toEqual(ids);
    expect(Object.keys((got.json.items as object[])[0] ?? {})).toEqual(['publicId', 'status']);
    expect(got.json.notFound).toEqual(['ap-0000000000']);

    const first = apps[0] as { publicId: string; status: string };
    const waited = await call(s, 'wait_for', { resource: 'apps', ids: [first.publicId], for: [`status=${first.status}`] });
    expect(waited.json).toMatchObject({ met: true, rounds: 1 });

    const rate = await call(s, 'rate_limit');
    expect(rate.json.limit).toBe(100_000);
    expect(typeof rate.json.remaining).toBe('number');

    const auth = await call(s, 'auth_status');
    expect(auth.json).toEqual({ profile: 'default', baseUrl: sandbox.baseUrl, tokenSource: 'env', tokenLastFour: sandbox.token.slice(-4), rejected: false });

    const bad = errorOf(await call(s, 'get_objects', { resource: 'apps', ids: ['not an id'] }));
    expect(bad.code).toBe('usage');
    expect(typeof bad.hint).toBe('string');
    // Arguments are checked against the schema, whatever the client checked: the server's own word.
    expect(errorOf(await call(s, 'list_objects', { resource: 'apps', limit: 101 })).message).toMatch(/at most 100/);
    expect(errorOf(await call(s, 'list_objects', { resource: 'apps', verbose: true })).code).toBe('usage');
    expect(errorOf(await call(s, 'list_objects', { resource: 'volumes' })).code).toBe('usage');
    expect(errorOf(await call(s, 'list_objects', { resource: 'teams', app: 'ap-1a2b3c4d5e' })).message).toMatch(/cannot be filtered by app/);
    // The server is still there after a bad call.
    expect((await call(s, 'rate_limit')).isError).toBe(false);
    expect(await s.written()).not.toContain(sandbox.token);
  });

  it.sequential('lists the reference\'s operations and calls GETs by operationId or path, refusing anything that writes', async () => {
    const { sandbox, s } = await onSandbox();
    const admin = sandboxAdmin(sandbox);
    const ops = (await call(s, 'list_operations')).json.operations as { operationId: string; method: string }[];
    expect(ops).toEqual(expect.arrayContaining([expect.objectContaining({ operationId: 'getApp', method: 'GET' }), expect.objectContaining({ operationId: 'createApp', method: 'POST' })]));
    const { items } = (await call(s, 'list_objects', { resource: 'apps', limit: 1 })).json as { items: { publicId: string }[] };
    const id = items[0]!.publicId;
    const byId = await call(s, 'call_operation', { operationId: 'getApp', params: { publicId: id } });
    expect(byId.json.status).toBe(200);
    expect((byId.json.body as { publicId: string }).publicId).toBe(id);
    const byPath = await call(s, 'call_operation', { path: `/apps/${id}` });
    expect(byPath.json).toEqual(byId.json);
    expect(errorOf(await call(s, 'call_operation', { path: '/apps/ap-zzzzzzzzzz' })).code).toBe('not_found');
    await admin.clearRequests();
    const refused = errorOf(await call(s, 'call_operation', { operationId: 'createApp', params: { name: 'x' } }));
    expect(refused.code).toBe('usage');
    expect(String(refused.message)).toMatch(/only reads/);
    expect((await admin.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await s.written()).not.toContain(sandbox.token);
  });

  it.sequential('filters by a relation as list does, also through another resource (deployments of an app)', async ({ onTestFinished }) => {
    // The independent server, whose deployments name only their environment: the app's
    // deployments are found through its environments.
    const { alt, s } = await onAlt();
    const env = world(alt.baseUrl, alt.token, onTestFinished);
    const { items } = (await call(s, 'list_objects', { resource: 'apps', limit: 1 })).json as { items: { publicId: string }[] };
    const app = items[0]!.publicId;
    const cli = await runCli(['deployments', 'list', '--app', app, '--limit', '100', '--json'], { env });
    expect(cli.code, cli.stderr).toBe(0);
    const expected = (JSON.parse(cli.stdout) as { publicId: string }[]).map((d) => d.publicId);
    expect(expected.length).toBeGreaterThan(0);
    const got = await call(s, 'list_objects', { resource: 'deployments', app, limit: 100 });
    expect((got.json.items as { publicId: string }[]).map((d) => d.publicId).sort()).toEqual(expected.sort());
    const envs = await call(s, 'list_objects', { resource: 'environments', app, limit: 100 });
    const cliEnvs = await runCli(['environments', 'list', '--app', app, '--limit', '100', '--json'], { env });
    expect((envs.json.items as { publicId: string }[]).map((e) => e.publicId)).toEqual((JSON.parse(cliEnvs.stdout) as { publicId: string }[]).map((e) => e.publicId));
  });

  it.sequential('a page of 1,000 objects comes 100 at a time, with a cursor that continues where it stopped', async ({ onTestFinished }) => {
    // The independent server, which sends a page of any size (the sandbox stops at 100).
    const alt = await startAlt({ pageSize: 1000, limit: 100_000 });
    onTestFinished(() => alt.stop());
    await alt.plant('teams', Array.from({ length: 1000 }, (_, i) => ({ publicId: `mcp${String(i).padStart(5, '0')}`, name: `Team ${i}` })));
    const s = await connect(world(alt.baseUrl, alt.token, onTestFinished), [], onTestFinished);
    await alt.clearRequests();
    const page = await call(s, 'list_objects', { resource: 'teams' });
    const items = page.json.items as { publicId: string }[];
    expect(items).toHaveLength(100);
    expect(String(page.json.note)).toMatch(/nextCursor/);
    const next = await call(s, 'list_objects', { resource: 'teams', cursor: page.json.nextCursor });
    const more = next.json.items as { publicId: string }[];
    expect(more).toHaveLength(100);
    // One request each: the 1,000-object page, then the same page again for the second hundred.
    expect(await alt.requests()).toHaveLength(2);
    const all = await alt.all('teams');
    expect([...items, ...more].map((i) => i.publicId)).toEqual(all.slice(0, 200).map((t) => t.publicId));
    const wrong = errorOf(await call(s, 'list_objects', { resource: 'apps', cursor: page.json.nextCursor }));
    expect(wrong.code).toBe('usage');
    expect(await s.end()).not.toContain(alt.token);
  });

  it.sequential('a page of large objects stops at the byte cap, with a note and a cursor at the first object left out', async ({ onTestFinished }) => {
    const alt = await startAlt({ pageSize: 100, limit: 100_000 });
    onTestFinished(() => alt.stop());
    const big = 'x'.repeat(2000);
    await alt.plant('teams', Array.from({ length: 100 }, (_, i) => ({ publicId: `big${String(i).padStart(5, '0')}`, name: `Team ${i}`, notes: big })));
    const s = await connect(world(alt.baseUrl, alt.token, onTestFinished), [], onTestFinished);
    const all = (await alt.all('teams')).map((t) => t.publicId);
    const first = await call(s, 'list_objects', { resource: 'teams', limit: 100 });
    const items = (first.json.items as { publicId: string }[]).map((t) => t.publicId);
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThan(100);
    expect(Buffer.byteLength(JSON.stringify(first.json.items))).toBeLessThanOrEqual(64 * 1024);
    expect(String(first.json.note)).toMatch(/bytes/);
    const next = await call(s, 'list_objects', { resource: 'teams', limit: 1, cursor: first.json.nextCursor });
    expect((next.json.items as { publicId: string }[]).map((t) => t.publicId)).toEqual([all[items.length]]);
    expect(items).toEqual(all.slice(0, items.length));
  });

  it.sequential('a cursor made up to point at another origin is refused, and nothing is sent there', async () => {
    const { sandbox, s } = await onSandbox();
    const forged = Buffer.from(JSON.stringify({ r: 'apps', f: null, u: 'http://collector.invalid/v1/apps', s: 0 })).toString('base64url');
    const error = errorOf(await call(s, 'list_objects', { resource: 'apps', cursor: forged }));
    expect(error.code).toBe('usage');
    expect(errorOf(await call(s, 'list_objects', { resource: 'apps', cursor: 'not-a-cursor' })).code).toBe('usage');
    expect(await s.written()).not.toContain(sandbox.token);
  });

  it.sequential('a cursor at the end of a page continues at the next page the server named', async () => {
    const { s } = await onSandbox();
    const first = await call(s, 'list_objects', { resource: 'apps', limit: 30 });
    const second = await call(s, 'list_objects', { resource: 'apps', limit: 30, cursor: first.json.nextCursor });
    const ids = [...(first.json.items as { publicId: string }[]), ...(second.json.items as { publicId: string }[])].map((a) => a.publicId);
    expect(new Set(ids).size).toBe(ids.length);
    const whole = await call(s, 'list_objects', { resource: 'apps', limit: ids.length });
    expect((whole.json.items as { publicId: string }[]).map((a) => a.publicId)).toEqual(ids);
  });

  it.sequential('a token inside the data reaches the agent scrubbed, and numbers reach it exact', async () => {
    const { sandbox, s } = await onSandbox();
    // An app of this test's own (the file's other tests read the sandbox's), from a hostile
    // or careless API echoing the token back, and a number no double holds.
    const id = 'ap-leaktoken01';
    const body = JSON.stringify([{ publicId: id, name: `leak ${sandbox.token} here`, replicas: 0 }]).replace('"replicas":0', '"replicas":12345678901234567890');
    await fetch(`${sandbox.origin}/_sandbox/objects/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const got = await call(s, 'get_objects', { resource: 'apps', ids: [id], fields: ['publicId', 'name', 'replicas'] });
    const item = (got.json.items as { name: string }[])[0]!;
    expect(item.name).toBe(`leak ****${sandbox.token.slice(-4)} here`);
    const written = await s.written();
    expect(written).not.toContain(sandbox.token);
    expect(written).toContain('"replicas":12345678901234567890');
  });

  it.sequential('a cancelled wait_for sends no further poll, and the server answers the next call', async () => {
    const { sandbox, s } = await onSandbox();
    const admin = sandboxAdmin(sandbox);
    // Apps of its own: the polls for them are its own.
    const [id, other] = ['ap-waitcanc01', 'ap-waitcanc02'];
    await platformOf(sandbox).plant('apps', [id, other].map((publicId) => ({ publicId, name: publicId, status: 'live' })));
    await admin.clearRequests();
    const abort = new AbortController();
    // A deadline of 1s: a wait that went on would poll again at it.
    const waiting = s.client.callTool({ name: 'wait_for', arguments: { resource: 'apps', ids: [id], for: ['status=never-this'], deadline: '1s' } }, undefined, { signal: abort.signal, onprogress: () => abort.abort() });
    await expect(waiting).rejects.toThrow();
    expect((await call(s, 'auth_status')).isError).toBe(false);
    // A later wait, on another app, with a later deadline: it ends after the first would have polled again.
    expect(errorOf(await call(s, 'wait_for', { resource: 'apps', ids: [other], for: ['status=never-this'], deadline: '2s' })).code).toBe('deadline');
    const polls = (r: { path: string; query: string }, app: string) => r.path.endsWith('/apps') && String(r.query).includes(app);
    const log = await admin.requests();
    expect(log.filter((r) => polls(r, other)).length).toBeGreaterThan(1);
    expect(log.filter((r) => polls(r, id))).toHaveLength(1);
  });

  it.sequential('wait_for reports progress when asked and a deadline as a deadline tool error', async () => {
    const { s } = await onSandbox();
    const list = await call(s, 'list_objects', { resource: 'apps', limit: 1 });
    const app = (list.json.items as { publicId: string }[])[0]!;
    let progress = 0;
    const r = await call(s, 'wait_for', { resource: 'apps', ids: [app.publicId], for: ['status=never-this'], deadline: '1s' }, () => progress++);
    const error = errorOf(r);
    expect(error.code).toBe('deadline');
    expect(error.unmet).toHaveProperty(app.publicId);
    expect(progress).toBeGreaterThanOrEqual(1);
  });
});

describe('list_objects cursors cannot be forged', { concurrent: true }, () => {
  it('a cursor hostctl did not make, made for another list, or tampered with, is a usage error and sends nothing', async ({ onTestFinished }) => {
    const alt = await startAlt({ limit: 100_000, pageSize: 5 });
    onTestFinished(() => alt.stop());
    const origin = new URL(alt.baseUrl).origin;
    const s = await connect(world(alt.baseUrl, alt.token, onTestFinished), [], onTestFinished);
    const apps = await call(s, 'list_objects', { resource: 'apps', limit: 2 });
    const valid = String(apps.json.nextCursor);
    expect(valid).not.toBe('undefined');
    const [body, tag] = valid.split('.');
    const payload = JSON.parse(Buffer.from(String(body), 'base64url').toString('utf8')) as { at: { url?: string } };
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    const forged = [
      b64('/_sandbox/requests'),
      b64({ r: 'apps', f: null, u: `${origin}/_sandbox/requests`, s: 0 }),
      b64({ r: 'apps', f: null, u: `${origin}/v1/../_sandbox/tokens`, s: 0 }),
      // The seal of a real cursor over another position.
      `${b64({ ...payload, at: { source: 0, url: `${origin}/_sandbox/requests`, skip: 0 } })}.${tag}`,
      `${b64({ ...payload, at: { ...payload.at, url: `${origin}/v1/../_sandbox/tokens` } })}.${tag}`,
      `${body}.${b64('not the seal')}`,
      valid.slice(0, -2),
    ];
    await alt.clearRequests();
    for (const cursor of forged) {
      const error = errorOf(await call(s, 'list_objects', { resource: 'apps', cursor }));
      expect(error.code, cursor).toBe('usage');
      expect(String(error.hint)).not.toBe('');
    }
    // A real cursor, for another resource or another filter.
    expect(errorOf(await call(s, 'list_objects', { resource: 'environments', cursor: valid })).code).toBe('usage');
    expect(errorOf(await call(s, 'list_objects', { resource: 'environments', app: 'ap-1a2b3c4d5e', cursor: valid })).code).toBe('usage');
    expect(await alt.requests()).toEqual([]);
    // The real one still works, on this server's base URL only.
    expect((await call(s, 'list_objects', { resource: 'apps', limit: 2, cursor: valid })).isError).toBe(false);
    expect(await s.end()).not.toContain(alt.token);
  });

  it("another server process's cursor is not this one's", async ({ onTestFinished }) => {
    const alt = await startAlt({ limit: 100_000, pageSize: 5 });
    onTestFinished(() => alt.stop());
    const env = world(alt.baseUrl, alt.token, onTestFinished);
    const first = await connect(env, [], onTestFinished);
    const cursor = (await call(first, 'list_objects', { resource: 'apps', limit: 2 })).json.nextCursor;
    await first.end();
    const second = await connect(env, [], onTestFinished);
    await alt.clearRequests();
    expect(errorOf(await call(second, 'list_objects', { resource: 'apps', cursor })).code).toBe('usage');
    expect(await alt.requests()).toEqual([]);
  });
});

describe('hostctl mcp when things go wrong', { concurrent: true }, () => {
  /** Arguments each tool takes without complaint, so that only the configuration can fail. */
  const EVERY_TOOL: [string, Record<string, unknown>][] = [
    ['list_objects', { resource: 'apps' }],
    ['get_objects', { resource: 'apps', ids: ['ap-1a2b3c4d5e'] }],
    ['wait_for', { resource: 'apps', ids: ['ap-1a2b3c4d5e'], for: ['status=running'] }],
    ['list_operations', {}],
    ['call_operation', { path: '/apps' }],
    ['rate_limit', {}],
    ['auth_status', {}],
    ['app_status', { app: 'ap-1a2b3c4d5e' }],
  ];

  it('with no base URL it starts, lists its tools, and every call says how to set one', async ({ onTestFinished }) => {
    const env: Record<string, string | undefined> = world('unused', 'mcp-test-token-0123456789abcdef', onTestFinished);
    delete env.HOSTCTL_BASE_URL;
    const s = await connect(env as Record<string, string>, [], onTestFinished);
    expect((await s.client.listTools()).tools.map((t) => t.name).sort()).toEqual(EVERY_TOOL.map(([name]) => name).sort());
    for (const [name, args] of EVERY_TOOL) {
      const error = errorOf(await call(s, name, args));
      expect(error.code, name).toBe('usage');
      expect(String(error.message), name).toMatch(/^hostctl mcp has no base URL: set HOSTCTL_BASE_URL in the env of its entry in the agent host's MCP configuration [^\n]*\.$/);
      expect(String(error.hint), name).not.toBe('');
    }
    expect(s.stderr()).toMatch(/^hostctl: warning: No base URL is set/m);
  });

  it('with no token it starts, lists its tools, and every call says how to give it one, sending nothing', async ({ onTestFinished }) => {
    const alt = await startAlt({ limit: 100_000 });
    onTestFinished(() => alt.stop());
    const env: Record<string, string | undefined> = world(alt.baseUrl, 'unused', onTestFinished);
    delete env.HOSTCTL_TOKEN;
    const s = await connect(env as Record<string, string>, [], onTestFinished);
    expect((await s.client.listTools()).tools).toHaveLength(EVERY_TOOL.length);
    for (const [name, args] of EVERY_TOOL) {
      const error = errorOf(await call(s, name, args));
      expect(error.code, name).toBe('auth');
      expect(String(error.message), name).toMatch(/^hostctl mcp has no token \(.*\): run "hostctl auth login" once .* or set HOSTCTL_TOKEN in the env of its entry in the agent host's MCP configuration [^\n]*\.$/);
      expect(String(error.hint), name).not.toBe('');
    }
    expect(await alt.requests()).toEqual([]);
  });

  it('a rejected token is an auth tool error, and the next call sends nothing', async ({ onTestFinished }) => {
    const sandbox = await startSandboxHere();
    onTestFinished(() => sandbox.stop());
    const admin = sandboxAdmin(sandbox);
    const token = await admin.newToken('agent');
    await admin.revoke('agent');
    const s = await connect(world(sandbox.baseUrl, token, onTestFinished), [], onTestFinished);
    const first = errorOf(await call(s, 'list_objects', { resource: 'apps' }));
    expect(first.code).toBe('auth');
    expect(String(first.hint)).not.toBe('');
    await admin.clearRequests();
    const second = errorOf(await call(s, 'get_objects', { resource: 'apps', ids: ['ap-0000000000'] }));
    expect(second.code).toBe('auth');
    expect(await admin.requests()).toEqual([]);
    const written = await s.end();
    expect(written).not.toContain(token);
    expect(written).not.toContain(sandbox.token);
  });

  it("an agent's requests wait in the shared budget at batch priority, even where a person would be said to wait", async ({ onTestFinished }) => {
    const sandbox = await startSandboxHere({ rateLimit: 1 });
    onTestFinished(() => sandbox.stop());
    const env = { ...world(sandbox.baseUrl, sandbox.token, onTestFinished), HOSTCTL_INTERACTIVE: '1' };
    const s = await connect(env, [], onTestFinished);
    expect((await call(s, 'list_objects', { resource: 'apps', limit: 1 })).isError).toBe(false);
    const waiting = s.client.callTool({ name: 'list_objects', arguments: { resource: 'apps', limit: 1 } }, undefined, { timeout: 120_000 });
    waiting.catch(() => undefined);
    while (!/waiting \d+s before sending/.test(s.stderr())) await new Promise((resolve) => setTimeout(resolve, 50));
    // An interactive client that must wait claims the next slot in the budget file (its
    // waiters); a batch one does not.
    const dir = join(env.HOSTCTL_CONFIG_DIR, 'budget');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const budget = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as { waiters?: Record<string, number> };
    expect(Object.keys(budget.waiters ?? {})).toEqual([]);
  });

  it('a 429 storm is waited out within --max-wait, and one past it is rate_limited; the server goes on', async ({ onTestFinished }) => {
    const alt = await startAlt({ limit: 100_000 });
    onTestFinished(() => alt.stop());
    const s = await connect(world(alt.baseUrl, alt.token, onTestFinished), [], onTestFinished);
    alt.alt.force429(2, 1);
    const ok = await call(s, 'list_objects', { resource: 'apps', limit: 1 });
    expect(ok.isError).toBe(false);
    expect(await alt.requests()).toHaveLength(3);
    alt.alt.force429(1, 600);
    const error = errorOf(await call(s, 'list_objects', { resource: 'apps', limit: 1 }));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfter).toBeGreaterThan(120);
    expect((await call(s, 'auth_status')).isError).toBe(false);
    expect(await s.end()).not.toContain(alt.token);
  });

  it('server faults are api tool errors, a token echoed in one never reaches the agent, and the server answers the next call', async ({ onTestFinished }) => {
    let now: Behaviour = behaviours.html502;
    const hostile = await startHostile((req, res) => now(req, res));
    onTestFinished(() => hostile.close());
    const token = 'mcp-hostile-token-0123456789abcdef';
    const s = await connect(world(hostile.baseUrl, token, onTestFinished), ['--retries', '0'], onTestFinished);
    for (const fault of [behaviours.html502, behaviours.echoesToken, behaviours.invalidJson, behaviours.truncatedJson]) {
      now = fault;
      const error = errorOf(await call(s, 'list_objects', { resource: 'apps' }));
      expect(error.code).toBe('api');
    }
    now = behaviours.ok;
    expect((await call(s, 'list_objects', { resource: 'apps' })).isError).toBe(false);
    expect(await s.end()).not.toContain(token);
  });

  it('a server that is not there is a network tool error', async ({ onTestFinished }) => {
    const port = await closedPort();
    const token = 'mcp-test-token-0123456789abcdef';
    const s = await connect(world(`http://127.0.0.1:${port}/v1`, token, onTestFinished), ['--retries', '0'], onTestFinished);
    const error = errorOf(await call(s, 'list_objects', { resource: 'apps' }));
    expect(error.code).toBe('network');
    expect(await s.end()).not.toContain(token);
  });

  it('a call whose wait for the budget would pass --max-wait is rate_limited with the seconds to wait', async ({ onTestFinished }) => {
    const sandbox = await startSandboxHere({ rateLimit: 1 });
    onTestFinished(() => sandbox.stop());
    const s = await connect(world(sandbox.baseUrl, sandbox.token, onTestFinished), ['--max-wait', '1'], onTestFinished);
    expect((await call(s, 'list_objects', { resource: 'apps', limit: 1 })).isError).toBe(false);
    const error = errorOf(await call(s, 'list_objects', { resource: 'apps', limit: 1 }));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfter).toBeGreaterThan(1);
    expect(await s.end()).not.toContain(sandbox.token);
  });
});

describe('hostctl mcp on the wire, with no SDK', { concurrent: true }, () => {
  it('the SDK is a chunk of its own, not part of the program every command reads', () => {
    const dist = join(ROOT, 'dist');
    const chunks = readdirSync(join(dist, 'chunks')).filter((f) => /^mcp-.*\.cjs$/.test(f));
    expect(chunks).toHaveLength(1);
    // The protocol's method names live in the SDK only.
    expect(readFileSync(join(dist, 'chunks', chunks[0]!), 'latin1')).toContain('notifications/progress');
    expect(readFileSync(join(dist, 'hostctl.cjs'), 'latin1')).not.toContain('notifications/progress');
  });

  it('refuses --dry-run, whose output would break the protocol', async ({ onTestFinished }) => {
    const r = await runCli(['--dry-run', 'mcp'], { env: world('http://127.0.0.1:9/v1', 'mcp-test-token-0123456789abcdef', onTestFinished), input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hostctl: --dry-run does not apply to hostctl mcp/);
    expect(r.stdout).toBe('');
  });

  it('answers newline-delimited JSON-RPC: initialize, tools/list, tools/call, a malformed line, an unknown tool; stdin closing ends it with exit 0', async ({ onTestFinished }) => {
    const sandbox = await startSandboxHere();
    onTestFinished(() => sandbox.stop());
    // -R: the line the run prints once it has finished, which only a clean end gets to.
    const child = spawn(process.execPath, [BIN, '-R', 'mcp'], { env: baseEnv(world(sandbox.baseUrl, sandbox.token, onTestFinished)), cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const waiting: { id: unknown; resolve: (m: Record<string, unknown>) => void }[] = [];
    const messages: Record<string, unknown>[] = [];
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const lines = stdout.split('\n');
      for (const line of lines.slice(messages.length, -1)) {
        const m = JSON.parse(line) as Record<string, unknown>;
        messages.push(m);
        const w = waiting.findIndex((x) => x.id === m.id);
        if (w !== -1) waiting.splice(w, 1)[0]?.resolve(m);
      }
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const send = (line: string, id: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const seen = messages.find((m) => m.id === id);
        if (seen) return resolve(seen);
        waiting.push({ id, resolve });
        child.stdin.write(`${line}\n`);
      });

    const init = await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }), 1);
    expect(init.result).toMatchObject({ serverInfo: { name: 'hostctl' }, capabilities: { tools: {} } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const list = await send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), 2);
    expect(((list.result as { tools: { name: string }[] }).tools).map((t) => t.name)).toContain('list_objects');
    const malformed = await send('{"jsonrpc": "2.0", "id": 3, "method": ', null);
    expect(malformed.error).toMatchObject({ code: -32700 });
    const unknown = await send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'delete_everything', arguments: {} } }), 4);
    expect(unknown.error).toMatchObject({ code: -32602 });
    const called = await send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_objects', arguments: { resource: 'apps', limit: 2 } } }), 5);
    const result = called.result as { structuredContent: { items: unknown[] }; content: { text: string }[] };
    expect(result.structuredContent.items).toHaveLength(2);
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual(result.structuredContent);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/Rate limit: /);
    expect(stdout + stderr).not.toContain(sandbox.token);
    // Nothing but protocol on stdout: every line is a JSON-RPC message.
    for (const line of stdout.trimEnd().split('\n')) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
  });
});

/**
 * `hostctl mcp` with raw lines on its stdin, initialized. `ask` writes a line and resolves
 * with the first answer that `match` accepts (by default, the one whose id is `id`).
 */
async function rawServer(env: Record<string, string>, scope: Scope) {
  const child = spawn(process.execPath, [BIN, 'mcp'], { env: baseEnv(env), cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  scope(async () => {
    child.stdin.end();
    await exited;
  });
  let stdout = '';
  const lines: string[] = [];
  const waiting: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    const all = stdout.split('\n');
    for (const line of all.slice(lines.length, -1)) {
      lines.push(line);
      const w = waiting.findIndex((x) => x.match(line));
      if (w !== -1) waiting.splice(w, 1)[0]?.resolve(line);
    }
  });
  const ask = (line: string, match: (line: string) => boolean) =>
    new Promise<string>((resolve) => {
      waiting.push({ match, resolve });
      child.stdin.write(`${line}\n`);
    });
  const byId = (id: number) => (line: string) => (JSON.parse(line) as { id?: unknown }).id === id;
  const request = async (id: number, method: string, params?: unknown) => JSON.parse(await ask(JSON.stringify({ jsonrpc: '2.0', id, method, params }), byId(id))) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  await request(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return { ask, request, lines, byId, write: (text: string) => child.stdin.write(text) };
}

/** The file's `hostctl mcp` with raw lines on its stdin, at the file's sandbox, with the sandbox. */
const onRaw = shared(async () => {
  const sandbox = await fileSandbox();
  return { sandbox, s: await rawServer(world(sandbox.baseUrl, sandbox.token, fileScope), fileScope) };
});

// One server, whose next line is the answer to the test's request: one test at a time.
describe('hostctl mcp on the wire: what each answer holds', { concurrent: true }, () => {
  it.sequential('answers a request whose id is past 2^53 with that id exactly as sent', async () => {
    const { s } = await onRaw();
    for (const id of ['12345678901234567891', '-98765432109876543210', '9007199254740993']) {
      // One request at a time: the next line is its answer, whatever id it carries.
      const answer = await s.ask(`{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`, () => true);
      expect(answer).toMatch(new RegExp(`"id":${id}[,}]`));
      expect(answer).toContain('"tools":[');
    }
    const called = await s.ask('{"jsonrpc":"2.0","id":18446744073709551617,"method":"tools/call","params":{"name":"list_objects","arguments":{"resource":"volumes"}}}', () => true);
    expect(called).toMatch(/"id":18446744073709551617[,}]/);
    expect(called).toContain('"isError":true');
  });

  it.sequential('cancels a request whose id is past 2^53 by that id', async () => {
    const { s } = await onRaw();
    const mark = s.lines.length;
    const listed = await s.request(1, 'tools/call', { name: 'list_objects', arguments: { resource: 'apps', limit: 1, fields: ['publicId'] } });
    const app = ((listed.result?.structuredContent as { items: { publicId: string }[] }).items[0])?.publicId;
    const wait = (deadline: string) => ({ name: 'wait_for', arguments: { resource: 'apps', ids: [app], for: ['status=never'], deadline } });
    s.write(`{"jsonrpc":"2.0","id":12345678901234567891,"method":"tools/call","params":${JSON.stringify(wait('1s'))}}\n`);
    s.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567891}}\n');
    // A later call with a later deadline: had the first gone on, its answer would come first.
    const later = await s.request(2, 'tools/call', wait('2s'));
    expect(String((later.result?.content as { text: string }[])[0]?.text)).toContain('"deadline"');
    expect(s.lines.slice(mark).filter((line) => line.includes('1234567890123456'))).toEqual([]);
  });

  it.sequential('answers arguments that are not an object with one sentence, as invalid params', async () => {
    const { s } = await onRaw();
    let id = 1;
    for (const args of ['apps', ['apps'], 7, true]) {
      const { error } = await s.request(id++, 'tools/call', { name: 'list_objects', arguments: args });
      expect(error?.code).toBe(-32602);
      expect(error?.message).toMatch(/^Invalid params: [^\n]*arguments[^\n]* must be an object[^\n]*\.$/);
    }
    const { error } = await s.request(id++, 'tools/call', { name: 7 });
    expect(error?.message).toMatch(/^Invalid params: [^\n]*"params.name" must be a string\.$/);
  });

  it.sequential('answers a line longer than the limit once, and the next message as usual', async () => {
    const { s } = await onRaw();
    const before = s.lines.length;
    s.write(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":"${'z'.repeat(5 * 1024 * 1024)}"}}\n`);
    expect((await s.request(8, 'tools/list')).result).toHaveProperty('tools');
    const errors = s.lines.slice(before).filter((line) => line.includes('"error"'));
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it.sequential('never echoes a 20,000-character input whole, in an error of any kind', async () => {
    const { s } = await onRaw();
    const long = (c: string) => c.repeat(20_000);
    const calls: [string, unknown][] = [
      ['tools/call', { name: 'call_operation', arguments: { path: `/${long('a')}` } }],
      ['tools/call', { name: 'call_operation', arguments: { path: '/apps', params: { [long('p')]: long('v') } } }],
      ['tools/call', { name: 'call_operation', arguments: { operationId: long('o') } }],
      ['tools/call', { name: 'list_objects', arguments: { resource: long('r') } }],
      ['tools/call', { name: 'list_objects', arguments: { resource: 'apps', cursor: long('c') } }],
      ['tools/call', { name: 'list_objects', arguments: { resource: 'environments', app: `ap-${long('x')}` } }],
      ['tools/call', { name: 'list_objects', arguments: { resource: 'apps', [long('k')]: 1 } }],
      ['tools/call', { name: 'get_objects', arguments: { resource: 'apps', ids: [long('i')] } }],
      ['tools/call', { name: 'get_objects', arguments: { resource: 'teams', ids: [long('t')] } }],
      ['tools/call', { name: 'wait_for', arguments: { resource: 'apps', ids: ['ap-1a2b3c4d5e'], for: [long('f')] } }],
      ['tools/call', { name: 'wait_for', arguments: { resource: 'apps', ids: ['ap-1a2b3c4d5e'], for: ['status=x'], deadline: long('d') } }],
      ['tools/call', { name: long('n'), arguments: {} }],
      [long('m'), {}],
    ];
    let id = 1;
    for (const [method, params] of calls) {
      const answer = await s.request(id++, method, params);
      const text = (answer.result?.content as { text: string }[] | undefined)?.[0]?.text;
      const failed = text === undefined ? undefined : (JSON.parse(text) as { error?: Record<string, unknown> }).error;
      const said = answer.error ? [answer.error.message] : Object.values(failed ?? {}).map(String);
      for (const text of said) expect(text.length, `${method.slice(0, 20)} ${JSON.stringify(params).slice(0, 80)}: ${text.slice(0, 300)}`).toBeLessThan(600);
    }
  });
});

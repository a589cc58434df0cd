// The same question through every face of hostctl, and the requests each sends, recorded
// at the server: a table of questions × faces × servers (test/e2e/faces.test.ts). A face
// is one way to ask (the CLI's command, the MCP server's tool, the library's method); a new face is one more
// entry of FACES with an `ask` for each kind of question, and the table takes it as a
// column. Every face asks from a fresh config and state of its own, so that nothing one
// face kept (a reference copy, a budget) saves another a request.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Library from '../../src/lib/index.js';
import { ROOT, runCli } from './cli.js';
import { connectMcp, type McpSession } from './mcp.js';
import { startSandboxHere } from './sandbox-here.js';
import { sandboxAdmin } from './cli.js';
import { startAltServer } from './alt-server.js';

/** One question in the words every face understands. */
export type Question =
  | { kind: 'list'; resource: string; filter: { flag: string; id: string } }
  | { kind: 'get'; resource: string; ids: string[] }
  | { kind: 'wait'; resource: string; ids: string[]; for: string[] }
  | { kind: 'operation'; operationId: string; params: Record<string, string> }
  | { kind: 'status'; app: string };

/** A request as the server saw it. */
export interface Seen {
  method: string;
  path: string;
  query: string;
}

/** A loopback server hostctl is pointed at, with its request log. */
export interface ServerUnderTest {
  name: string;
  baseUrl: string;
  token: string;
  requests(): Promise<Seen[]>;
  clear(): Promise<void>;
  /** Objects of a collection, read past hostctl (for choosing what to ask). */
  objects(resource: string): Promise<Record<string, unknown>[]>;
  /** The name the server's reference gives the operation listing one environment's deployments, and its path parameter. */
  deploymentsOperation: { operationId: string; parameter: string };
  stop(): Promise<void>;
}

/** One way to ask hostctl a question. */
export interface Face {
  name: string;
  /** The kinds of question it asks; absent: every kind. */
  asks?: readonly Question['kind'][];
  /** Asks, and resolves once the answer (or failure) is in; the requests are the server's to tell. */
  ask(server: ServerUnderTest, q: Question): Promise<unknown>;
  close(): Promise<void>;
}

/** A config, state and cache of its own, for one face on one server. */
function freshEnv(server: ServerUnderTest, dirs: string[]): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-face-'));
  dirs.push(dir);
  return { HOME: dir, HOSTCTL_CONFIG_DIR: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_STATE_HOME: join(dir, 'state'), HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token };
}

/** The hostctl command line that asks `q`. */
function cliArgs(q: Question): string[] {
  switch (q.kind) {
    case 'list':
      return [q.resource, 'list', `--${q.filter.flag}`, q.filter.id, '--json'];
    case 'get':
      return [q.resource, 'get', ...q.ids, '--json'];
    case 'wait':
      return [q.resource, 'wait', ...q.ids, ...q.for.flatMap((c) => ['--for', c]), '--json'];
    case 'operation':
      return ['api', q.operationId, ...Object.entries(q.params).flatMap(([k, v]) => ['-f', `${k}=${v}`])];
    case 'status':
      return ['status', q.app, '--json'];
  }
}

/** The MCP tool call that asks `q`. */
function mcpCall(q: Question): { name: string; arguments: Record<string, unknown> } {
  switch (q.kind) {
    case 'list':
      return { name: 'list_objects', arguments: { resource: q.resource, [q.filter.flag]: q.filter.id } };
    case 'get':
      return { name: 'get_objects', arguments: { resource: q.resource, ids: q.ids } };
    case 'wait':
      return { name: 'wait_for', arguments: { resource: q.resource, ids: q.ids, for: q.for } };
    case 'operation':
      return { name: 'call_operation', arguments: { operationId: q.operationId, params: q.params } };
    case 'status':
      return { name: 'app_status', arguments: { app: q.app } };
  }
}

/** `hostctl …` as a process, one per question. */
function cliFace(): Face {
  const dirs: string[] = [];
  return {
    name: 'cli',
    async ask(server, q) {
      const r = await runCli(cliArgs(q), { env: freshEnv(server, dirs) });
      if (r.code !== 0) throw new Error(`hostctl ${cliArgs(q).join(' ')} exited ${r.code}: ${r.stderr}`);
      return JSON.parse(r.stdout) as unknown;
    },
    async close() {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** `hostctl mcp` under the SDK's client, a server of its own per question. */
function mcpFace(): Face {
  const dirs: string[] = [];
  const sessions: McpSession[] = [];
  return {
    name: 'mcp',
    async ask(server, q) {
      const s = await connectMcp(freshEnv(server, dirs));
      sessions.push(s);
      const r = (await s.client.callTool(mcpCall(q))) as { isError?: boolean; content: { text: string }[] };
      if (r.isError) throw new Error(`${mcpCall(q).name} failed: ${r.content[0]?.text ?? ''}`);
      return JSON.parse(r.content[0]?.text ?? 'null') as unknown;
    },
    async close() {
      for (const s of sessions.splice(0)) await s.close();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/**
 * The built library (dist/lib, as `import { createClient } from 'hostctl'`), a client of
 * its own per question. It asks no operation by name: its request() takes a path.
 */
function libraryFace(): Face {
  const dirs: string[] = [];
  const load = import(pathToFileURL(join(ROOT, 'dist', 'lib', 'index.js')).href) as Promise<typeof Library>;
  return {
    name: 'library',
    asks: ['list', 'get', 'wait', 'status'],
    async ask(server, q) {
      const { createClient } = await load;
      const client = await createClient({ env: freshEnv(server, dirs) });
      try {
        switch (q.kind) {
          case 'list': {
            const out: unknown[] = [];
            for await (const o of client.list(q.resource as Library.ResourceName, { [q.filter.flag]: q.filter.id })) out.push(o);
            return out;
          }
          case 'get':
            return await client.getMany(q.resource as Library.ResourceName, q.ids);
          case 'wait':
            return await client.wait(q.resource as Library.ResourceName, q.ids, { for: q.for });
          case 'status':
            return await client.status(q.app);
          case 'operation':
            throw new Error('the library asks no operation by name');
        }
      } finally {
        await client.close();
      }
    },
    async close() {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** The faces, in the table's column order. */
export const FACES: readonly (() => Face)[] = [cliFace, mcpFace, libraryFace];

/** The sandbox, in this worker; its rate limit out of the way. */
export async function sandboxUnderTest(): Promise<ServerUnderTest> {
  const sandbox = await startSandboxHere({ rateLimit: 100_000 });
  const admin = sandboxAdmin(sandbox);
  return {
    name: 'sandbox',
    baseUrl: sandbox.baseUrl,
    token: sandbox.token,
    requests: async () => (await admin.requests()).map(({ method, path, query }) => ({ method, path, query })),
    clear: () => admin.clearRequests(),
    async objects(resource) {
      const res = await fetch(`${sandbox.baseUrl}/${resource}?itemsPerPage=100`, { headers: { authorization: `Bearer ${sandbox.token}`, accept: 'application/json' } });
      return (await res.json()) as Record<string, unknown>[];
    },
    deploymentsOperation: { operationId: 'listEnvironmentDeployments', parameter: 'id' },
    stop: () => sandbox.stop(),
  };
}

/** The independent test server (alt-server.ts), with its OpenAPI reference. */
export async function altUnderTest(): Promise<ServerUnderTest> {
  const alt = await startAltServer({ limit: 100_000, reference: 'openapi' });
  return {
    name: 'alt',
    baseUrl: alt.baseUrl,
    token: alt.token,
    requests: async () => alt.requests.map(({ method, path, query }) => ({ method, path, query })),
    clear: async () => alt.clearRequests(),
    objects: async (resource) => alt.objects(resource).map((o) => ({ ...o })),
    deploymentsOperation: { operationId: 'deploymentsOfEnvironment', parameter: 'environment_id' },
    stop: () => alt.close(),
  };
}

/** The requests as one line each, in order: what the table compares. */
export function requestLines(seen: readonly Seen[]): string[] {
  return seen.map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`);
}

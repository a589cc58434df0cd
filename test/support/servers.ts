// One face for the two platform servers the suite runs against: our sandbox (spawned as
// `hostctl sandbox`, a child process, or in-process: inproc.ts) and the independent alt server (in-process),
// which follows the platform document but chooses differently where it is silent.

import { createServer } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import type { Sandbox } from './cli.js';
import { startAltServer, toJsonText } from './alt-server.js';

export interface LoggedRequest {
  method: string;
  path: string;
  query: string;
}

export interface PlatformServer {
  readonly name: 'sandbox' | 'alt';
  readonly baseUrl: string;
  readonly token: string;
  /** Requests to /v1 the server received since the last clear. */
  requests(): Promise<LoggedRequest[]>;
  clearRequests(): Promise<void>;
  /** Inserts objects as given (publicId included); RawJson values keep their exact text. */
  plant(resource: string, objects: Record<string, unknown>[]): Promise<void>;
  /** Every object of a collection, read straight from the server (not through hostctl). */
  all(resource: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

function splitPathQuery(pathAndQuery: string): { path: string; query: string } {
  const i = pathAndQuery.indexOf('?');
  return i === -1 ? { path: pathAndQuery, query: '' } : { path: pathAndQuery.slice(0, i), query: pathAndQuery.slice(i + 1) };
}

function asRecords(v: unknown): Record<string, unknown>[] {
  if (!Array.isArray(v)) throw new Error(`expected an array, got ${JSON.stringify(v).slice(0, 200)}`);
  return v as Record<string, unknown>[];
}

/** A started sandbox (a child process, or in-process: see inproc.ts) as a PlatformServer. */
export function platformOf(sb: Pick<Sandbox, 'baseUrl' | 'token' | 'origin' | 'stop'>): PlatformServer {
  const admin = (path: string, init?: RequestInit) => fetch(`${sb.origin}/_sandbox${path}`, init);
  return {
    name: 'sandbox',
    baseUrl: sb.baseUrl,
    token: sb.token,
    async requests() {
      const res = await admin('/requests');
      return asRecords(await res.json()).map((r) => {
        const { path, query } = splitPathQuery(String(r.path));
        return { method: String(r.method), path, query: typeof r.query === 'string' ? r.query : query };
      });
    },
    async clearRequests() {
      await admin('/requests', { method: 'DELETE' });
    },
    async plant(resource, objects) {
      const res = await admin(`/objects/${resource}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: toJsonText(objects),
      });
      if (!res.ok) throw new Error(`planting ${resource} failed: ${res.status} ${await res.text()}`);
    },
    async all(resource) {
      // The JSON-LD form says how many there are; one page with a large page size is enough.
      const out: Record<string, unknown>[] = [];
      for (let page = 1; page < 1000; page++) {
        const res = await fetch(`${sb.baseUrl}/${resource}?page=${page}`, {
          headers: { accept: 'application/json', authorization: `Bearer ${sb.token}` },
        });
        const items = asRecords(await res.json());
        if (items.length === 0) break;
        out.push(...items);
      }
      return out;
    },
    stop: () => sb.stop(),
  };
}

export async function startAlt(options: Parameters<typeof startAltServer>[0] = {}): Promise<PlatformServer & { alt: Awaited<ReturnType<typeof startAltServer>> }> {
  const alt = await startAltServer(options);
  return {
    name: 'alt',
    alt,
    baseUrl: alt.baseUrl,
    token: alt.token,
    async requests() {
      return alt.requests.map((r: { method: string; path: string; query: string }) => ({ method: r.method, path: r.path, query: r.query }));
    },
    async clearRequests() {
      alt.clearRequests();
    },
    async plant(resource, objects) {
      alt.addObjects(resource, objects);
    },
    async all(resource) {
      const out: Record<string, unknown>[] = [];
      let next: string | undefined = `${alt.baseUrl}/${resource}`;
      while (next) {
        const res: Response = await fetch(next, { headers: { accept: 'application/json', authorization: `Bearer ${alt.token}` } });
        const body: unknown = await res.json();
        const items = Array.isArray(body) ? body : (body as { member: unknown[] }).member;
        out.push(...asRecords(items));
        const link = res.headers.get('link');
        const m = link ? /<([^>]+)>;\s*rel="?next"?/.exec(link) : null;
        const envNext = !Array.isArray(body) ? (body as { view?: { next?: string } }).view?.next : undefined;
        next = m?.[1] ? new URL(m[1], next).href : envNext ? new URL(envNext, next).href : undefined;
      }
      return out;
    },
    stop: () => alt.close(),
  };
}

export interface Listening {
  /** http://127.0.0.1:PORT (https:// for a TLS server) */
  origin: string;
  /** origin + /v1 */
  baseUrl: string;
  port: number;
  /** Stops listening and ends the connections still open (keep-alive ones included). */
  close(): Promise<void>;
}

/** Starts `server` on a free loopback port. For the test servers that misbehave on purpose. */
export async function listenLoopback(server: NetServer, scheme: 'http' | 'https' = 'http'): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `${scheme}://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A port free on 127.0.0.1 now (the OS's choice), for a server a test starts by port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

// Small loopback stub servers and a client wired to a temp state file and in-memory IO,
// for the unit tests of src/http/.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStream } from '../support/memory-stream.js';
import { afterEach, vi } from 'vitest';
import { IO } from '../../src/io.js';
import { StateStore } from '../../src/config/state.js';
import { makeToken } from '../../src/auth/token.js';
import { HttpClient, type HttpClientOptions } from '../../src/http/client.js';
import { compose, type Answer, type Exchange, type Layer } from '../../src/http/layers.js';
import { listenLoopback, type Listening } from '../support/servers.js';

export { closedPort } from '../support/servers.js';

export const TOKEN = 'hct_unit_TEST_secret_token_9f3a2b7c';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Stub extends Listening {
  seen: Seen[];
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen, n: number) => void;

/** An answer for a stub `next` (drive). */
export const answer = (status: number, headers: Record<string, string> = {}, text = ''): Answer => ({ status, headers, text });

/** A layer over a stub `next`: answers from the script (the last one repeats), records every exchange. */
export function drive(layer: Layer, script: Answer[]) {
  const seen: Exchange[] = [];
  const send = compose([layer], async (x) => {
    seen.push(x);
    return script[Math.min(seen.length - 1, script.length - 1)]!;
  });
  return { send, seen };
}

/** `configure` sets the server up before it listens (its keep-alive time, say). */
export async function stub(handler: Handler, configure?: (server: Server) => void): Promise<Stub> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      try {
        handler(req, res, entry, seen.length);
      } catch (err) {
        res.statusCode = 599;
        res.end(String(err));
      }
    });
  });
  configure?.(server);
  return { ...(await listenLoopback(server)), seen };
}

export function json(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string | number> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export { MemoryStream };

export interface Harness {
  client: HttpClient;
  state: StateStore;
  stderr: MemoryStream;
  io: IO;
  statePath: string;
  fingerprint: string;
  done(): Promise<void>;
}

const dirs: string[] = [];

export function newState(): { state: StateStore; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-http-'));
  dirs.push(dir);
  const path = join(dir, 'state.json');
  return { state: new StateStore(path), path };
}

export function cleanupDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function harness(baseUrl: string, over: Partial<HttpClientOptions> = {}, state?: { state: StateStore; path: string }): Harness {
  const s = state ?? newState();
  const stderr = new MemoryStream();
  const stdout = new MemoryStream();
  const io = new IO({ stdout, stderr, env: {} });
  const token = over.token ?? makeToken(TOKEN, 'env');
  const client = new HttpClient({
    baseUrl: new URL(baseUrl),
    token,
    userAgent: 'hostctl/test',
    timeoutMs: 5_000,
    maxWaitMs: 120_000,
    wait: true,
    verbose: false,
    state: s.state,
    io,
    ...over,
  });
  return { client, state: s.state, stderr, io, statePath: s.path, fingerprint: token.fingerprint, done: () => client.close() };
}

/**
 * A `track` for a test file: what it is given (stub servers, clients) is closed after
 * each test.
 */
export function closeAfterEach(): <T extends { close(): Promise<void> } | Harness>(x: T) => T {
  const open: Array<{ close(): Promise<void> } | Harness> = [];
  afterEach(async () => {
    for (const x of open.splice(0)) await ('close' in x ? x.close() : x.done());
  });
  return (x) => {
    open.push(x);
    return x;
  };
}

/** The promise's rejection, or a failure when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    if (err instanceof Error) return err;
    throw new Error(`rejected with a non-Error: ${String(err)}`);
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/**
 * Runs `body` with the timers of the client (its own, undici's) on a fake clock: no
 * timeout fires until the test moves it, once the exchange is where the test wants it.
 */
export async function onFakeTimers<T>(body: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  try {
    return await body();
  } finally {
    vi.useRealTimers();
  }
}

export interface LoopbackProxy {
  port: number;
  /** http://127.0.0.1:PORT */
  url: string;
  /** Each CONNECT received, in order (its url is the host:port asked for). */
  connects: IncomingMessage[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy on loopback that records each CONNECT and answers it as `onConnect` does;
 * `tunnelTo(port)` makes an `onConnect` that opens the tunnel to that loopback port,
 * whatever host was asked for (the tests' remote hosts are names under .invalid).
 */
export async function loopbackProxy(onConnect: (socket: Socket) => void): Promise<LoopbackProxy> {
  const connects: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  const proxy = createServer();
  proxy.on('connect', (req: IncomingMessage, socket: Socket) => {
    connects.push(req);
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnect(socket);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connects,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

export function tunnelTo(port: number): (socket: Socket) => void {
  return (socket) => {
    const upstream = connect(port, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  };
}

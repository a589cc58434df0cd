// `hostctl mcp --http`: the same MCP server (stdio-server.ts's mcpServer, the same Tools)
// over the SDK's Streamable HTTP transport, on Node's own http/https. Built into a chunk of
// its own (scripts/build.mjs SEPARATE), like stdio-server.ts, and for the same reason it
// imports nothing of hostctl but types: run.ts gives it the tools, the key and the errors
// to throw.
//
// Every request is checked before its body is read, in this order: the path, the Host and
// Origin (DNS rebinding: a page in a browser must not reach a loopback server through a
// name it controls), the key. A request that fails a check costs a status line and a
// closed connection, and reaches neither the tools nor the budget.

import { createHash, randomUUID, timingSafeEqual, X509Certificate } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { GONE, mcpServer, type ServerOptions } from './stdio-server.js';

export interface HttpServeOptions extends ServerOptions {
  host: string;
  port: number;
  /** Whether `host` is a loopback address (then only loopback names are accepted as Host). */
  loopback: boolean;
  /** The clients' key: every request carries it as `Authorization: Bearer`. */
  key: string;
  /** PEM texts: HTTPS, and the certificate's names are the Host check's. */
  tls?: { cert: string; key: string };
  /** The error for a setting that cannot work (exit 2). */
  usage(message: string, hint: string): Error;
  /** The error for a server that could not start. */
  failure(message: string, hint: string): Error;
}

export interface HttpServing {
  url: string;
  /** Closes every session and the listener. */
  close(): Promise<void>;
}

const PATH = '/mcp';
/** Sessions kept at once; a new one past this takes the place of the one idle longest. */
const MAX_SESSIONS = 64;
/** Largest request body; a tool call's arguments are a few hundred bytes. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Connections open at once, whatever clients do. */
const MAX_CONNECTIONS = 512;
/** A client has this long for its headers, and for its whole request. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

interface Session {
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
  /** Requests under way (a standalone GET stream is not one: it is open for as long as the client likes). */
  busy: number;
  /** When it was last used, by a counter: the lowest is the one idle longest. */
  used: number;
}

/** A Host header's or URL's host name as URL writes it (lower case, IPv6 in brackets), or undefined. */
function hostName(hostAndPort: string): string | undefined {
  if (!/^[\w.\-[\]:]+$/.test(hostAndPort)) return undefined;
  try {
    return new URL(`http://${hostAndPort}`).hostname;
  } catch {
    return undefined;
  }
}

/** The certificate's subjectAltName names (DNS and IP entries) as Host names. */
function certNames(o: HttpServeOptions, pem: string): string[] {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    throw o.usage('The --tls-cert file is not a PEM certificate.', 'Give the server certificate in PEM form (-----BEGIN CERTIFICATE-----).');
  }
  const names: string[] = [];
  for (const entry of (cert.subjectAltName ?? '').split(/,\s*/)) {
    const dns = /^DNS:(.+)$/.exec(entry)?.[1];
    const ip = /^IP Address:(.+)$/.exec(entry)?.[1];
    const name = dns !== undefined ? hostName(dns) : ip !== undefined ? hostName(ip.includes(':') ? `[${ip}]` : ip) : undefined;
    if (name !== undefined) names.push(name);
  }
  if (names.length === 0) throw o.usage('The --tls-cert certificate names no host (no subjectAltName DNS or IP entry).', 'Make the certificate with the names clients reach this server by (subjectAltName).');
  return names;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Answers with a status and nothing more, and ends the connection: nothing of it is kept. */
function refuse(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, Connection: 'close', 'Content-Length': '0' });
  res.end();
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** The request's body, or undefined (answered 413) past MAX_BODY_BYTES. */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.pause();
        refuse(res, 413);
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Serves until close(). */
export async function serveHttp(o: HttpServeOptions): Promise<HttpServing> {
  const names = new Set(o.loopback || o.tls === undefined ? LOOPBACK_NAMES : certNames(o, o.tls.cert));
  const keyDigest = digest(o.key);
  const sessions = new Map<string, Session>();
  let ticks = 0;

  const hostAllowed = (req: IncomingMessage): boolean => {
    const host = req.headers.host;
    const name = host === undefined ? undefined : hostName(host);
    if (name === undefined || !names.has(name)) return false;
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    return (url.protocol === 'http:' || url.protocol === 'https:') && names.has(url.hostname);
  };

  const keyGiven = (req: IncomingMessage): boolean => {
    const given = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1];
    // Digests, so that the comparison takes as long whatever the length of what was sent.
    return given !== undefined && timingSafeEqual(digest(given), keyDigest);
  };

  /** Room for one more session: the one idle longest goes; undefined when every one is busy. */
  const room = async (): Promise<boolean> => {
    if (sessions.size < MAX_SESSIONS) return true;
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) if (entry[1].busy === 0 && (oldest === undefined || entry[1].used < oldest[1].used)) oldest = entry;
    if (oldest === undefined) return false;
    sessions.delete(oldest[0]);
    await oldest[1].close();
    return true;
  };

  const newSession = async (): Promise<Session> => {
    const server = mcpServer(o);
    const session: Session = {
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, session),
        onsessionclosed: (id) => void sessions.delete(id),
        maxRequestBodySize: MAX_BODY_BYTES,
      }),
      close: () => server.close(),
      busy: 0,
      used: ++ticks,
    };
    session.transport.onclose = () => {
      const id = session.transport.sessionId;
      if (id !== undefined) sessions.delete(id);
    };
    await server.connect(session.transport);
    return session;
  };

  /** Hands the request to the session's transport; a client that goes away aborts its calls. */
  const handle = async (session: Session, req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> => {
    const gone = new AbortController();
    const counts = req.method !== 'GET';
    session.used = ++ticks;
    if (counts) session.busy++;
    res.on('close', () => {
      if (counts) session.busy--;
      if (!res.writableFinished) gone.abort();
    });
    // The SDK passes a request's authInfo to the tool handler (stdio-server.ts's GONE); no key or token is in it.
    Object.assign(req, { auth: { token: '', clientId: 'hostctl-http', scopes: [], extra: { [GONE]: gone.signal } } });
    await session.transport.handleRequest(req, res, body);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== PATH) return refuse(res, 404);
    if (!hostAllowed(req)) return refuse(res, 403);
    if (!keyGiven(req)) return refuse(res, 401, { 'WWW-Authenticate': 'Bearer' });
    const header = req.headers['mcp-session-id'];
    const sessionId = typeof header === 'string' ? header : undefined;
    const known = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && known === undefined) return rpcError(res, 404, -32001, 'Session not found: start a new one with initialize.');
    if (req.method === 'POST') {
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > MAX_BODY_BYTES) return refuse(res, 413);
      const raw = await readBody(req, res);
      if (raw === undefined) return;
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return rpcError(res, 400, -32700, 'Parse error: the body must be a JSON-RPC message.');
      }
      if (known !== undefined) return handle(known, req, res, body);
      const initialize = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
      if (!initialize) return rpcError(res, 400, -32000, 'Bad request: no session ID; start with initialize.');
      if (!(await room())) return refuse(res, 503, { 'Retry-After': '5' });
      return handle(await newSession(), req, res, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (known === undefined) return rpcError(res, 400, -32000, 'Bad request: no session ID.');
      return handle(known, req, res);
    }
    return refuse(res, 405, { Allow: 'GET, POST, DELETE' });
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    route(req, res).catch((err: unknown) => {
      o.log(`hostctl: mcp: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error.');
      else res.destroy();
    });
  };
  let server: HttpServer;
  try {
    // Timeouts are checked this often (Node's default, 30 s, would let a slow client hold
    // its connection three times HEADERS_TIMEOUT_MS).
    const limits = { connectionsCheckingInterval: 1000, headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS };
    server = o.tls === undefined ? createHttpServer(limits, listener) : createHttpsServer({ ...limits, cert: o.tls.cert, key: o.tls.key }, listener);
  } catch {
    throw o.usage('The --tls-key does not go with the --tls-cert, or is not a PEM private key.', 'Give the certificate and its own private key, both in PEM form.');
  }
  server.maxConnections = MAX_CONNECTIONS;

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(o.failure(`Could not listen on ${o.host}:${o.port} (${err.code ?? err.message}).`, 'Pick another --listen address or port (port 0 takes a free one).')),
    );
    server.listen(o.port, o.host, () => resolve());
  });
  server.on('error', (err) => o.log(`hostctl: mcp: ${err.message}`));
  const { address, port } = server.address() as AddressInfo;
  const wildcard = address === '0.0.0.0' || address === '::';
  const shown = wildcard ? ([...names][0] ?? address) : address.includes(':') ? `[${address}]` : address;
  return {
    url: `${o.tls === undefined ? 'http' : 'https'}://${shown}:${port}${PATH}`,
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => s.close().catch(() => undefined)));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

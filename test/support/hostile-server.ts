// A loopback HTTP server that misbehaves on purpose, for the e2e tests of faults and token
// safety: it records every connection and request (headers included), and answers with
// whatever a behaviour does, from a clean JSON page to a reset connection or 50 MB of junk.
// It also serves as a stand-in HTTP proxy: a CONNECT or absolute-form request is recorded
// like any other, so a test can prove that nothing was sent.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import { expect } from 'vitest';
import type { RunResult } from './cli.js';
import { listenLoopback } from './servers.js';

export { closedPort } from './servers.js';

export interface SeenRequest {
  method: string;
  /** As sent on the request line: a path, or an absolute URL / host:port when used as a proxy. */
  url: string;
  headers: IncomingMessage['headers'];
}

export interface HostileServer {
  /** http://127.0.0.1:PORT (https:// when started with a certificate) */
  origin: string;
  /** origin + /v1 */
  baseUrl: string;
  port: number;
  seen: SeenRequest[];
  /** TCP connections accepted, whether or not a request followed. */
  connections(): number;
  close(): Promise<void>;
}

export type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

/** With `tls`, an HTTPS server with that certificate and key (PEM). */
export async function startHostile(behaviour: Behaviour, tls?: { cert: string; key: string }): Promise<HostileServer> {
  const seen: SeenRequest[] = [];
  let connections = 0;
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    // The client may hang up first (that is often the point); the server must not crash.
    res.on('error', () => undefined);
    req.resume();
    behaviour(req, res);
  };
  const server = tls ? createTlsServer(tls, handle) : createServer(handle);
  // A client that refuses the certificate ends the handshake; that is no failure here.
  server.on('tlsClientError', () => undefined);
  server.on('connection', (s: Socket) => {
    connections++;
    s.on('error', () => undefined);
  });
  // As a proxy: refuse every tunnel, but record that it was asked for.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    seen.push({ method: req.method ?? 'CONNECT', url: req.url ?? '', headers: req.headers });
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  return { ...(await listenLoopback(server, tls ? 'https' : 'http')), seen, connections: () => connections };
}


const APPS = JSON.stringify([{ publicId: 'ap-hostile001', name: 'fine' }]);

/** The behaviours the fault tests use, each named for what it does to the client. */
export const behaviours = {
  /** A healthy answer, for controls: one app. */
  ok: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(APPS);
  }) satisfies Behaviour,

  /** Accepts the request and never answers. */
  neverAnswers: (() => undefined) satisfies Behaviour,

  /** Sends the headers and part of the body, then resets the connection (TCP RST). */
  resetMidResponse: ((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
    res.write('[{"publicId":"ap-hostile001","name":"cut', () => req.socket.resetAndDestroy());
  }) satisfies Behaviour,

  /** What a load balancer sends when the API behind it is down. */
  html502: ((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body><h1>Bad Gateway</h1><script>alert(1)</script></body></html>\n');
  }) satisfies Behaviour,

  /** A complete HTTP response whose JSON stops part-way. */
  truncatedJson: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[{"publicId":"ap-hostile001","name":"fine"},{"publicId":"ap-host');
  }) satisfies Behaviour,

  invalidJson: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end("{'publicId': undefined, name: NaN}");
  }) satisfies Behaviour,

  empty200: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '0' });
    res.end();
  }) satisfies Behaviour,

  /** A 200 whose body is JSON but whose content type says otherwise (a captive portal, a misrouted proxy). */
  wrongContentType: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(APPS);
  }) satisfies Behaviour,

  /** Echoes the Authorization header it received in a response header and in an error body. */
  echoesToken: ((req, res) => {
    const auth = req.headers.authorization ?? '';
    res.writeHead(500, { 'content-type': 'application/problem+json', 'x-echo-authorization': auth });
    res.end(JSON.stringify({ title: 'Internal error', detail: `could not use ${auth}` }));
  }) satisfies Behaviour,
};

/** Streams `bytes` of JSON-ish whitespace with no Content-Length (chunked), as fast as the client reads. */
export function huge(bytes: number): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let written = 0;
    const pump = (): void => {
      while (written < bytes) {
        written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end('[]');
    };
    res.on('close', () => {
      written = bytes;
    });
    pump();
  };
}

/** Redirects every request to `target` + the same path and query. */
export function redirectTo(target: string, status = 302): Behaviour {
  return (req, res) => {
    res.writeHead(status, { location: `${target}${req.url ?? '/'}`, 'content-length': '0' });
    res.end();
  };
}

/** Proxy variables a developer's shell may carry; the fault tests decide them themselves. */
export const NO_PROXY_ENV: Record<string, undefined> = {
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
  ALL_PROXY: undefined,
  all_proxy: undefined,
};

/**
 * What every failure must look like (the contract's "Exit codes" and "Error messages"):
 * the exit code, nothing on stdout, and on stderr one line "hostctl: " + one or two
 * sentences, at most one hint line after it, no stack trace, no control character, and
 * never the token.
 */
export function expectCleanFailure(r: RunResult, code: number, token: string): void {
  const context = `exit ${r.code}\nstderr: ${r.stderr}`;
  expect(r.code, context).toBe(code);
  expect(r.stdout, context).toBe('');
  expect(r.stderr, context).not.toContain(token);
  expect(r.stderr, context).not.toMatch(/^\s+at /m);
  expect(r.stderr, context).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines.length, context).toBeGreaterThanOrEqual(1);
  expect(lines.length, context).toBeLessThanOrEqual(2);
  const message = lines[0] ?? '';
  expect(message, context).toMatch(/^hostctl: \S/);
  const sentences = message.match(/[.!?](?=\s|$)/g) ?? [];
  expect(sentences.length, context).toBeGreaterThanOrEqual(1);
  expect(sentences.length, context).toBeLessThanOrEqual(2);
}

/** Answers every request with this status, headers and body; `body` may use the request. */
export function answer(status: number, headers: Record<string, string | ((req: IncomingMessage) => string)>, body: string | ((req: IncomingMessage) => string)): Behaviour {
  return (req, res) => {
    const resolved: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) resolved[k] = typeof v === 'function' ? v(req) : v;
    res.writeHead(status, resolved);
    res.end(typeof body === 'function' ? body(req) : body);
  };
}

/** The bearer token a request carried ('' without one). */
export function bearer(req: IncomingMessage): string {
  return (req.headers.authorization ?? '').replace(/^Bearer /, '');
}

/** `text` with every character written as a JSON \u escape: the same string, another spelling. */
export function jsonEscaped(text: string): string {
  return [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
}

/** Answers the first request with `first`, every later one with `rest`. */
export function firstThen(first: Behaviour, rest: Behaviour): Behaviour {
  let n = 0;
  return (req, res) => (n++ === 0 ? first : rest)(req, res);
}

// The HTTP server: one request goes to the admin endpoints or the API, is answered, logged
// on stderr (never with the token) and, for the API, kept in the request log.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { handleAdmin } from './admin.js';
import { handleApi } from './platform-api.js';
import { SandboxCore, type SandboxSettings } from './core.js';
import { clientIp, send, splitTarget, withEtag } from './http-plumbing.js';
import { StateFileError } from './state-file.js';
import { isLoopbackHost } from '../config/url.js';
import { CONTROL_CHARS } from '../output/sanitize.js';

export interface SandboxOptions extends SandboxSettings {
  host: string;
  port: number;
}

export const DEFAULTS: SandboxOptions = {
  host: '127.0.0.1',
  port: 0,
  rateLimit: 20,
  windowSeconds: 60,
  pageSize: 30,
  lockoutAfter: 10,
  lockoutSeconds: 600,
  seed: 1,
};

export interface RunningSandbox {
  /** The base URL, ending in /v1. */
  readonly url: string;
  /** scheme://host:port, for the /_sandbox endpoints. */
  readonly origin: string;
  /** The start token (named "sandbox"). */
  readonly token: string;
  /** Resolves when every connection is closed. */
  close(): Promise<void>;
}

/** What a log line is: `hostctl -q sandbox` keeps only warnings and errors. */
export type LogKind = 'request' | 'warning' | 'error';

/** A failure to start that the user can fix (port in use, bad state file): exit 1. */
export class SandboxStartError extends Error {}

export interface StartOptions extends Partial<SandboxOptions> {
  /** Where the one-line-per-request log, warnings and errors go; stderr by default. */
  log?: (line: string, kind: LogKind, err?: unknown) => void;
  /** The limiter's monotonic clock in ms; tests pass a virtual one. */
  clock?: () => number;
}

function urlHost(host: string): string {
  // Listening on every address: clients reach it on loopback.
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

const CONTROL = new RegExp(`[${CONTROL_CHARS}]`, 'g');

function printable(s: string): string {
  return s.replace(CONTROL, '?');
}

export async function startSandboxServer(options: StartOptions = {}): Promise<RunningSandbox> {
  const { log: logOption, clock = () => performance.now(), ...given } = options;
  const settings: SandboxOptions = { ...DEFAULTS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) };
  const log = logOption ?? ((line: string) => process.stderr.write(`${line}\n`));
  let core: SandboxCore;
  try {
    core = new SandboxCore(settings, clock);
  } catch (err) {
    if (err instanceof StateFileError) throw new SandboxStartError(err.message);
    throw err;
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = req.url ?? '/';
    const { path, query } = splitTarget(target);
    const method = req.method ?? 'GET';
    if (path === '/_sandbox' || path.startsWith('/_sandbox/')) {
      const reply = await handleAdmin(core, req);
      send(res, reply);
      log(`${method} ${printable(target)} ${reply.status} (admin)`, 'request');
      return;
    }
    const handled = await handleApi(core, req);
    const { token, body } = handled;
    const reply = withEtag(req, handled.reply);
    send(res, reply);
    core.log.add({ method, path, query, status: reply.status, token, ip: clientIp(req), at: new Date().toISOString(), body });
    log(`${method} ${printable(target)} ${reply.status} ${token ?? '-'}`, 'request');
  };

  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`error: ${err instanceof Error ? err.message : String(err)}`, 'error', err);
      if (!res.headersSent) {
        send(res, {
          status: 500,
          contentType: 'application/problem+json',
          body: JSON.stringify({ type: '/v1/docs#error-server-error', title: 'Internal server error', status: 500, detail: 'The sandbox failed to answer this request; see its log.' }),
        });
      } else {
        res.destroy();
      }
    });
  });
  // A client that sends garbage gets a 400 from Node; it must not take the server down.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Too many or too long headers has its own status (RFC 6585), which says what to fix.
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const where = `${settings.host}:${settings.port}`;
      if (err.code === 'EADDRINUSE') reject(new SandboxStartError(`port ${settings.port} on ${settings.host} is already in use. Stop what runs there, or choose another port with --port (--port 0 picks a free one).`));
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') reject(new SandboxStartError(`cannot listen on ${where}: no such local address. Use --host 127.0.0.1.`));
      else if (err.code === 'EACCES') reject(new SandboxStartError(`no permission to listen on ${where}. Choose a port above 1023 with --port.`));
      else reject(err);
    };
    server.once('error', onError);
    server.listen(settings.port, settings.host, () => {
      server.off('error', onError);
      resolve();
    });
  });

  const { port } = server.address() as AddressInfo;
  const origin = `http://${urlHost(settings.host)}:${port}`;
  if (!isLoopbackHost(settings.host)) {
    log(
      `warning: the sandbox listens on ${settings.host}, where other machines can reach it; its API takes the tokens it prints, over plain http. ` +
        'Use --host 127.0.0.1 unless you mean to share it (the admin endpoints answer loopback clients only).',
      'warning',
    );
  }
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/v1`,
    origin,
    token: core.startToken,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests in flight get a moment to finish; then their connections go too.
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      });
      return closing;
    },
  };
}

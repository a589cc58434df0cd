// The wire: one exchange over undici (a keep-alive pool, loaded on the first request, so
// paths that send nothing never pay for it), its body read up to a cap, and every failure
// of the network mapped to a NetworkError (only here is it known whether it timed out,
// broke off mid-response or went through a proxy). The layers above decide what to send.

import type { Dispatcher } from 'undici';
import { ApiError, HostctlError } from '../errors.js';
import { networkError } from './failures.js';
import { cancelled, type Answer, type Exchange } from './layers.js';
import { boundedProxyAgent, proxyFor, ProxyGate, type ProxyChoice } from './proxy.js';

/** The most a response body may hold; past it the response is dropped. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Error and redirect bodies are only read for a one-line detail. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/**
 * How much sooner than a server's `Keep-Alive: timeout=N` hint an idle connection is given
 * up. undici's default, 2 s, drops every connection at once after an answer hinting
 * `timeout=2`, so a walk of 1,000 pages made 1,000 connections. The margin is for the
 * server's idle timer starting before ours (it starts when the server has sent the answer,
 * ours once it has arrived): one round trip plus queueing the next request, which 1 s
 * covers even on slow links. A request that still meets a closing socket is a dropped
 * connection, which the retry layer resends when it is a GET or HEAD.
 */
const KEEP_ALIVE_MARGIN_MS = 1_000;

type Undici = typeof import('undici');

let undiciModule: Promise<Undici> | undefined;
function loadUndici(): Promise<Undici> {
  // undici is CommonJS. Bundled with code splitting, esbuild gives its dynamic import a
  // chunk whose only export is `default`; unbundled (tests), Node gives named exports.
  return (undiciModule ??= import('undici').then((m: Undici | { default: Undici }) => ('Agent' in m ? m : m.default)));
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export interface WireOptions {
  timeoutMs: number;
  /** For the proxy variables. */
  env: NodeJS.ProcessEnv;
  /** Where the base URL came from, for messages (Context.baseUrlSource). */
  baseUrlFrom?: string;
}

export class Wire {
  /** Requests actually sent (each redirect hop and each resend counts). */
  sent = 0;
  private dispatcher?: Dispatcher;
  private proxyDispatcher?: Dispatcher;
  private proxyKey?: string;
  /** The turn in which undici gives the last answer's connection back to its pool (send()). */
  private returning?: Promise<unknown>;
  /** Tunnels through the proxy: one attempt per exchange (proxy.ts). */
  private readonly proxyGate = new ProxyGate();

  constructor(private readonly o: WireOptions) {}

  /**
   * Loads undici and makes the pool for a URL: direct, or through the proxy proxy.ts
   * chooses (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; never for loopback hosts, as in Go's
   * net/http and so gh: the sandbox on 127.0.0.1 must keep working in a shell that has a
   * corporate proxy set).
   */
  async ready(url: URL): Promise<{ undici: Undici; dispatcher: Dispatcher; proxy?: ProxyChoice }> {
    if (this.returning) {
      await this.returning;
      this.returning = undefined;
    }
    // Chosen before undici loads: a malformed variable is a usage error with nothing sent.
    const proxy = proxyFor(url, this.o.env);
    const undici = await loadUndici();
    const opts = {
      keepAliveTimeout: 10_000,
      keepAliveTimeoutThreshold: KEEP_ALIVE_MARGIN_MS,
      connect: { timeout: this.o.timeoutMs },
      headersTimeout: this.o.timeoutMs,
      bodyTimeout: this.o.timeoutMs,
    };
    if (!proxy) return { undici, dispatcher: (this.dispatcher ??= new undici.Agent(opts)) };
    if (this.proxyKey !== proxy.url.href) this.dropProxy();
    this.proxyKey = proxy.url.href;
    return { undici, dispatcher: (this.proxyDispatcher ??= boundedProxyAgent(undici, proxy, opts, this.proxyGate)), proxy };
  }

  /** Destroys the proxy's pool (what it holds may still be trying to connect): the next exchange makes a new one. */
  private dropProxy(): void {
    this.proxyDispatcher?.destroy(closedError()).catch(() => undefined);
    this.proxyDispatcher = undefined;
  }

  /**
   * One exchange, body read (capped). `keepErrorBody`: an error's body is read whole, as
   * a success's (`hostctl api` prints it).
   */
  async send(a: Exchange, keepErrorBody: boolean): Promise<Answer> {
    const { dispatcher, proxy } = await this.ready(a.url);
    // Cancelled while the pool was made: nothing goes out.
    if (a.signal?.aborted) throw cancelled();
    const controller = new AbortController();
    let timedOut = false;
    // undici does not abort a request still waiting for its tunnel (nodejs/undici#3897):
    // through a proxy, the timeout (or the caller's cancellation) ends the exchange itself,
    // and the proxy's pool with it.
    let expire: (err: Error) => void = () => undefined;
    const expired = new Promise<never>((_resolve, reject) => (expire = reject));
    expired.catch(() => undefined);
    const stop = (why: string) => {
      controller.abort();
      if (proxy) {
        expire(new Error(why));
        this.dropProxy();
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop('timed out');
    }, this.o.timeoutMs);
    const onAbort = () => stop('cancelled');
    a.signal?.addEventListener('abort', onAbort, { once: true });
    if (proxy) this.proxyGate.begin();
    let midResponse = false;
    try {
      this.sent++;
      // The dispatcher's own request(), undici's public API: the top-level request() is a
      // wrapper whose handling of its options changed in undici 8.
      const pending = dispatcher.request({
        origin: a.url.origin,
        path: a.url.pathname + a.url.search,
        method: a.method as Dispatcher.HttpMethod,
        headers: a.headers,
        body: a.body === undefined ? undefined : typeof a.body === 'string' ? a.body : Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength),
        signal: controller.signal,
      });
      if (proxy) pending.catch(() => undefined);
      const res = proxy ? await Promise.race([pending, expired]) : await pending;
      midResponse = true;
      const headers = flattenHeaders(res.headers);
      const ok = res.statusCode >= 200 && res.statusCode <= 299;
      const text = await readBody(res.body, a, headers, ok || keepErrorBody ? MAX_BODY_BYTES : MAX_ERROR_BODY_BYTES, ok || keepErrorBody);
      // undici hands a finished connection back to its pool one event-loop turn later
      // (setImmediate): a next request sent sooner, as a page walk sends it, would open a
      // second connection and the walk would alternate between two. The next request waits
      // for that turn in ready(), which the budget calls before it reserves a slot: a
      // reserved request goes out at once. One turn costs microseconds.
      this.returning = new Promise((resolve) => setImmediate(resolve));
      return { status: res.statusCode, headers, text };
    } catch (err) {
      if (err instanceof HostctlError) throw err;
      // Not a failure of the network: the retry layer must not resend it.
      if (a.signal?.aborted) throw cancelled();
      throw networkError(err, { url: a.url, timeoutMs: this.o.timeoutMs, timedOut, midResponse, proxy, baseUrlFrom: this.o.baseUrlFrom });
    } finally {
      clearTimeout(timer);
      a.signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    const pools = [this.dispatcher, this.proxyDispatcher];
    this.dispatcher = this.proxyDispatcher = undefined;
    // destroy, not close: nothing is in flight once a command ends, and idle keep-alive
    // sockets must not hold the process open.
    for (const d of pools) if (d) await d.destroy(closedError()).catch(() => undefined);
  }
}

/**
 * The reason given to undici for closing the pool. Node reads the stack of the error a
 * socket is destroyed with, and undici's own error would have one: V8 then computes the
 * line ends of the whole program bundle (about 2% of an `apps list --json`). Nothing is
 * in flight, so no one sees this error; it carries no stack frames.
 */
function closedError(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new Error('hostctl closed the connection pool.');
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Reads a body up to `cap` bytes. Past the cap a body we need whole is an error; an
 * error page is simply cut (only its first line of detail is used).
 */
async function readBody(body: Dispatcher.ResponseData['body'], a: Exchange, headers: Record<string, string>, cap: number, mustBeWhole: boolean): Promise<string> {
  const tooBig = () =>
    new ApiError(
      `The API sent more than ${Math.round(cap / 1024 / 1024)} MiB for ${a.method} ${a.url.pathname}${a.url.search}; hostctl stopped reading it.`,
      'Ask for less at a time (for example --limit, or a narrower query).',
    );
  const declared = Number(headers['content-length']);
  if (mustBeWhole && Number.isFinite(declared) && declared > cap) {
    body.destroy();
    throw tooBig();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (size + buf.length > cap) {
      if (mustBeWhole) {
        body.destroy();
        throw tooBig();
      }
      chunks.push(buf.subarray(0, cap - size));
      size = cap;
      body.destroy();
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

// The one HTTP core: every request hostctl makes goes through HttpClient.request(), over
// undici (a keep-alive pool; loaded on the first request, so paths that send nothing
// never pay for it). It adds the headers the platform wants, paces and waits on the rate
// limit, follows redirects safely, caps and decodes bodies, and maps every failure to a
// typed error. The token is only ever sent to the base URL's origin, and never shown.

import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { addSecret, type IO } from '../io.js';
import type { Token } from '../auth/token.js';
import { redact } from '../auth/token.js';
import type { StateStore } from '../config/state.js';
import { ApiError, HostctlError, UsageError } from '../errors.js';
import { isLoopbackHost } from '../context.js';
import { systemClock, type Clock } from '../runtime.js';
import { MAX_HORIZON_MS, RateLimiter, retryDelayMs } from './ratelimit.js';
import { BudgetFile, budgetLeft, type BudgetData } from './budget.js';
import { compose, type Answer, type Exchange, type Layer } from './layers.js';
import { DEFAULT_RETRIES, transientRetry } from './retry.js';
import type { ResponseCache } from './cache.js';
import { JsonTooDeepError, parseJson } from '../output/json.js';
import { errorDetail, isHtmlType, isJsonType, mediaType, networkError, oneLine, statusError, tooDeepError } from './errors.js';
import { sanitize } from '../output/sanitize.js';

export interface HttpClientOptions {
  baseUrl: URL;
  token: Token;
  userAgent: string;
  timeoutMs: number;
  maxWaitMs: number;
  wait: boolean;
  /** Resends of a GET/HEAD after 502/503/504 or a dropped connection (--retries; default 2). */
  retries?: number;
  /** With --cache: reads may be served from disk. */
  cache?: ResponseCache;
  verbose: boolean;
  state: StateStore;
  io: IO;
  /** For the proxy variables; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** For pacing, budget and retries; default the system clock. */
  clock?: Clock;
}

export interface ApiRequest {
  /** Default GET. */
  method?: string;
  /**
   * Relative to the base URL ('/apps', 'apps', '/apps?x=1'), or an absolute URL of the
   * base URL's origin only (anything else is a UsageError and nothing is sent).
   */
  path: string;
  /** Appended to the query; keys keep raw [] (publicId[]=a), values are percent-encoded. */
  query?: ReadonlyArray<readonly [string, string]>;
  /** May override Accept; never Authorization. */
  headers?: Record<string, string>;
  /** Sent with Content-Type application/json unless the headers say otherwise. */
  body?: string | Uint8Array;
  /** Send even when the last rate-limit state says the window is spent (`rate-limit --refresh`). */
  unpaced?: boolean;
  /** Resolve with any HTTP status instead of throwing (`hostctl api`); 401 marking, 429 waiting and network errors still apply. */
  acceptAnyStatus?: boolean;
  /** Never from the cache (wait and watch look for changes), though the answer is kept. */
  fresh?: boolean;
}

export interface ApiResponse {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The final URL, after redirects. */
  url: URL;
  text: string;
  /** The body as JSON; throws ApiError for an empty, invalid or non-JSON body. */
  json(): unknown;
}

/** The most a response body may hold; past it the response is dropped. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Error and redirect bodies are only read for a one-line detail. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
export const MAX_REDIRECTS = 5;
/** A server that answers 429 with "retry now" forever is not retried forever. */
const MAX_429_RETRIES = 50;

type Undici = typeof import('undici');

let undiciModule: Promise<Undici> | undefined;
function loadUndici(): Promise<Undici> {
  // undici is CommonJS. Bundled with code splitting, esbuild gives its dynamic import a
  // chunk whose only export is `default`; unbundled (tests), Node gives named exports.
  return (undiciModule ??= import('undici').then((m: Undici | { default: Undici }) => ('Agent' in m ? m : m.default)));
}


/** `key=value` pairs appended to a URL's query; keys keep [] raw, as the API document writes them. */
export function appendQuery(url: URL, query: ReadonlyArray<readonly [string, string]> | undefined): URL {
  if (!query || query.length === 0) return url;
  const encodeKey = (k: string) => encodeURIComponent(k).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  const parts = query.map(([k, v]) => `${encodeKey(k)}=${encodeURIComponent(v)}`);
  const out = new URL(url.href);
  out.search = [url.search.replace(/^\?/, ''), ...parts].filter(Boolean).join('&');
  return out;
}

/** Sets (or replaces) one query parameter without re-encoding the others. */
export function setQueryParam(url: URL, key: string, value: string): URL {
  const kept = url.search
    .replace(/^\?/, '')
    .split('&')
    .filter((part) => part !== '' && safeDecode(part.split('=')[0]!) !== key);
  const out = new URL(url.href);
  out.search = [...kept, `${encodeURIComponent(key)}=${encodeURIComponent(value)}`].join('&');
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A header value as HTTP allows it: tab, visible ASCII, space and Latin-1 (obs-text). */
const HEADER_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

/** Headers about the connection or the framing, which hostctl (undici) sets or must not send. */
const HOP_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'expect', 'upgrade', 'keep-alive', 'te', 'trailer', 'proxy-connection']);

/** The only request headers a redirect to another origin keeps: they say nothing about the user. */
const HARMLESS_HEADERS = new Set(['accept', 'accept-language', 'user-agent', 'content-type']);

/** Whether NO_PROXY (curl's rules: *, host, .domain, *.domain, optional :port) names this URL's host. */
export function noProxyMatches(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const m = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[|\](?=:\d+$|$)/g, ''));
    const name = (m?.[1] ?? entry).replace(/^\*?\./, '');
    if (m?.[2] !== undefined && m[2] !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

type Attempt = Exchange;
type RawResponse = Answer;

export class HttpClient {
  private sent = 0;
  private dispatcher?: Dispatcher;
  private proxyDispatcher?: Dispatcher;
  private closed = false;
  private readonly rate: RateLimiter;
  private readonly budget: BudgetFile;
  private readonly secret: string;
  private readonly clock: Clock;

  constructor(readonly options: HttpClientOptions) {
    this.secret = options.token.value;
    this.clock = options.clock ?? systemClock;
    addSecret(this.secret);
    this.rate = new RateLimiter({
      state: options.state,
      fingerprint: options.token.fingerprint,
      io: options.io,
      wait: options.wait,
      maxWaitMs: options.maxWaitMs,
      now: this.clock.now,
      sleep: this.clock.sleep,
    });
    this.budget = new BudgetFile(options.state.path, options.token.fingerprint, this.clock.now);
  }

  /** The token's shared budget as it is now (src/http/budget.ts). */
  budgetSnapshot(): BudgetData {
    return this.budget.read();
  }

  /** Requests the shared budget has left now, when it knows. */
  budgetLeft(): number | undefined {
    return budgetLeft(this.budget.read(), this.clock.now());
  }

  /** Requests actually sent (each redirect hop and each resend counts). */
  get requestCount(): number {
    return this.sent;
  }

  /**
   * A path relative to the base URL, or an absolute URL of the base URL's origin. Any
   * other origin is refused: the token goes to the base URL's origin only.
   */
  resolveUrl(path: string): URL {
    const base = this.options.baseUrl;
    let url: URL;
    if (/^[a-z][a-z\d+.-]*:\/\//i.test(path)) {
      try {
        url = new URL(path);
      } catch {
        throw new UsageError(`"${oneLine(path, 200)}" is not a valid URL.`, 'Give a path relative to the base URL, such as /apps.');
      }
      if (url.origin !== base.origin) {
        throw new UsageError(
          `Refusing ${url.origin}: hostctl sends requests (and the token) only to the base URL's origin, ${base.origin}.`,
          'Give a path relative to the base URL, such as /apps, or change --base-url.',
        );
      }
    } else {
      const basePath = base.pathname.replace(/\/+$/, '');
      url = new URL(`${base.origin}${basePath}/${path.replace(/^[/\\]+/, '')}`);
      // Defensive: a relative path must never leave the origin, whatever it holds.
      if (url.origin !== base.origin) throw new UsageError(`The path "${oneLine(path, 200)}" leaves the base URL.`, 'Give a path such as /apps.');
    }
    url.hash = '';
    return url;
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    if (this.closed) throw new HostctlError('The HTTP client is closed.');
    const first: Attempt = {
      method: (req.method ?? 'GET').toUpperCase(),
      url: appendQuery(this.resolveUrl(req.path), req.query),
      headers: this.baseHeaders(req),
      body: req.body,
    };
    if (!HEADER_NAME.test(first.method)) throw new UsageError(`"${oneLine(first.method, 40)}" is not an HTTP method.`, 'Use GET, POST, PUT, PATCH or DELETE.');

    let attempt = first;
    let redirects = 0;
    let retries429 = 0;
    const keepBody = req.acceptAnyStatus === true;
    for (;;) {
      const send = this.pipeline(req.unpaced === true && attempt === first && retries429 === 0, keepBody, req.fresh === true);
      const res = await send(attempt);

      // Another origin (after a redirect) got no token: its answers say nothing about it.
      const withToken = this.carriesToken(attempt.url);
      if (res.status === 401 && withToken) {
        // Never retried: retrying a rejected credential locks out the IP address. The
        // mark is saved at once, so that even an interrupted run leaves it behind.
        this.options.state.markRejected(this.options.token.fingerprint, 401);
      } else if (withToken) {
        this.rate.onResponse(res.headers);
      }

      if (res.status === 429 && retries429 < MAX_429_RETRIES) {
        retries429++;
        await this.rate.on429(res.headers, errorDetail(res.text, res.headers['content-type']));
        continue;
      }

      const location = res.headers.location;
      if (isRedirect(res.status) && location) {
        if (++redirects > MAX_REDIRECTS) {
          throw new ApiError(
            `The API redirected more than ${MAX_REDIRECTS} times for ${first.method} ${first.url.pathname}; hostctl stopped following.`,
            'Check --base-url; it should point at the API itself (ending in /v1).',
            { status: res.status },
          );
        }
        attempt = this.redirectAttempt(attempt, res.status, location);
        continue;
      }

      if ((res.status < 200 || res.status > 299) && !req.acceptAnyStatus) {
        throw statusError({
          status: res.status,
          statusText: statusText(res.status),
          method: attempt.method,
          url: attempt.url,
          text: res.text,
          contentType: res.headers['content-type'],
          tokenSent: withToken,
          unrecorded: res.status === 401 && withToken && !this.options.state.recorded(this.options.token.fingerprint),
        });
      }
      return this.makeResponse(res, attempt);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = [this.dispatcher, this.proxyDispatcher];
    this.dispatcher = this.proxyDispatcher = undefined;
    // destroy, not close: nothing is in flight once a command ends, and idle keep-alive
    // sockets must not hold the process open.
    for (const d of pools) if (d) await d.destroy().catch(() => undefined);
  }

  /**
   * The layers between the redirect / 429 loop of request() and the wire: the cache,
   * then transient retries outside the shared budget, so that every resend reserves its
   * own slot.
   */
  private pipeline(unpaced: boolean, keepBody: boolean, fresh: boolean) {
    const retries = this.options.retries ?? DEFAULT_RETRIES;
    return compose(
      [
        // Outermost: an answer from the cache spends no slot of the budget.
        ...(this.options.cache ? [this.options.cache.layer(fresh)] : []),
        transientRetry({
          retries,
          wait: (ms, reason, n) => this.rate.retryAfter(ms, reason, n, retries),
          canWait: (ms) => this.rate.canWait(ms),
          now: this.clock.now,
        }),
        this.budgetLayer(unpaced),
      ],
      (x) => this.send(x, keepBody),
    );
  }

  /** Reserves a slot in the token's shared window before each request that carries it. */
  private budgetLayer(unpaced: boolean): Layer {
    return (next) => async (x) => {
      if (!this.carriesToken(x.url)) return next(x);
      // The pool (and undici) first: a slot reserved is a slot the server should see at once.
      await this.getDispatcher(x.url);
      const sentAt = await this.reserveSlot(unpaced);
      const res = await next(x);
      // A 401's headers count failed authentications, not this token's requests.
      if (res.status === 429) this.budget.on429(sentAt, Math.min(retryDelayMs(res.headers, this.clock.now()), MAX_HORIZON_MS));
      else if (res.status !== 401) this.budget.observe(res.headers, sentAt);
      return res;
    };
  }

  private async reserveSlot(unpaced: boolean): Promise<number> {
    for (;;) {
      const r = this.budget.tryReserve(unpaced);
      if ('sentAt' in r) return r.sentAt;
      await this.rate.pace(Math.max(5, r.waitMs));
    }
  }

  private carriesToken(url: URL): boolean {
    return url.origin === this.options.baseUrl.origin;
  }

  private baseHeaders(req: ApiRequest): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(name)) throw new UsageError(`"${oneLine(name, 60)}" is not a valid header name.`, 'Header names are letters, digits and - only.');
      if (/[\r\n]/.test(value)) throw new UsageError(`The value of header ${name} contains a line break.`, 'Give each header on one line.');
      if (!HEADER_VALUE.test(value)) {
        throw new UsageError(`The value of header ${name} contains control characters or characters HTTP cannot carry.`, 'Give printable characters only (Latin-1; percent-encode anything else).');
      }
      if (lower === 'authorization') {
        throw new UsageError('hostctl sets the Authorization header itself, from the token of this profile.', 'Use HOSTCTL_TOKEN or "hostctl auth login" to choose the token.');
      }
      if (HOP_HEADERS.has(lower)) {
        throw new UsageError(`hostctl sets the ${name} header itself.`, `Leave out -H '${name}: …'.`);
      }
      headers[lower] = value;
    }
    if (req.body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  /** The next hop of a redirect, or an error when following it would be unsafe. */
  private redirectAttempt(prev: Attempt, status: number, location: string): Attempt {
    let next: URL;
    try {
      next = new URL(location, prev.url);
    } catch {
      throw new ApiError(`The API redirected to an invalid address (${oneLine(location, 120)}).`, 'Check --base-url.', { status });
    }
    next.hash = '';
    if (next.protocol !== 'https:' && next.protocol !== 'http:') {
      throw new ApiError(`The API redirected to a ${next.protocol} address; hostctl follows http(s) redirects only.`, 'Check --base-url.', { status });
    }
    if (next.protocol === 'http:' && !isLoopbackHost(next.hostname)) {
      throw new ApiError(
        `The API redirected to plain http (${next.origin}); hostctl refuses to follow, so that nothing travels unencrypted.`,
        'Check --base-url; use the https:// address of the API.',
        { status },
      );
    }
    // 301/302/303 turn into a GET without a body, as browsers, curl -L and Go do;
    // 307/308 keep the method and body.
    const keep = status === 307 || status === 308 || prev.method === 'GET' || prev.method === 'HEAD';
    const cross = next.origin !== prev.url.origin;
    if (cross && keep && prev.body !== undefined) {
      throw new ApiError(
        `The API redirected ${prev.method} ${prev.url.pathname} to another origin (${next.origin}) with ${status}, which would resend the request body there; hostctl does not follow.`,
        'Check --base-url; it should point at the API itself.',
        { status },
      );
    }
    let headers = { ...prev.headers };
    if (cross) {
      // Another origin gets none of the user's -H headers (a cookie, an API key), only
      // what any client sends: undici's own redirect handler drops cookie and
      // proxy-authorization for the same reason. The token is never sent there (send()).
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => HARMLESS_HEADERS.has(name)));
    }
    if (!keep) {
      delete headers['content-type'];
    }
    if (this.options.verbose) {
      const elsewhere = next.origin !== this.options.baseUrl.origin ? ' (another origin: without the token)' : '';
      this.options.io.stderr.write(`* following redirect to ${oneLine(next.href, 2000)}${elsewhere}\n`);
    }
    return {
      method: keep ? prev.method : 'GET',
      url: next,
      headers,
      body: keep ? prev.body : undefined,
    };
  }

  /**
   * The pool for a URL. HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured through
   * undici's EnvHttpProxyAgent, except for loopback hosts, which never go through a
   * proxy (as in Go's net/http, and so gh): the sandbox on 127.0.0.1 must keep working
   * in a shell that has a corporate proxy set.
   */
  private async getDispatcher(url: URL): Promise<{ undici: Undici; dispatcher: Dispatcher }> {
    const undici = await loadUndici();
    const opts = {
      keepAliveTimeout: 10_000,
      connect: { timeout: this.options.timeoutMs },
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
    };
    const env = this.options.env ?? process.env;
    // A host NO_PROXY lists goes direct: the direct pool is used for it, so that an error
    // does not blame a proxy the request never went through.
    const proxied = !isLoopbackHost(url.hostname) && PROXY_VARS.some((k) => env[k]) && !noProxyMatches(url, env.NO_PROXY ?? env.no_proxy);
    // The run's environment, not process.env (which undici reads when these are absent).
    const fromEnv = { httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '', httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '', noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
    if (proxied) return { undici, dispatcher: (this.proxyDispatcher ??= new undici.EnvHttpProxyAgent({ ...opts, ...fromEnv })) };
    return { undici, dispatcher: (this.dispatcher ??= new undici.Agent(opts)) };
  }

  /** One exchange on the wire, body read (capped). Network failures become NetworkError. */
  private async send(a: Attempt, keepErrorBody: boolean): Promise<RawResponse> {
    const { undici, dispatcher } = await this.getDispatcher(a.url);
    const viaProxy = dispatcher === this.proxyDispatcher;
    const headers = { ...a.headers };
    // Only the base URL's origin ever sees the token: a redirect elsewhere goes without it.
    if (this.carriesToken(a.url)) headers.authorization = `Bearer ${this.secret}`;
    if (this.options.verbose) this.logRequest(a, headers);

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    let midResponse = false;
    // Only --verbose shows the time: the global `performance` loads perf_hooks on first use.
    const started = this.options.verbose ? performance.now() : 0;
    try {
      this.sent++;
      const res = await undici.request(a.url, {
        method: a.method as Dispatcher.HttpMethod,
        headers,
        body: a.body === undefined ? undefined : typeof a.body === 'string' ? a.body : Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength),
        dispatcher,
        signal: controller.signal,
      });
      midResponse = true;
      const resHeaders = flattenHeaders(res.headers);
      if (this.options.verbose) this.logResponse(res.statusCode, resHeaders, performance.now() - started);
      const ok = res.statusCode >= 200 && res.statusCode <= 299;
      const text = await this.readBody(res.body, a, resHeaders, ok || keepErrorBody ? MAX_BODY_BYTES : MAX_ERROR_BODY_BYTES, ok || keepErrorBody);
      return { status: res.statusCode, headers: resHeaders, text };
    } catch (err) {
      if (err instanceof HostctlError) throw err;
      throw networkError(err, { url: a.url, timeoutMs: this.options.timeoutMs, timedOut, midResponse, viaProxy });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Reads a body up to `cap` bytes. Past the cap a body we need whole is an error; an
   * error page is simply cut (only its first line of detail is used).
   */
  private async readBody(
    body: Dispatcher.ResponseData['body'],
    a: Attempt,
    headers: Record<string, string>,
    cap: number,
    mustBeWhole: boolean,
  ): Promise<string> {
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

  private makeResponse(res: RawResponse, a: Attempt): ApiResponse {
    const where = `${a.method} ${a.url.pathname}${a.url.search}`;
    let parsed: { value: unknown } | undefined;
    return {
      status: res.status,
      statusText: statusText(res.status),
      headers: res.headers,
      url: a.url,
      text: res.text,
      json(): unknown {
        if (parsed) return parsed.value;
        const type = res.headers['content-type'];
        const hint = 'Check that --base-url points at the API (it ends in /v1); run with --verbose to see the exchange.';
        if (type !== undefined && !isJsonType(type)) {
          const shown = oneLine(mediaType(type), 60) || 'no content type';
          const page = isHtmlType(type) ? ', a web page rather than the API' : '';
          throw new ApiError(`The API sent a response that is not JSON (${shown}${page}) for ${where}.`, hint, { status: res.status });
        }
        const text = res.text.replace(/^\uFEFF/, '');
        if (text.trim() === '') {
          throw new ApiError(`The API sent an empty response for ${where} where JSON was expected.`, hint, { status: res.status });
        }
        try {
          // Lossless: a number JSON.parse would round is kept as its text (JsonNumber).
          parsed = { value: parseJson(text) };
        } catch (err) {
          if (err instanceof JsonTooDeepError) throw tooDeepError(where, res.status);
          throw new ApiError(
            `The API sent invalid or incomplete JSON for ${where} (${text.length} characters).`,
            'Try again; if it keeps happening the server is at fault. Run with --verbose to see the exchange.',
            { status: res.status },
          );
        }
        return parsed.value;
      },
    };
  }

  private logRequest(a: Attempt, headers: Record<string, string>): void {
    const lines = [`> ${a.method} ${a.url.href}`];
    for (const [name, value] of Object.entries(headers)) {
      lines.push(`> ${name}: ${name === 'authorization' ? `Bearer ${redact(this.secret)}` : value}`);
    }
    if (a.body !== undefined) lines.push(`> (body: ${typeof a.body === 'string' ? Buffer.byteLength(a.body) : a.body.byteLength} bytes)`);
    this.writeVerbose(lines);
  }

  private logResponse(status: number, headers: Record<string, string>, ms: number): void {
    const lines = [`< ${status} ${statusText(status)} (${Math.round(ms)} ms)`.replace('  ', ' ')];
    for (const [name, value] of Object.entries(headers)) lines.push(`< ${name}: ${value}`);
    this.writeVerbose(lines);
  }

  private writeVerbose(lines: string[]): void {
    // A hostile server could echo the token or send control sequences in its headers.
    const text = lines.map((l) => sanitize(l.replace(/\t/g, ' '))).join('\n');
    this.options.io.stderr.write(`${text}\n`);
  }
}

function statusText(status: number): string {
  return STATUS_CODES[status] ?? '';
}

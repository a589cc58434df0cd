// The one HTTP core: every request hostctl makes goes through HttpClient.request(). The
// client is thin: it checks what the caller asked for (path, method, headers), assembles
// the layers of the request path (pipeline(): one concern each, in src/http/) around the
// wire (wire.ts), and turns the final answer into an ApiResponse. The token is only ever
// sent to the base URL's origin (bearer.ts), and never shown.

import type { IO } from '../io.js';
import type { Token } from '../auth/token.js';
import type { StateStore } from '../config/state.js';
import { ApiError, HostctlError, UsageError } from '../errors.js';
import { queryPartsWithout } from '../config/url.js';
import { systemClock, type Clock } from '../runtime.js';
import { Pacer, nextRate, parseRateHeaders, type RateState } from './ratelimit.js';
import { Budget, FileBudgetStore, budgetLayer, budgetLeft, type BudgetData, type BudgetLayerOptions, type BudgetStore } from './budget.js';
import { cancelled, compose, type Answer, type Exchange, type Layer, type ExchangeHandler } from './layers.js';
import { DEFAULT_RETRIES, transientRetry } from './retry.js';
import type { ResponseCache } from './cache.js';
import { JsonTooDeepError, parseJson } from '../output/json.js';
import { tooDeepError } from './failures.js';
import { isHtmlType, isJsonType, mediaType } from './media-type.js';
import { oneLine } from '../output/sanitize.js';
import { errorForStatus, statusErrors, statusText } from './status.js';
import { redirects, resolveUrl } from './origin.js';
import { wait429 } from './wait429.js';
import { bearer } from './bearer.js';
import { verboseLog } from './verbose.js';
import { Wire } from './wire.js';
import { dryRun } from './dry-run.js';

export { MAX_BODY_BYTES } from './wire.js';

export interface HttpClientOptions {
  baseUrl: URL;
  /** Where the base URL came from (--base-url, HOSTCTL_BASE_URL, profile "x"), named in network errors. */
  baseUrlFrom?: string;
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
  /**
   * A person at a terminal waits for this run: it gets the next free slot of the shared
   * budget before batch commands (Context.interactive()). Default false.
   */
  interactive?: boolean;
  /** --dry-run: each request is printed instead of sent, and the command stops after the first (dry-run.ts). */
  dryRun?: boolean;
  /**
   * Where the token's budget is kept when not in its file beside the state file: a fleet's
   * shared store (src/http/redis.ts), closed with the client.
   */
  budgetStore?: BudgetStore & { close?(): void };
}

export interface ApiRequest {
  /** Default GET. */
  method?: string;
  /** For --dry-run: what the command would send after this request, when it would send more. */
  then?: string;
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
  /** The method of the request that got this answer: after a 303, GET. */
  method: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The final URL, after redirects. */
  url: URL;
  text: string;
  /** The body as JSON; throws ApiError for an empty, invalid or non-JSON body. */
  json(): unknown;
  /**
   * With --cache: keeps this answer now that the caller has used it successfully. An
   * answer not kept so is kept when the command succeeds (ResponseCache.commit).
   */
  keep(): void;
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
  const kept = queryPartsWithout(url.search, key);
  const out = new URL(url.href);
  out.search = [...kept, `${encodeURIComponent(key)}=${encodeURIComponent(value)}`].join('&');
  return out;
}


const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A header value as HTTP allows it: tab, visible ASCII, space and Latin-1 (obs-text). */
const HEADER_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

/** Headers about the connection or the framing, which hostctl (undici) sets or must not send. */
const HOP_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'expect', 'upgrade', 'keep-alive', 'te', 'trailer', 'proxy-connection']);

/** What a call's client (HttpClient.forCall) shares with the client it was made from. */
interface CallOf {
  budget: Budget;
  wire: Wire;
  signal: AbortSignal;
}

export class HttpClient {
  private closed = false;
  private readonly pacer: Pacer;
  private readonly budget: Budget;
  private readonly wire: Wire;
  private readonly clock: Clock;
  /**
   * The rate state of the last answer this process saw: -R's line must tell what this run
   * learnt even when the store that keeps the budget failed part-way (Redis lost under
   * HOSTCTL_REDIS_REQUIRED=1), and then has nothing to read back.
   */
  private seenRate?: RateState;
  /** Set on a call's client: its cancellation. */
  private readonly signal: AbortSignal | undefined;

  constructor(
    readonly options: HttpClientOptions,
    call?: CallOf,
  ) {
    this.clock = options.clock ?? systemClock;
    options.io.addSecret(options.token.value);
    const store = options.budgetStore ?? new FileBudgetStore(options.state.path, options.token.fingerprint, this.clock.now);
    this.budget = call?.budget ?? new Budget(store, options.interactive ? 'interactive' : 'batch');
    this.signal = call?.signal;
    this.pacer = new Pacer({
      state: options.state,
      rates: this.budget,
      io: options.io,
      wait: options.wait,
      maxWaitMs: options.maxWaitMs,
      now: this.clock.now,
      sleep: this.clock.sleep,
      signal: this.signal,
    });
    this.wire = call?.wire ?? new Wire({ timeoutMs: options.timeoutMs, env: options.env ?? process.env, baseUrlFrom: options.baseUrlFrom });
  }

  /**
   * This client for one call among many that run at once (an MCP tool call): the same
   * budget (each of its requests a caller of its own there), connections and cache, with
   * the call's own --max-wait and cancellation. Once `signal` aborts, the call's waits end
   * (for the budget, a 429, a retry), a request in flight is aborted, and nothing more is
   * sent: its requests fail with an InterruptedError. Closing it closes nothing shared.
   */
  forCall(signal: AbortSignal): HttpClient {
    return new HttpClient(this.options, { budget: this.budget, wire: this.wire, signal });
  }

  /**
   * The token's shared budget (src/http/budget.ts) as this process last saw it in its
   * store, at its latest reservation or answer: poll intervals and notes need no round trip.
   */
  budgetSnapshot(): BudgetData {
    return this.budget.seen();
  }

  /** Requests the shared budget has left now, when it knows. */
  budgetLeft(): number | undefined {
    return budgetLeft(this.budgetSnapshot(), this.budget.store.now());
  }

  /**
   * The token's last rate state, from wherever its budget is kept (another process's
   * answer may be newer), or this process's own when that is newer or the store cannot say.
   */
  async lastRate(): Promise<RateState | undefined> {
    const stored = await Promise.resolve()
      .then(() => this.budget.rate())
      .catch(() => undefined);
    const own = this.seenRate;
    if (!own) return stored;
    return stored && stored.seenAt >= own.seenAt ? stored : own;
  }

  private noteRate(headers: Record<string, string>): void {
    const now = this.clock.now();
    this.seenRate = nextRate(this.seenRate, parseRateHeaders(headers, now), now) ?? this.seenRate;
  }

  /** The budget as the budget layer uses it, noting each answer's rate state on the way. */
  private budgetForLayer(): BudgetLayerOptions['budget'] {
    const budget = this.budget;
    return {
      caller: () => budget.caller(),
      tryReserve: (force, who) => budget.tryReserve(force, who),
      release: (sentAt, who) => budget.release(sentAt, who),
      withdraw: (who) => budget.withdraw(who),
      unprobe: (who) => budget.unprobe(who),
      observe: (headers, sentAt) => {
        this.noteRate(headers);
        return budget.observe(headers, sentAt);
      },
      on429: (sentAt, retryMs, headers) => {
        if (headers) this.noteRate(headers);
        return budget.on429(sentAt, retryMs, headers);
      },
    };
  }

  /** Requests actually sent (each redirect hop and each resend counts). */
  get requestCount(): number {
    return this.wire.sent;
  }

  /**
   * A path relative to the base URL, or an absolute URL of the base URL's origin. Any
   * other origin is refused: the token goes to the base URL's origin only.
   */
  resolveUrl(path: string): URL {
    return resolveUrl(this.options.baseUrl, path);
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    if (this.closed) throw new HostctlError('The HTTP client is closed.');
    const first: Exchange = {
      method: (req.method ?? 'GET').toUpperCase(),
      url: appendQuery(this.resolveUrl(req.path), req.query),
      headers: this.baseHeaders(req),
      body: req.body,
      unpaced: req.unpaced === true,
      ...(this.signal ? { signal: this.signal } : {}),
    };
    if (!HEADER_NAME.test(first.method)) throw new UsageError(`"${oneLine(first.method, 40)}" is not an HTTP method.`, 'Use GET, POST, PUT, PATCH or DELETE.');
    const { io, dryRun: dry, token } = this.options;
    const send = dry ? dryRun({ secret: token.value, json: io.json, then: req.then, out: (t) => io.out(t), note: (t) => io.note(t) }) : this.pipeline(req);
    let answer: Answer;
    try {
      answer = await send(first);
    } catch (err) {
      // Whatever ended it (a wait's abort, undici's), a cancelled call ends as one.
      if (this.signal?.aborted) throw cancelled();
      throw err;
    }
    return makeResponse(answer, answer.method ?? first.method, answer.url ?? first.url);
  }

  /**
   * The error an answer's status means (undefined for a 2xx), as every request not sent
   * with acceptAnyStatus ends with it: `hostctl api` prints the body first, then this.
   */
  errorFor(res: ApiResponse): HostctlError | undefined {
    const { baseUrl, state, token } = this.options;
    return errorForStatus(res, { origin: baseUrl.origin, recorded: () => state.recorded(token.fingerprint) });
  }

  async close(): Promise<void> {
    this.closed = true;
    // A call's client holds nothing of its own: the budget and the pool are its maker's.
    if (this.signal) return;
    this.options.budgetStore?.close?.();
    await this.wire.close();
  }

  /**
   * The request path, outermost first. The order is what keeps the rules:
   * - error mapping outermost: a status is an error only once no layer below acts on it;
   * - redirects next: every hop goes down the whole path again (its own slot, its own
   *   429 wait), and the origin guard judges each hop before it is sent;
   * - the 429 wait outside the cache: after the wait the cache is asked again (another
   *   process may have filled it meanwhile), and the resend goes through the budget;
   * - the cache outside the budget and the retries: an answer from disk spends no slot
   *   and is never "retried";
   * - transient retries outside the budget: every resend reserves its own slot;
   * - the budget outside the token layer and the log: only a request that carries the
   *   token spends a slot, reserved just before the exchange;
   * - the token layer just above the log and the wire, so that no layer above ever holds
   *   the token, and the log shows it redacted as sent;
   * - the wire innermost, mapping network failures (retries need them typed).
   */
  private pipeline(req: ApiRequest): ExchangeHandler {
    const { baseUrl, token, state, io, verbose, cache } = this.options;
    const origin = baseUrl.origin;
    const retries = this.options.retries ?? DEFAULT_RETRIES;
    const keepBody = req.acceptAnyStatus === true;
    const layers: Layer[] = [
      statusErrors({ acceptAnyStatus: keepBody, origin, recorded: () => state.recorded(token.fingerprint) }),
      redirects({ origin, note: verbose ? (line) => io.stderr.write(`${line}\n`) : undefined }),
      wait429({ on429: (headers, detail) => this.pacer.on429(headers, detail) }),
      ...(cache ? [cache.layer(req.fresh === true)] : []),
      transientRetry({
        retries,
        wait: (ms, reason, n) => this.pacer.retryAfter(ms, reason, n, retries),
        canWait: (ms) => this.pacer.canWait(ms),
        now: this.clock.now,
      }),
      budgetLayer({
        budget: this.budgetForLayer(),
        origin,
        pace: (ms) => this.pacer.pace(ms),
        defer: (ms) => this.pacer.defer(ms),
        ready: async (url) => void (await this.wire.ready(url)),
        now: this.clock.now,
      }),
      bearer({ origin, secret: token.value, fingerprint: token.fingerprint, marks: state }),
      ...(verbose ? [verboseLog({ write: (text) => io.stderr.write(text), secret: token.value, now: this.clock.now })] : []),
    ];
    return compose(layers, (x) => this.wire.send(x, keepBody));
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
}

/** The final answer for the caller; json() parses once, and only when asked. */
function makeResponse(res: Answer, method: string, url: URL): ApiResponse {
  const where = `${method} ${url.pathname}${url.search}`;
  let parsed: { value: unknown } | undefined;
  return {
    status: res.status,
    statusText: statusText(res.status),
    method,
    headers: res.headers,
    url,
    text: res.text,
    keep: () => res.keep?.(),
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

// The rate limit as the client sees it: the three X-RateLimit headers and Retry-After on
// every response, the last state kept per token fingerprint in the token's budget file
// (budget.ts: written in the same locked update that corrects the budget, so a run that
// learnt nothing else leaves the state file alone), and the wait on a 429.

import type { IO } from '../io.js';
import type { StateStore } from '../config/state.js';
import { RateLimitError } from '../errors.js';

/** Wait on a 429 that names no time at all. */
export const DEFAULT_RETRY_MS = 5_000;
/** Never resend a 429 sooner than this, even when told 0: no tight loops. */
export const MIN_RETRY_MS = 1_000;
/** A Reset value above this is a Unix time, not seconds to wait. */
export const UNIX_TIME_THRESHOLD = 1e9;
/**
 * The furthest ahead a server's word is trusted. The platform's window is one minute; a
 * Reset or Retry-After further off than this is a broken or hostile server, and believing
 * it would block the token for as long as it says (a Reset of 10^12 is the year 33658).
 */
export const MAX_HORIZON_MS = 60 * 60 * 1000;
import { sleepChunked } from '../runtime.js';

function header(headers: Record<string, string>, name: string): string | undefined {
  const v = headers[name];
  return v === undefined ? undefined : v.split(',')[0]!.trim();
}

function nonNegative(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d+(\.\d+)?$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * `X-RateLimit-Reset` as epoch ms (to the millisecond: a fraction of a second is kept):
 * seconds to wait, or a Unix time when above 10^9. A time further off than
 * MAX_HORIZON_MS is not trusted: undefined, as if the header were absent.
 */
export function parseReset(raw: string | undefined, now: number): number | undefined {
  const n = nonNegative(raw);
  if (n === undefined) return undefined;
  const at = n > UNIX_TIME_THRESHOLD ? n * 1000 : now + n * 1000;
  return at - now > MAX_HORIZON_MS ? undefined : at;
}

/** `Retry-After` as milliseconds to wait: delay-seconds or an HTTP date. */
export function parseRetryAfter(raw: string | undefined, now: number): number | undefined {
  if (raw === undefined) return undefined;
  const v = raw.trim();
  const secs = nonNegative(v);
  if (secs !== undefined) return Math.round(secs * 1000);
  // An HTTP date names a weekday and a month; anything else Date.parse might accept
  // ("12 apples") is not one.
  if (!/[a-z]{3}/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** The last rate-limit state seen for a token. */
export interface RateState {
  limit?: number;
  remaining?: number;
  /** When the window resets, epoch milliseconds. */
  resetAt?: number;
  /** When this state was read from a response, epoch milliseconds. */
  seenAt: number;
}

/** Where a 429's wait records the window as spent (budget.ts's Budget); `updateRate` runs under its store's lock. */
export interface RateStore {
  updateRate(fn: (prev: RateState | undefined) => RateState): Promise<void>;
}

export interface RateHeaders {
  limit?: number;
  remaining?: number;
  resetAt?: number;
}

export function parseRateHeaders(headers: Record<string, string>, now: number): RateHeaders {
  const limit = nonNegative(header(headers, 'x-ratelimit-limit'));
  const remaining = nonNegative(header(headers, 'x-ratelimit-remaining'));
  const resetAt = parseReset(header(headers, 'x-ratelimit-reset'), now);
  return {
    limit: limit === undefined ? undefined : Math.floor(limit),
    remaining: remaining === undefined ? undefined : Math.floor(remaining),
    resetAt,
  };
}

export function hasRateHeaders(h: RateHeaders): boolean {
  return h.limit !== undefined || h.remaining !== undefined || h.resetAt !== undefined;
}

/**
 * The rate state after an answer (but a 401, whose headers count failures, not this
 * token): what the headers say, the gaps filled from `prev`; undefined when they say
 * nothing (the state stays as it was).
 */
export function nextRate(prev: RateState | undefined, h: RateHeaders, now: number): RateState | undefined {
  if (!hasRateHeaders(h)) return undefined;
  return { limit: h.limit ?? prev?.limit, remaining: h.remaining ?? prev?.remaining, resetAt: h.resetAt ?? prev?.resetAt, seenAt: now };
}

/** How long to wait after a 429: Retry-After, else Reset, else a small default. */
export function retryDelayMs(headers: Record<string, string>, now: number): number {
  const retryAfter = parseRetryAfter(headers['retry-after'], now);
  let ms = retryAfter;
  if (ms === undefined) {
    const resetAt = parseReset(header(headers, 'x-ratelimit-reset'), now);
    if (resetAt !== undefined) ms = resetAt - now;
  }
  return Math.max(MIN_RETRY_MS, ms ?? DEFAULT_RETRY_MS);
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function clock(at: number): string {
  return new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
}

export interface PacerOptions {
  /** Saved before a wait, so that an interrupted wait leaves what the run learnt behind. */
  state: StateStore;
  rates: RateStore;
  io: IO;
  /** false with --no-wait. */
  wait: boolean;
  maxWaitMs: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The call's cancellation: every wait ends (rejects) when it aborts (HttpClient.forCall). */
  signal?: AbortSignal;
}

type WaitReason = 'paced' | '429' | 'retry';

/**
 * The waits of one client (one command, or one call of a server's: HttpClient.forCall):
 * for a slot of the budget, after a 429, before a retry. Each is within --max-wait and
 * shown (a note or a countdown), or fails at once as --no-wait asks.
 */
export class Pacer {
  /** Total time this client has waited, against --max-wait. */
  waitedMs = 0;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly o: PacerOptions) {
    this.now = o.now ?? Date.now;
    const sleep = o.sleep ?? sleepChunked;
    this.sleep = (ms) => sleep(ms, o.signal);
  }

  /** Waits `ms` for the shared budget to free a slot (src/http/budget.ts). */
  pace(ms: number): Promise<void> {
    return this.waitFor(ms, 'paced');
  }

  /**
   * Waits `ms` while an interactive command takes the next free slot (budget.ts): a short
   * wait, without a note or a countdown, within --max-wait; --no-wait does not end it (the
   * window is not spent: should it turn out so, pace() says it).
   */
  async defer(ms: number): Promise<void> {
    if (!this.canWait(ms)) return this.waitFor(ms, 'paced');
    this.waitedMs += ms;
    await this.sleep(ms);
  }

  /** Waits `ms` before resending a GET that met a transient failure (src/http/retry.ts). */
  retryAfter(ms: number, reason: string, attempt: number, of: number): Promise<void> {
    return this.waitFor(ms, 'retry', `${reason}; retry ${attempt} of ${of}`);
  }

  /** Whether a wait of `ms` still fits within --max-wait (--no-wait is about 429s only). */
  canWait(ms: number): boolean {
    return ms <= this.o.maxWaitMs - this.waitedMs;
  }

  /**
   * On a 429: wait as told (within --max-wait) and return, or throw RateLimitError.
   * `detail` is what the server said (one line, token scrubbed): a 429 may also mean that
   * the IP address is locked out, which only the server's words tell apart.
   */
  async on429(headers: Record<string, string>, detail?: string): Promise<void> {
    const now = this.now();
    const asked = retryDelayMs(headers, now);
    // A wait past the horizon is not done, whatever --max-wait allows; nor is it kept for
    // later runs beyond the horizon.
    const ms = Math.min(asked, MAX_HORIZON_MS);
    // The window is spent whatever the headers said; the next command must know. Retry-After
    // says when a request is welcome again; a Reset further off (the end of a window that
    // started earlier) must not make the retry wait for it.
    await this.o.rates.updateRate((prev) => ({ limit: prev?.limit, remaining: 0, resetAt: now + ms, seenAt: now }));
    if (asked > MAX_HORIZON_MS) {
      this.o.state.save();
      throw new RateLimitError(
        `The API rate limit is reached (429 Too Many Requests${detail ? `; the server said: ${detail}` : ''}), and the server asks for a wait of ${seconds(asked)}s, more than hostctl waits for (an hour).`,
        'Try again later; if the server keeps asking for such waits, report it to the API operator.',
        { retryAfter: seconds(asked) },
      );
    }
    await this.waitFor(ms, '429', detail);
  }

  private async waitFor(ms: number, why: WaitReason, detail?: string): Promise<void> {
    const at = this.now() + ms;
    const secs = seconds(ms);
    const reached =
      why === '429'
        ? `The API rate limit is reached (429 Too Many Requests${detail ? `; the server said: ${detail}` : ''})`
        : why === 'retry'
          ? `The request failed for now (${detail ?? 'a transient failure'}); the retry is due in ${secs}s`
          : 'The rate limit window for this token is spent';
    if (!this.o.wait && why !== 'retry') {
      this.o.state.save();
      throw new RateLimitError(
        `${reached}; it frees up in ${secs}s (at ${clock(at)}), and --no-wait is set.`,
        `Run the command again after ${secs}s, or leave out --no-wait to let hostctl wait.`,
        { retryAfter: secs },
      );
    }
    const left = this.o.maxWaitMs - this.waitedMs;
    if (ms > left) {
      this.o.state.save();
      // Rounded down, as --max-wait itself is: with none left this says 0s, not 1s (left is
      // never below 0: no wait begins that does not fit).
      const spent = this.waitedMs > 0 ? `only ${Math.floor(left / 1000)}s of --max-wait is left` : `--max-wait allows ${Math.floor(this.o.maxWaitMs / 1000)}s`;
      throw new RateLimitError(
        `${reached}; it frees up in ${secs}s (at ${clock(at)}), but ${spent}.`,
        `Run the command again after ${clock(at)}, or raise --max-wait.`,
        { retryAfter: secs },
      );
    }
    // Saved before the wait, so that an interrupted wait still leaves the state behind.
    this.o.state.save();
    this.waitedMs += ms;
    await this.countdown(ms, why, detail);
  }

  private async countdown(ms: number, why: WaitReason, detail?: string): Promise<void> {
    const io = this.o.io;
    const label = why === '429' ? 'Rate limit reached' : why === 'retry' ? `Transient failure (${detail ?? ''})` : 'Rate limit window spent';
    if (!io.spinnerAllowed) {
      // A retry's wait is short and its outcome is what matters: no note into a log.
      if (why === 'retry') return this.sleep(ms);
      io.note(`${label}: waiting ${seconds(ms)}s before ${why === 'paced' ? 'sending' : 'retrying'} (--no-wait to fail instead).`);
      await this.sleep(ms);
      return;
    }
    const end = this.now() + ms;
    const spinner = await io.spinner(`${label}: waiting ${seconds(ms)}s…`);
    try {
      for (;;) {
        const left = end - this.now();
        if (left <= 0) break;
        spinner.text(`${label}: waiting ${seconds(left)}s… (Ctrl-C to stop)`);
        await this.sleep(Math.min(1000, left));
      }
    } finally {
      spinner.stop();
    }
  }
}

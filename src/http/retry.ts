// The transient-retry layer: a GET or HEAD answered 502, 503 or 504, or whose connection
// dropped before any answer, is sent again after a backoff with jitter (or the server's
// Retry-After), at most `retries` times. Nothing else is ever resent: a 401 would count
// towards the IP lockout, other 4xx will not change, and a POST may already have acted.

import { NetworkError } from '../errors.js';
import { isIdempotentRead, type Answer, type Layer } from './layers.js';
import { parseRetryAfter } from './ratelimit.js';

export const DEFAULT_RETRIES = 2;
/** The first backoff; each retry doubles it. */
export const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
const TRANSIENT_STATUS = new Set([502, 503, 504]);

export interface RetryOptions {
  retries: number;
  /**
   * Waits `ms` before a retry, or throws when the wait is not allowed (--max-wait spent,
   * --no-wait): the caller's own accounting, so that retries share the wait budget.
   */
  wait(ms: number, reason: string, attempt: number): Promise<void>;
  /** Whether a wait of `ms` is still within --max-wait; a longer Retry-After ends the retries. */
  canWait(ms: number): boolean;
  random?: () => number;
  now?: () => number;
}

/** Exponential backoff with "equal jitter": half fixed, half random, never zero. */
export function backoffMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

function isTransientStatus(status: number): boolean {
  return TRANSIENT_STATUS.has(status);
}

export function transientRetry(o: RetryOptions): Layer {
  const random = o.random ?? Math.random;
  const now = o.now ?? Date.now;
  return (next) => async (x) => {
    if (!isIdempotentRead(x.method) || o.retries <= 0) return next(x);
    for (let attempt = 0; ; attempt++) {
      let answer: Answer;
      try {
        answer = await next(x);
      } catch (err) {
        if (!(err instanceof NetworkError && err.dropped) || attempt >= o.retries) throw err;
        const ms = backoffMs(attempt, random);
        if (!o.canWait(ms)) throw err;
        await o.wait(ms, 'the connection dropped before an answer', attempt + 1);
        continue;
      }
      if (!isTransientStatus(answer.status) || attempt >= o.retries) return answer;
      const asked = parseRetryAfter(answer.headers['retry-after'], now());
      const ms = asked ?? backoffMs(attempt, random);
      // A server that asks for longer than --max-wait allows gets its answer reported.
      if (!o.canWait(ms)) return answer;
      await o.wait(ms, `the API answered ${answer.status}`, attempt + 1);
    }
  };
}

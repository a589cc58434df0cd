// The rate-limit line: what `-R` prints after a command and `rate-limit` prints first.

import type { RateState } from '../http/ratelimit.js';

/** The -R line; `used` (the requests this command sent) is shown when given. */
export function formatRateLine(rate: RateState | undefined, now = Date.now(), used?: number, fromCache?: number): string {
  const cached = fromCache ? `, ${fromCache} answered from the cache` : '';
  const cost = used === undefined ? '' : ` (this command: ${used} ${used === 1 ? 'request' : 'requests'}${cached})`;
  if (!rate || rate.remaining === undefined) return `Rate limit: unknown (no response seen yet for this token)${cost}`;
  const limit = rate.limit !== undefined ? `/${rate.limit}` : '';
  let reset = '';
  if (rate.resetAt !== undefined) {
    const secs = Math.max(0, Math.ceil((rate.resetAt - now) / 1000));
    // With none left, what matters is when the next may go: a sliding window frees one
    // slot at a time, so "resets" would promise the whole limit back.
    if (rate.remaining === 0) reset = secs > 0 ? `; the next can go in ${secs}s` : '; the next can go now';
    else reset = `, resets in ${secs}s`;
  }
  return `Rate limit: ${rate.remaining}${limit} requests left${reset}${cost}`;
}

/** What `rate-limit --json` prints (and the MCP tool and the library return); null where the API has not said. */
export interface RateReport {
  limit: number | null;
  remaining: number | null;
  /** ISO time when the window resets. */
  resetAt: string | null;
  /** Seconds from now until then; 0 once it has passed. */
  resetInSeconds: number | null;
  /** ISO time of the response this was read from. */
  seenAt: string | null;
  /** Only with a fleet's shared store: where it is and what its window holds. */
  budget?: { store: 'redis'; where: string; spent: number | null; waiting: number };
}

/** The report of `rate`, and of the fleet's window when a shared store keeps the budget. */
export function rateReport(rate: RateState | undefined, now: number, fleet?: { where: string; spent?: number; waiting: number }): RateReport {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    limit: rate?.limit ?? null,
    remaining: rate?.remaining ?? null,
    resetAt: iso(rate?.resetAt),
    resetInSeconds: rate?.resetAt === undefined ? null : Math.max(0, Math.ceil((rate.resetAt - now) / 1000)),
    seenAt: iso(rate?.seenAt),
    ...(fleet ? { budget: { store: 'redis' as const, where: fleet.where, spent: fleet.spent ?? null, waiting: fleet.waiting } } : {}),
  };
}

// The token's rate-limit state as every face reports it (`rate-limit --json`, MCP's
// rate_limit, the library's rateLimit): null where the API has not said.

import type { RateState } from '../http/ratelimit.js';

export interface RateReport {
  limit: number | null;
  remaining: number | null;
  /** ISO time when the window resets. */
  resetAt: string | null;
  /** Seconds from now until then; 0 once it has passed. */
  resetInSeconds: number | null;
  /** ISO time of the response this was read from. */
  seenAt: string | null;
  /** Only with a fleet's shared store: where it is, what the fleet spent in the window, interactive commands waiting. */
  budget?: { store: 'redis'; where: string; spent: number | null; waiting: number };
}

/** What a fleet's shared store holds now (Context.fleetWindow). */
export interface FleetWindow {
  where: string;
  spent?: number;
  waiting: number;
}

export function rateReport(rate: RateState | undefined, now: number, fleet?: FleetWindow): RateReport {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    limit: rate?.limit ?? null,
    remaining: rate?.remaining ?? null,
    resetAt: iso(rate?.resetAt),
    resetInSeconds: rate?.resetAt === undefined ? null : Math.max(0, Math.ceil((rate.resetAt - now) / 1000)),
    seenAt: iso(rate?.seenAt),
    // Only with a fleet's store: without one the report is what it always was.
    ...(fleet ? { budget: { store: 'redis' as const, where: fleet.where, spent: fleet.spent ?? null, waiting: fleet.waiting } } : {}),
  };
}

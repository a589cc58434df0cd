// A sliding-window server on an injected clock, for the budget's unit tests: what the
// platform document describes (about `limit` requests a window per token, the rate-limit
// headers on every answer, 429 past the limit), answering each request at once.

/** The three rate-limit headers of an answer, as the platform sends them. */
export const rateHeaders = (limit: number, remaining: number, reset: number): Record<string, string> => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(reset),
});

/**
 * A sliding-window server of `limit` per `windowMs`: what it counted, and 429s past the
 * limit. `limit` may be changed later (setLimit): the document says the value may change.
 */
export function slidingWindowServer(limit: number, windowMs: number) {
  const seen: number[] = [];
  let refused = 0;
  const slide = (now: number) => {
    while (seen.length > 0 && seen[0]! <= now - windowMs) seen.shift();
  };
  return {
    get refused() {
      return refused;
    },
    setLimit(n: number): void {
      limit = n;
    },
    /** A request from another machine, where there is room: the budget learns of it only from the headers. */
    other(now: number): void {
      slide(now);
      if (seen.length < limit) seen.push(now);
    },
    take(now: number): { ok: boolean; headers: Record<string, string> } {
      slide(now);
      const reset = (first: number) => Math.ceil((first + windowMs - now) / 1000);
      if (seen.length >= limit) {
        refused++;
        return { ok: false, headers: rateHeaders(limit, 0, reset(seen[0]!)) };
      }
      seen.push(now);
      return { ok: true, headers: rateHeaders(limit, limit - seen.length, reset(seen[0]!)) };
    },
  };
}

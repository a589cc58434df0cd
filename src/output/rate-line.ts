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

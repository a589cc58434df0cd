// Numbers from the server are bounded (issue 12): a Reset past the horizon is not trusted,
// fractions of a second are kept, and a wait longer than a Node timer can hold is slept in
// pieces instead of firing at once.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_HORIZON_MS, parseReset } from '../../src/http/ratelimit.js';
import { MAX_TIMER_MS, sleepChunked } from '../../src/runtime.js';

describe('parseReset', () => {
  const now = 1_700_000_000_000;

  it('keeps fractions of a second, as seconds to wait or as a Unix time', () => {
    expect(parseReset('0.25', now)).toBe(now + 250);
    expect(parseReset(String((now + 1500) / 1000), now)).toBe(now + 1500);
  });

  it('does not trust a reset more than an hour away', () => {
    expect(parseReset(String(MAX_HORIZON_MS / 1000), now)).toBe(now + MAX_HORIZON_MS);
    expect(parseReset(String(MAX_HORIZON_MS / 1000 + 1), now)).toBeUndefined();
    expect(parseReset('1000000000000', now)).toBeUndefined();
    expect(parseReset(String(now / 1000 + 7200), now)).toBeUndefined();
  });
});

describe('sleepChunked', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a wait past 2^31-1 ms does not fire at once, and ends when it should', async () => {
    vi.useFakeTimers();
    let done = false;
    const ms = MAX_TIMER_MS * 2 + 10;
    void sleepChunked(ms).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(ms - MAX_TIMER_MS - 1000);
    expect(done).toBe(true);
  });
});

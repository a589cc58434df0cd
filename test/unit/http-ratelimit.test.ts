import { afterAll, describe, expect, it } from 'vitest';
import { IO } from '../../src/io.js';
import { RateLimitError } from '../../src/errors.js';
import {
  DEFAULT_RETRY_MS,
  MIN_RETRY_MS,
  RateLimiter,
  parseRateHeaders,
  parseReset,
  parseRetryAfter,
  retryDelayMs,
} from '../../src/http/ratelimit.js';
import { MemoryStream, cleanupDirs, newState, rejection } from './http-support.js';
import { BudgetFile, normalizeBudget, observe, on429, type BudgetData } from '../../src/http/budget.js';

afterAll(cleanupDirs);

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('header parsing', () => {
  it('Reset as seconds to wait', () => {
    expect(parseReset('42', NOW)).toBe(NOW + 42_000);
    expect(parseReset('0', NOW)).toBe(NOW);
    expect(parseReset('1.5', NOW)).toBe(NOW + 1500);
  });

  it('Reset as a Unix time (above 10^9)', () => {
    const unix = NOW / 1000 + 30;
    expect(parseReset(String(unix), NOW)).toBe(NOW + 30_000);
  });

  it('Reset that is not a number is ignored', () => {
    expect(parseReset(undefined, NOW)).toBeUndefined();
    expect(parseReset('soon', NOW)).toBeUndefined();
    expect(parseReset('-5', NOW)).toBeUndefined();
  });

  it('Retry-After as seconds', () => {
    expect(parseRetryAfter('12', NOW)).toBe(12_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
  });

  it('Retry-After as an HTTP date', () => {
    const date = new Date(NOW + 90_000).toUTCString();
    expect(date).toMatch(/GMT$/);
    expect(parseRetryAfter(date, NOW)).toBe(90_000);
    expect(parseRetryAfter(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
  });

  it('Retry-After that is neither is ignored', () => {
    expect(parseRetryAfter('12 apples', NOW)).toBeUndefined();
    expect(parseRetryAfter('-3', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });

  it('reads the three X-RateLimit headers', () => {
    expect(parseRateHeaders({ 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '17', 'x-ratelimit-reset': '42' }, NOW)).toEqual({
      limit: 20,
      remaining: 17,
      resetAt: NOW + 42_000,
    });
    expect(parseRateHeaders({}, NOW)).toEqual({ limit: undefined, remaining: undefined, resetAt: undefined });
  });

  it('a header sent twice (joined with commas) counts by its first value, spaces around it ignored', () => {
    expect(parseRateHeaders({ 'x-ratelimit-limit': '20 , 30', 'x-ratelimit-remaining': '17 ,4', 'x-ratelimit-reset': '42 , 7' }, NOW)).toEqual({
      limit: 20,
      remaining: 17,
      resetAt: NOW + 42_000,
    });
  });

  it('a limit or remaining count with a fraction is rounded down', () => {
    expect(parseRateHeaders({ 'x-ratelimit-limit': '20.9', 'x-ratelimit-remaining': '3.5' }, NOW)).toEqual({ limit: 20, remaining: 3, resetAt: undefined });
  });

  it('only plain decimal numbers count: no exponent, no hex, nothing after the number, nothing too big for a number', () => {
    for (const raw of ['1e3', '0x10', '5x', '5 5', '.5', '5.', '']) {
      expect(parseRateHeaders({ 'x-ratelimit-limit': raw, 'x-ratelimit-remaining': raw, 'x-ratelimit-reset': raw }, NOW)).toEqual({
        limit: undefined,
        remaining: undefined,
        resetAt: undefined,
      });
      expect(parseRetryAfter(raw, NOW)).toBeUndefined();
    }
    // 400 digits: Number() makes it Infinity, which is no wait at all.
    expect(parseRetryAfter('9'.repeat(400), NOW)).toBeUndefined();
    expect(parseRateHeaders({ 'x-ratelimit-limit': '9'.repeat(400) }, NOW).limit).toBeUndefined();
  });

  it('Reset of exactly 10^9 is seconds to wait (too far off to trust), above it a Unix time, even one past', () => {
    expect(parseReset('1000000000', NOW)).toBeUndefined();
    expect(parseReset('1000000001', NOW)).toBe(1_000_000_001_000);
  });

  it('Reset is trusted up to an hour ahead, not a second more', () => {
    expect(parseReset('3600', NOW)).toBe(NOW + 3_600_000);
    expect(parseReset('3601', NOW)).toBeUndefined();
    expect(parseReset(String(NOW / 1000 + 3600), NOW)).toBe(NOW + 3_600_000);
    expect(parseReset(String(NOW / 1000 + 3601), NOW)).toBeUndefined();
  });

  it('Retry-After in seconds is rounded to the millisecond', () => {
    expect(parseRetryAfter('2.0004', NOW)).toBe(2000);
    expect(parseRetryAfter('0.0016', NOW)).toBe(2);
  });

  it('Retry-After as a date must be an HTTP date: an ISO time or a bare date is ignored', () => {
    expect(parseRetryAfter('2026-01-15T12:01:00Z', NOW)).toBeUndefined();
    expect(parseRetryAfter('2026-01-16', NOW)).toBeUndefined();
    expect(parseRetryAfter('Thu, 15 Jan 2026 12:01:00 GMT', NOW)).toBe(60_000);
    expect(parseRetryAfter('sometime later', NOW)).toBeUndefined();
  });

  it('the wait on a 429: Retry-After, else Reset, else a default; never below the minimum', () => {
    expect(retryDelayMs({ 'retry-after': '3', 'x-ratelimit-reset': '50' }, NOW)).toBe(3000);
    expect(retryDelayMs({ 'x-ratelimit-reset': '50' }, NOW)).toBe(50_000);
    expect(retryDelayMs({ 'x-ratelimit-reset': String(NOW / 1000 + 8) }, NOW)).toBe(8000);
    expect(retryDelayMs({}, NOW)).toBe(DEFAULT_RETRY_MS);
    expect(retryDelayMs({ 'retry-after': '0' }, NOW)).toBe(MIN_RETRY_MS);
  });
});

function limiter(over: { wait?: boolean; maxWaitMs?: number } = {}) {
  const { state } = newState();
  const stderr = new MemoryStream();
  const io = new IO({ stderr, stdout: new MemoryStream(), env: {} });
  let now = NOW;
  const sleeps: number[] = [];
  const rates = new BudgetFile(state.path, 'fp', () => now);
  const rl = new RateLimiter({
    state,
    rates,
    io,
    wait: over.wait ?? true,
    maxWaitMs: over.maxWaitMs ?? 120_000,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  });
  return { rl, rates, stderr, sleeps };
}

describe('RateLimiter', () => {
  it('paces: a wait for the shared budget says so once, then sleeps', async () => {
    const { rl, sleeps, stderr } = limiter();
    await rl.pace(12_000);
    expect(sleeps).toEqual([12_000]);
    expect(stderr.text).toBe('Rate limit window spent: waiting 12s before sending (--no-wait to fail instead).\n');
  });

  it('a transient-failure retry waits within --max-wait, even with --no-wait', async () => {
    const { rl, sleeps } = limiter({ wait: false, maxWaitMs: 5_000 });
    expect(rl.canWait(5_000)).toBe(true);
    await rl.retryAfter(1_000, 'the API answered 503', 1, 2);
    expect(sleeps).toEqual([1_000]);
    expect(rl.canWait(4_001)).toBe(false);
  });

  it("a 429 that is not waited out quotes the server's words: a lockout and a rate limit look alike otherwise", async () => {
    const { rl } = limiter({ wait: false });
    const err = await rl.on429({ 'retry-after': '600' }, '"Too many failed authentications came from 127.0.0.1."').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toMatch(/^The API rate limit is reached \(429 Too Many Requests; the server said: "Too many failed authentications came from 127\.0\.0\.1\."\); it frees up in 600s/);
  });

  it('after a 429, Retry-After decides when to send again, not a Reset further off', async () => {
    const { rl, rates, sleeps } = limiter();
    rates.updateRate(() => ({ limit: 20, remaining: 5, resetAt: NOW + 60_000, seenAt: NOW }));
    await rl.on429({ 'retry-after': '2', 'x-ratelimit-reset': String(Math.ceil((NOW + 60_000) / 1000)) });
    expect(sleeps).toEqual([2000]);
    expect(rates.rate()).toMatchObject({ limit: 20, remaining: 0, resetAt: NOW + 2000 });
  });

  it('on a 429 waits Retry-After and records the spent window', async () => {
    const { rl, rates, sleeps } = limiter();
    await rl.on429({ 'retry-after': '4' });
    expect(sleeps).toEqual([4000]);
    expect(rl.waitedMs).toBe(4000);
    expect(rates.rate()).toMatchObject({ remaining: 0, resetAt: NOW + 4000 });
  });

  it('--no-wait: RateLimitError at once, no sleep', async () => {
    const { rl, sleeps } = limiter({ wait: false });
    const err = await rejection(rl.on429({ 'retry-after': '4' }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.message).toContain('--no-wait');
    expect(sleeps).toEqual([]);
  });

  it('--max-wait: the total wait of one command is bounded; past it RateLimitError without waiting', async () => {
    const { rl, sleeps } = limiter({ maxWaitMs: 10_000 });
    await rl.on429({ 'retry-after': '6' });
    const err = await rejection(rl.on429({ 'retry-after': '6' }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.message).toContain('only 4s of --max-wait is left');
    expect(sleeps).toEqual([6000]);
  });

  it('keeps the limit and fills gaps from the previous state (the budget file keeps it)', () => {
    let d: BudgetData = { sends: [] };
    d = observe(d, { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '10' }, NOW, NOW);
    d = observe(d, { 'x-ratelimit-remaining': '4' }, NOW, NOW + 1);
    expect(d.rate).toEqual({ limit: 20, remaining: 4, resetAt: NOW + 10_000, seenAt: NOW + 1 });
    d = observe(d, {}, NOW, NOW + 2);
    expect(d.rate).toEqual({ limit: 20, remaining: 4, resetAt: NOW + 10_000, seenAt: NOW + 1 });
    // What is written is what is read back.
    expect(normalizeBudget(JSON.parse(JSON.stringify(d)), NOW).rate).toEqual(d.rate);
  });

  it("a 429's headers update the rate state like any answer's", () => {
    let d: BudgetData = { sends: [], rate: { limit: 20, remaining: 5, seenAt: NOW } };
    d = on429(d, NOW, 2000, NOW + 5, { 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0' });
    expect(d.rate).toEqual({ limit: 30, remaining: 0, resetAt: undefined, seenAt: NOW + 5 });
    d = on429(d, NOW, 2000, NOW + 6);
    expect(d.rate?.seenAt).toBe(NOW + 5);
  });
});

describe('the wait on a terminal', () => {
  it('shows a countdown spinner on a TTY instead of the note line', async () => {
    const { state } = newState();
    const stderr = new MemoryStream();
    stderr.isTTY = true;
    const io = new IO({ stderr, stdout: new MemoryStream(), env: { FORCE_COLOR: '1' } });
    expect(io.spinnerAllowed).toBe(true);
    let now = NOW;
    const texts: string[] = [];
    const rl = new RateLimiter({
      state,
      rates: new BudgetFile(state.path, 'fp', () => now),
      io,
      wait: true,
      maxWaitMs: 60_000,
      now: () => now,
      sleep: async (ms) => {
        texts.push(stderr.text);
        now += ms;
      },
    });
    await rl.on429({ 'retry-after': '3' });
    io.stopSpinners();
    expect(texts).toHaveLength(3);
    expect(stderr.text).toContain('Rate limit reached: waiting 3s');
    expect(stderr.text).not.toContain('--no-wait to fail instead');
  });
});

import { afterAll, describe, expect, it, vi } from 'vitest';
import { IO, type Spinner } from '../../src/io.js';
import { RateLimitError } from '../../src/errors.js';
import {
  DEFAULT_RETRY_MS,
  MIN_RETRY_MS,
  MAX_HORIZON_MS,
  Pacer,
  hasRateHeaders,
  nextRate,
  parseRateHeaders,
  parseReset,
  parseRetryAfter,
  retryDelayMs,
} from '../../src/http/ratelimit.js';
import { StateStore } from '../../src/config/state.js';
import { MemoryStream, cleanupDirs, newState, rejection } from './http-support.js';
import { Budget, FileBudgetStore, normalizeBudget, observe, on429, type BudgetData } from '../../src/http/budget.js';

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

describe('the rate state after an answer', () => {
  it('any one of the three headers is news; none at all leaves the state as it was', () => {
    expect(hasRateHeaders({ limit: 20 })).toBe(true);
    expect(hasRateHeaders({ remaining: 0 })).toBe(true);
    expect(hasRateHeaders({ resetAt: NOW })).toBe(true);
    expect(hasRateHeaders({})).toBe(false);
    expect(nextRate({ limit: 20, remaining: 4, resetAt: NOW + 9000, seenAt: NOW - 1 }, {}, NOW)).toBeUndefined();
  });

  it('is what the headers say, the gaps filled from the state before, or left empty when there was none', () => {
    expect(nextRate(undefined, { resetAt: NOW + 5000 }, NOW)).toEqual({ limit: undefined, remaining: undefined, resetAt: NOW + 5000, seenAt: NOW });
    expect(nextRate(undefined, { remaining: 3 }, NOW)).toEqual({ limit: undefined, remaining: 3, resetAt: undefined, seenAt: NOW });
    const prev = { limit: 20, remaining: 4, resetAt: NOW + 9000, seenAt: NOW - 1 };
    expect(nextRate(prev, { resetAt: NOW + 5000 }, NOW)).toEqual({ limit: 20, remaining: 4, resetAt: NOW + 5000, seenAt: NOW });
    expect(nextRate(prev, { limit: 30, remaining: 0 }, NOW)).toEqual({ limit: 30, remaining: 0, resetAt: NOW + 9000, seenAt: NOW });
  });
});

const BASE = new URL('http://127.0.0.1:9/v1');

/**
 * A Pacer on its own clock (moved on by each sleep) and in-memory stderr; `terminal`
 * makes stderr a terminal and records the countdown spinner's texts instead of running ora.
 */
function pacing(over: { wait?: boolean; maxWaitMs?: number; terminal?: boolean } = {}) {
  const { state, path } = newState();
  const stderr = new MemoryStream();
  stderr.isTTY = over.terminal === true;
  const io = new IO({ stderr, stdout: new MemoryStream(), env: over.terminal ? { FORCE_COLOR: '1' } : {} });
  const spinner: string[] = [];
  if (over.terminal) {
    vi.spyOn(io, 'spinner').mockImplementation((text: string): Promise<Spinner> => {
      spinner.push(`start ${text}`);
      return Promise.resolve({ text: (t) => spinner.push(t), stop: () => spinner.push('stop') });
    });
  }
  let now = NOW;
  const sleeps: number[] = [];
  // What this run learnt (an ID seen): is it in the state file when the wait starts?
  const saved: boolean[] = [];
  state.rememberIds(BASE, 'apps', ['ap-learnt']);
  const onDisk = () => new StateStore(path).knownIds(BASE, 'apps').includes('ap-learnt');
  const rates = new Budget(new FileBudgetStore(state.path, 'fp', () => now));
  const pacer = new Pacer({
    state,
    rates,
    io,
    wait: over.wait ?? true,
    maxWaitMs: over.maxWaitMs ?? 120_000,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      saved.push(onDisk());
      now += ms;
    },
  });
  return { pacer, rates, stderr, sleeps, spinner, saved, onDisk };
}

describe('Pacer', () => {
  it("a call's waits (for the budget, a 429, a retry) end once it is cancelled, and leave no timer behind", async () => {
    vi.useFakeTimers();
    try {
      const { state } = newState();
      const io = new IO({ stderr: new MemoryStream(), stdout: new MemoryStream(), env: {} });
      const call = new AbortController();
      const pacer = new Pacer({ state, rates: new Budget(new FileBudgetStore(state.path, 'fp', () => NOW)), io, wait: true, maxWaitMs: 120_000, now: () => NOW, signal: call.signal });
      const waits = [pacer.pace(30_000), pacer.on429({ 'retry-after': '30' }), pacer.retryAfter(1_000, 'the API answered 503', 1, 2)];
      for (const w of waits) w.catch(() => undefined);
      await vi.advanceTimersByTimeAsync(1);
      expect(vi.getTimerCount()).toBe(waits.length);
      call.abort();
      for (const w of waits) await expect(w).rejects.toThrow();
      expect(vi.getTimerCount()).toBe(0);
      // One begun after the cancel does not wait at all.
      await expect(pacer.pace(1_000)).rejects.toThrow();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('paces: a wait for the shared budget says so once, then sleeps', async () => {
    const { pacer, sleeps, stderr } = pacing();
    await pacer.pace(12_000);
    expect(sleeps).toEqual([12_000]);
    expect(stderr.text).toBe('Rate limit window spent: waiting 12s before sending (--no-wait to fail instead).\n');
  });

  it('a transient-failure retry waits within --max-wait, even with --no-wait', async () => {
    const { pacer, sleeps } = pacing({ wait: false, maxWaitMs: 5_000 });
    expect(pacer.canWait(5_000)).toBe(true);
    await pacer.retryAfter(1_000, 'the API answered 503', 1, 2);
    expect(sleeps).toEqual([1_000]);
    expect(pacer.canWait(4_001)).toBe(false);
  });

  it("a 429 that is not waited out quotes the server's words: a lockout and a rate limit look alike otherwise", async () => {
    const { pacer } = pacing({ wait: false });
    const err = await pacer.on429({ 'retry-after': '600' }, '"Too many failed authentications came from 127.0.0.1."').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toMatch(/^The API rate limit is reached \(429 Too Many Requests; the server said: "Too many failed authentications came from 127\.0\.0\.1\."\); it frees up in 600s/);
  });

  it('after a 429, Retry-After decides when to send again, not a Reset further off', async () => {
    const { pacer, rates, sleeps } = pacing();
    await rates.updateRate(() => ({ limit: 20, remaining: 5, resetAt: NOW + 60_000, seenAt: NOW }));
    await pacer.on429({ 'retry-after': '2', 'x-ratelimit-reset': String(Math.ceil((NOW + 60_000) / 1000)) });
    expect(sleeps).toEqual([2000]);
    expect(await rates.rate()).toMatchObject({ limit: 20, remaining: 0, resetAt: NOW + 2000 });
  });

  it('on a 429 waits Retry-After and records the spent window', async () => {
    const { pacer, rates, sleeps } = pacing();
    await pacer.on429({ 'retry-after': '4' });
    expect(sleeps).toEqual([4000]);
    expect(pacer.waitedMs).toBe(4000);
    expect(await rates.rate()).toMatchObject({ remaining: 0, resetAt: NOW + 4000 });
  });

  it('--no-wait: RateLimitError at once, no sleep', async () => {
    const { pacer, sleeps } = pacing({ wait: false });
    const err = await rejection(pacer.on429({ 'retry-after': '4' }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.message).toContain('--no-wait');
    expect(sleeps).toEqual([]);
  });

  it('--max-wait: the total wait of one command is bounded; past it RateLimitError without waiting', async () => {
    const { pacer, sleeps } = pacing({ maxWaitMs: 10_000 });
    await pacer.on429({ 'retry-after': '6' });
    const err = await rejection(pacer.on429({ 'retry-after': '6' }));
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

/** A wait refused: a RateLimitError, nothing slept, what the run learnt saved first; its words. */
async function refused(l: ReturnType<typeof pacing>, wait: Promise<void>) {
  const err = await rejection(wait);
  expect(err).toBeInstanceOf(RateLimitError);
  expect(l.sleeps).toEqual([]);
  expect(l.onDisk()).toBe(true);
  const { message, hint, retryAfter } = err as RateLimitError;
  return { message, hint, retryAfter };
}

describe('what a wait says, and when it is refused', () => {
  it('--no-wait on a 429: when the window frees up, to the second and on the clock, and how to go on', async () => {
    const l = pacing({ wait: false });
    expect(await refused(l, l.pacer.on429({ 'retry-after': '1.5' }))).toEqual({
      message: 'The API rate limit is reached (429 Too Many Requests); it frees up in 2s (at 2026-01-15T12:00:01Z), and --no-wait is set.',
      hint: 'Run the command again after 2s, or leave out --no-wait to let hostctl wait.',
      retryAfter: 2,
    });
  });

  it('--no-wait when the shared budget has no slot: the window is spent, and nothing is sent', async () => {
    const l = pacing({ wait: false });
    expect((await refused(l, l.pacer.pace(12_000))).message).toBe(
      'The rate limit window for this token is spent; it frees up in 12s (at 2026-01-15T12:00:12Z), and --no-wait is set.',
    );
  });

  it('a first wait longer than --max-wait names the limit, in whole seconds, and when to run again', async () => {
    const l = pacing({ maxWaitMs: 2_500 });
    expect(await refused(l, l.pacer.on429({ 'retry-after': '3' }, 'slow down'))).toEqual({
      message: 'The API rate limit is reached (429 Too Many Requests; the server said: slow down); it frees up in 3s (at 2026-01-15T12:00:03Z), but --max-wait allows 2s.',
      hint: 'Run the command again after 2026-01-15T12:00:03Z, or raise --max-wait.',
      retryAfter: 3,
    });
  });

  it('a retry past --max-wait says what failed and which retry it was', async () => {
    const l = pacing({ maxWaitMs: 5_000 });
    expect((await refused(l, l.pacer.retryAfter(6_000, 'the API answered 503', 1, 2))).message).toBe(
      'The request failed for now (the API answered 503; retry 1 of 2); the retry is due in 6s; it frees up in 6s (at 2026-01-15T12:00:06Z), but --max-wait allows 5s.',
    );
  });

  it('what is left of --max-wait is told in whole seconds, rounded down: none left is 0s, not 1s', async () => {
    const { pacer, sleeps } = pacing({ maxWaitMs: 10_000 });
    await pacer.pace(9_500);
    const half = await rejection(pacer.on429({ 'retry-after': '1' }));
    expect(half.message).toBe('The API rate limit is reached (429 Too Many Requests); it frees up in 1s (at 2026-01-15T12:00:10Z), but only 0s of --max-wait is left.');
    await pacer.pace(500);
    const none = await rejection(pacer.on429({ 'retry-after': '1' }));
    expect(none.message).toBe('The API rate limit is reached (429 Too Many Requests); it frees up in 1s (at 2026-01-15T12:00:11Z), but only 0s of --max-wait is left.');
    expect(sleeps).toEqual([9_500, 500]);
  });

  it('a wait of exactly what is left of --max-wait is waited, and then nothing is left', async () => {
    const { pacer, sleeps } = pacing({ maxWaitMs: 10_000 });
    await pacer.pace(4_000);
    await pacer.on429({ 'retry-after': '6' });
    expect(sleeps).toEqual([4_000, 6_000]);
    expect(pacer.canWait(0)).toBe(true);
    expect(pacer.canWait(1)).toBe(false);
  });

  it('what the run learnt is saved before each wait, so that an interrupted wait leaves it behind', async () => {
    const { pacer, saved } = pacing();
    await pacer.on429({ 'retry-after': '2' });
    expect(saved).toEqual([true]);
  });

  it('a 429 asking for more than an hour is refused at once, whatever --max-wait, and the window is kept as spent for an hour', async () => {
    const l = pacing({ maxWaitMs: 10 * MAX_HORIZON_MS });
    expect(await refused(l, l.pacer.on429({ 'retry-after': '7200' }))).toEqual({
      message: 'The API rate limit is reached (429 Too Many Requests), and the server asks for a wait of 7200s, more than hostctl waits for (an hour).',
      hint: 'Try again later; if the server keeps asking for such waits, report it to the API operator.',
      retryAfter: 7200,
    });
    expect(await l.rates.rate()).toEqual({ limit: undefined, remaining: 0, resetAt: NOW + MAX_HORIZON_MS, seenAt: NOW });
    const said = pacing();
    expect((await refused(said, said.pacer.on429({ 'retry-after': '3601' }, 'come back tomorrow'))).message).toBe(
      'The API rate limit is reached (429 Too Many Requests; the server said: come back tomorrow), and the server asks for a wait of 3601s, more than hostctl waits for (an hour).',
    );
  });

  it('a 429 asking for exactly an hour is waited, when --max-wait allows it', async () => {
    const { pacer, sleeps } = pacing({ maxWaitMs: MAX_HORIZON_MS });
    await pacer.on429({ 'retry-after': '3600' });
    expect(sleeps).toEqual([MAX_HORIZON_MS]);
  });

  it('a 429 wait without a terminal is one note; a retry\'s wait is silent', async () => {
    const { pacer, stderr } = pacing();
    await pacer.on429({ 'retry-after': '1.5' });
    expect(stderr.text).toBe('Rate limit reached: waiting 2s before retrying (--no-wait to fail instead).\n');
    const quiet = pacing();
    await quiet.pacer.retryAfter(1_000, 'the API answered 503', 1, 2);
    expect(quiet.sleeps).toEqual([1_000]);
    expect(quiet.stderr.text).toBe('');
  });
});

describe('defer: an interactive command takes the next free slot', () => {
  it('waits without a note, within --max-wait, even with --no-wait', async () => {
    const { pacer, sleeps, stderr } = pacing({ wait: false, maxWaitMs: 5_000 });
    await pacer.defer(3_000);
    expect(sleeps).toEqual([3_000]);
    expect(pacer.waitedMs).toBe(3_000);
    expect(stderr.text).toBe('');
    expect(pacer.canWait(2_000)).toBe(true);
    expect(pacer.canWait(2_001)).toBe(false);
  });

  it('a wait past --max-wait is refused as a spent window, without waiting', async () => {
    const l = pacing({ maxWaitMs: 4_000 });
    expect((await refused(l, l.pacer.defer(5_000))).message).toBe(
      'The rate limit window for this token is spent; it frees up in 5s (at 2026-01-15T12:00:05Z), but --max-wait allows 4s.',
    );
  });
});

describe('the countdown on a terminal', () => {
  it('counts the seconds down, a second at a time, and stops when the wait is over', async () => {
    const { pacer, sleeps, spinner, stderr } = pacing({ terminal: true });
    await pacer.on429({ 'retry-after': '2.5' });
    expect(sleeps).toEqual([1000, 1000, 500]);
    expect(spinner).toEqual([
      'start Rate limit reached: waiting 3s…',
      'Rate limit reached: waiting 3s… (Ctrl-C to stop)',
      'Rate limit reached: waiting 2s… (Ctrl-C to stop)',
      'Rate limit reached: waiting 1s… (Ctrl-C to stop)',
      'stop',
    ]);
    expect(stderr.text).toBe('');
  });

  it('names what it waits for: a spent window, or a transient failure and its retry', async () => {
    const paced = pacing({ terminal: true });
    await paced.pacer.pace(1_000);
    expect(paced.spinner).toEqual(['start Rate limit window spent: waiting 1s…', 'Rate limit window spent: waiting 1s… (Ctrl-C to stop)', 'stop']);
    const retry = pacing({ terminal: true });
    await retry.pacer.retryAfter(1_000, 'the API answered 503', 1, 2);
    expect(retry.spinner).toEqual([
      'start Transient failure (the API answered 503; retry 1 of 2): waiting 1s…',
      'Transient failure (the API answered 503; retry 1 of 2): waiting 1s… (Ctrl-C to stop)',
      'stop',
    ]);
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
    const pacer = new Pacer({
      state,
      rates: new Budget(new FileBudgetStore(state.path, 'fp', () => now)),
      io,
      wait: true,
      maxWaitMs: 60_000,
      now: () => now,
      sleep: async (ms) => {
        texts.push(stderr.text);
        now += ms;
      },
    });
    await pacer.on429({ 'retry-after': '3' });
    io.stopSpinners();
    expect(texts).toHaveLength(3);
    expect(stderr.text).toContain('Rate limit reached: waiting 3s');
    expect(stderr.text).not.toContain('--no-wait to fail instead');
  });
});

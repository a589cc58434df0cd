import { describe, expect, it } from 'vitest';
import { parseDuration, parseInterval, parseSeconds } from '../../src/config/duration.js';
import { UsageError } from '../../src/errors.js';

describe('parseSeconds', () => {
  it('takes a non-negative number, or the fallback when absent', () => {
    expect(parseSeconds(undefined, '--timeout', 30)).toBe(30);
    expect(parseSeconds('2.5', '--timeout', 30)).toBe(2.5);
    expect(parseSeconds('0', '--timeout', 30)).toBe(0);
  });

  it('refuses anything else with the flag\'s name', () => {
    for (const raw of ['', ' ', '-1', 'abc', 'Infinity']) expect(() => parseSeconds(raw, '--max-wait', 1), raw).toThrow(/--max-wait takes a number of seconds/);
  });
});

describe('parseDuration', () => {
  it('reads units, combinations and bare seconds as milliseconds', () => {
    expect(parseDuration('500ms', '--interval')).toBe(500);
    expect(parseDuration('30s', '--interval')).toBe(30_000);
    expect(parseDuration('1h30m', '--interval')).toBe(5_400_000);
    expect(parseDuration(' 2 ', '--interval')).toBe(2_000);
    expect(parseDuration('90', '--interval')).toBe(90_000);
    expect(parseDuration('2.5', '--interval')).toBe(2_500);
    expect(parseDuration('7d', '--interval')).toBe(7 * 86_400_000);
  });

  it('refuses more than a week and what is not a duration', () => {
    for (const raw of ['8d', '1w', '', '10 m', '-5s']) {
      expect(() => parseDuration(raw, '--deadline'), raw).toThrow(UsageError);
      expect(() => parseDuration(raw, '--deadline'), raw).toThrow(/--deadline takes a duration/);
    }
  });
});

describe('parseDuration at its edges', () => {
  it('takes fractions of every unit, with more than one decimal', () => {
    expect(parseDuration('1.25s', '--interval')).toBe(1_250);
    expect(parseDuration('0.125m', '--interval')).toBe(7_500);
    expect(parseDuration('1.5h15.25m', '--interval')).toBe(5_400_000 + 915_000);
  });

  it('refuses a duration with anything after it, and a number too large to be finite', () => {
    for (const raw of ['10sx', '10s 5', '1h30', '1e400s', `${'9'.repeat(400)}s`]) {
      expect(() => parseDuration(raw, '--deadline'), raw).toThrow(UsageError);
    }
  });

  it('says what it takes, with an example, in one sentence', () => {
    let err: unknown;
    try {
      parseDuration('soon', '--deadline');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('--deadline takes a duration such as 30s, 10m or 1h (at most 7d), not "soon".');
    expect((err as UsageError).hint).toBe('For example: --deadline 10m');
  });
});

describe('parseSeconds says what it takes', () => {
  it('with the flag, the value and an example', () => {
    let err: unknown;
    try {
      parseSeconds('abc', '--timeout', 30);
    } catch (e) {
      err = e;
    }
    expect((err as UsageError).message).toBe('--timeout takes a number of seconds, not "abc".');
    expect((err as UsageError).hint).toBe('For example: --timeout 30');
  });
});

describe('parseInterval', () => {
  it('is the fallback when absent, and at least a second', () => {
    expect(parseInterval(undefined, 5_000)).toBe(5_000);
    expect(parseInterval('10s', 5_000)).toBe(10_000);
    expect(parseInterval('100ms', 5_000)).toBe(1_000);
    expect(() => parseInterval('soon', 5_000)).toThrow(/--interval takes a duration/);
  });
});

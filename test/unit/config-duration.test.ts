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
    expect(parseDuration('7d', '--interval')).toBe(7 * 86_400_000);
  });

  it('refuses more than a week and what is not a duration', () => {
    for (const raw of ['8d', '1w', '', '10 m', '-5s']) {
      expect(() => parseDuration(raw, '--deadline'), raw).toThrow(UsageError);
      expect(() => parseDuration(raw, '--deadline'), raw).toThrow(/--deadline takes a duration/);
    }
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

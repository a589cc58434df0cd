import { describe, expect, it } from 'vitest';
import { formatRateLine } from '../../src/output/rate-line.js';

describe('formatRateLine', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('says what is left, of how many, and when the window resets', () => {
    expect(formatRateLine({ limit: 20, remaining: 7, resetAt: now + 12_300, seenAt: now }, now)).toBe('Rate limit: 7/20 requests left, resets in 13s');
    expect(formatRateLine({ remaining: 3, seenAt: now }, now)).toBe('Rate limit: 3 requests left');
    expect(formatRateLine({ remaining: 3, resetAt: now - 5_000, seenAt: now }, now)).toBe('Rate limit: 3 requests left, resets in 0s');
  });

  it('with none left, says when the next request can go, not that the window resets', () => {
    expect(formatRateLine({ limit: 20, remaining: 0, resetAt: now + 800, seenAt: now }, now, 3)).toBe('Rate limit: 0/20 requests left; the next can go in 1s (this command: 3 requests)');
    expect(formatRateLine({ limit: 20, remaining: 0, resetAt: now - 1_000, seenAt: now }, now)).toBe('Rate limit: 0/20 requests left; the next can go now');
  });

  it('adds what this command cost, and what the cache answered', () => {
    expect(formatRateLine({ remaining: 3, seenAt: now }, now, 1)).toBe('Rate limit: 3 requests left (this command: 1 request)');
    expect(formatRateLine({ remaining: 3, seenAt: now }, now, 2, 4)).toBe('Rate limit: 3 requests left (this command: 2 requests, 4 answered from the cache)');
  });

  it('says so when no answer was seen yet', () => {
    expect(formatRateLine(undefined, now, 0)).toBe('Rate limit: unknown (no response seen yet for this token) (this command: 0 requests)');
    expect(formatRateLine({ seenAt: now }, now)).toBe('Rate limit: unknown (no response seen yet for this token)');
  });
});

import { describe, expect, it } from 'vitest';
import { parseIsoTime, relativeTime } from '../../src/output/time.js';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('parseIsoTime', () => {
  it('reads ISO 8601 timestamps with a zone', () => {
    expect(parseIsoTime('2024-05-01T12:00:00Z')).toBe(NOW);
    expect(parseIsoTime('2024-05-01T12:00:00.000Z')).toBe(NOW);
    expect(parseIsoTime('2024-05-01T14:00:00+02:00')).toBe(NOW);
  });

  it('leaves other strings alone: bare dates, times without a zone, names, nonsense dates', () => {
    for (const s of ['2024-05-01', '2024-05-01T12:00:00', 'running', '2024-13-45T99:99:99Z', ' 2024-05-01T12:00:00Z']) {
      expect(parseIsoTime(s)).toBeUndefined();
    }
  });
});

describe('relativeTime', () => {
  it.each([
    [-10 * S, 'just now'],
    [10 * S, 'just now'],
    [-60 * S, '1 minute ago'],
    [5 * M, 'in 5 minutes'],
    [-44 * M, '44 minutes ago'],
    [-50 * M, '1 hour ago'],
    [-3 * H, '3 hours ago'],
    [-30 * H, '1 day ago'],
    [-3 * D, '3 days ago'],
    [3 * D, 'in 3 days'],
    [-40 * D, '1 month ago'],
    [-90 * D, '3 months ago'],
    [-400 * D, '1 year ago'],
    [-3 * 365 * D, '3 years ago'],
  ])('%d ms from now is "%s"', (offset, text) => {
    expect(relativeTime(NOW + offset, NOW)).toBe(text);
  });
});

// At its edges: parseIsoTime reads exactly a
// whole ISO 8601 timestamp with a zone (no more, no less, at most 40 characters), and
// relativeTime switches unit at exactly the thresholds its doc names (moment.js's), each
// boundary itself belonging to the larger unit.
describe('parseIsoTime at its edges', () => {
  it('reads a timestamp of exactly 40 characters and refuses one of 41', () => {
    const forty = `2024-05-01T12:00:00.${'0'.repeat(19)}Z`;
    const fortyOne = `2024-05-01T12:00:00.${'0'.repeat(20)}Z`;
    expect(forty).toHaveLength(40);
    expect(fortyOne).toHaveLength(41);
    expect(parseIsoTime(forty)).toBe(NOW);
    expect(parseIsoTime(fortyOne)).toBeUndefined();
  });

  it('reads a time without seconds and a zone offset without a colon', () => {
    expect(parseIsoTime('2024-05-01T12:00Z')).toBe(NOW);
    expect(parseIsoTime('2024-05-01T14:00:00+0200')).toBe(NOW);
  });

  it('refuses a timestamp with anything before or after it, even what Date.parse would take', () => {
    // Date.parse reads both (an extended year; a trailing comment), but neither is a
    // plain ISO timestamp: the whole string must be one.
    expect(parseIsoTime('+002024-05-01T12:00:00Z')).toBeUndefined();
    expect(parseIsoTime('2024-05-01 12:00:00Z (x)')).toBeUndefined();
  });
});

describe('relativeTime at its thresholds', () => {
  it.each([
    ['45 seconds ago', '1 minute ago', -45 * S],
    ['90 seconds ago', '2 minutes ago', -90 * S],
    ['45 minutes ago', '1 hour ago', -45 * M],
    ['90 minutes ago', '2 hours ago', -90 * M],
    ['22 hours ago', '1 day ago', -22 * H],
    ['36 hours ago', '2 days ago', -36 * H],
    ['26 days ago', '1 month ago', -26 * D],
    ['45 days ago (1.48 months, rounded)', '1 month ago', -45 * D],
    ['320 days ago', '1 year ago', -320 * D],
    ['547.9 days ago (just over 1.5 years, still under 548 days)', '1 year ago', -547.9 * D],
    ['548 days ago', '2 years ago', -548 * D],
    ['548 days ahead', 'in 2 years', 548 * D],
  ])('%s reads "%s"', (_when, text, offset) => {
    expect(relativeTime(NOW + offset, NOW)).toBe(text);
  });
});

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

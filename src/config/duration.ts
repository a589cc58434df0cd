// Seconds and durations as flags, environment variables and the config give them.

import { UsageError } from '../errors.js';
import { oneLine } from '../output/sanitize.js';

export function parseSeconds(raw: string | undefined, flag: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new UsageError(`${flag} takes a number of seconds, not "${oneLine(raw, 60)}".`, `For example: ${flag} 30`);
  }
  return n;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30s`, `10m`, `1h`, `1h30m`, `500ms`, or a bare number of seconds, in milliseconds. */
export function parseDuration(raw: string, flag: string): number {
  const text = raw.trim();
  let ms: number | undefined;
  if (/^\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000;
  else if (/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text)) {
    ms = 0;
    for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(m[1]) * DURATION_UNITS[m[2]!]!;
  }
  // A week is more than any wait or cache here needs, and keeps every timer in range.
  if (ms === undefined || !Number.isFinite(ms) || ms > 7 * 86_400_000) {
    throw new UsageError(`${flag} takes a duration such as 30s, 10m or 1h (at most 7d), not "${oneLine(raw, 60)}".`, `For example: ${flag} 10m`);
  }
  return Math.round(ms);
}

/** The --interval of wait and watch: a duration of at least a second (each poll costs a request), or `fallback`. */
export function parseInterval(raw: string | undefined, fallback: number): number {
  return raw === undefined ? fallback : Math.max(1_000, parseDuration(raw, '--interval'));
}

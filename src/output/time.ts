// Times for people: tables show "3 days ago" where the API sends an ISO 8601 timestamp.

// A date with a time and a zone. A bare date, or a time without a zone, is left as sent:
// its instant is not known.
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/;

/** The instant `text` names, in ms since the epoch, or undefined when it is not an ISO timestamp. */
export function parseIsoTime(text: string): number | undefined {
  if (text.length > 40 || !ISO_DATETIME.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function plural(n: number, unit: string): string {
  return n === 1 ? `1 ${unit}` : `${n} ${unit}s`;
}

/**
 * "3 days ago" / "in 5 minutes". Rounded as people say it (the thresholds moment.js uses):
 * 50 minutes is "1 hour", 40 hours "2 days".
 */
export function relativeTime(ms: number, now: number): string {
  const delta = ms - now;
  const d = Math.abs(delta);
  if (d < 45 * SECOND) return 'just now';
  let span: string;
  if (d < 90 * SECOND) span = '1 minute';
  else if (d < 45 * MINUTE) span = plural(Math.round(d / MINUTE), 'minute');
  else if (d < 90 * MINUTE) span = '1 hour';
  else if (d < 22 * HOUR) span = plural(Math.round(d / HOUR), 'hour');
  else if (d < 36 * HOUR) span = '1 day';
  else if (d < 26 * DAY) span = plural(Math.round(d / DAY), 'day');
  else if (d < 45 * DAY) span = '1 month';
  else if (d < 320 * DAY) span = plural(Math.round(d / (30.44 * DAY)), 'month');
  else if (d < 548 * DAY) span = '1 year';
  else span = plural(Math.round(d / (365.25 * DAY)), 'year');
  return delta < 0 ? `${span} ago` : `in ${span}`;
}

/** A duration as a timeout is given: "30s", "2.5s". */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? `${s}s` : `${s.toFixed(1)}s`;
}

// The table people read (gh's table printer): aligned columns without borders, cut with
// "…" to the terminal's width, times as "3 days ago", colour only when allowed. Only this
// file loads cli-table3, chalk and string-width; format.ts imports it lazily, so json,
// ndjson and tsv output never pay for them.

import Table from 'cli-table3';
import { Chalk, type ChalkInstance } from 'chalk';
import stringWidth from 'string-width';
import { cellText, cellValue, chooseColumns, valuesOnly } from './columns.js';
import { sanitize } from './sanitize.js';
import { parseIsoTime, relativeTime } from './time.js';

export interface TableOptions {
  /** The resource's default columns, shown after publicId when present. */
  defaults: readonly string[];
  fields?: readonly string[];
  /** Terminal width in columns. */
  width: number;
  color: boolean;
  /** For relative times, ms since the epoch. */
  now: number;
}

/** Spaces between two columns. */
const GAP = 2;
/** No column is cut narrower than this, even when the terminal is narrower than the table. */
const MIN_WIDTH = 3;

const NO_BORDER = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: ' '.repeat(GAP),
};

const STATUS_COLORS: Record<string, 'green' | 'yellow' | 'red' | 'dim'> = {
  running: 'green', active: 'green', succeeded: 'green', success: 'green', ready: 'green', healthy: 'green', issued: 'green', verified: 'green',
  pending: 'yellow', pending_verification: 'yellow', building: 'yellow', deploying: 'yellow', queued: 'yellow', starting: 'yellow', provisioning: 'yellow', in_progress: 'yellow',
  failed: 'red', error: 'red', errored: 'red', crashed: 'red', unhealthy: 'red',
  stopped: 'dim', sleeping: 'dim', canceled: 'dim', cancelled: 'dim',
};

/** The display width of `text`: CJK and emoji take two columns. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

let segmenter: Intl.Segmenter | undefined;

/** `text` cut to at most `width` columns, ending in "…" when cut; never splits a character. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const parts: string[] = [];
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    used += displayWidth(segment);
    if (used > width - 1) break;
    parts.push(segment);
  }
  // Widths of the parts may not add up to the width of the whole (emoji sequences).
  while (parts.length > 0 && displayWidth(`${parts.join('')}…`) > width) parts.pop();
  return `${parts.join('')}…`;
}

/** One line, with nothing a terminal would act on. Property names come from the API too. */
function oneLine(text: string): string {
  return sanitize(text.replace(/[\t\n\r\v\f]+/g, ' '));
}

/** "publicId" → "PUBLIC ID", "team.name" → "TEAM.NAME". */
export function headerOf(column: string): string {
  return oneLine(column.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toUpperCase());
}

/** A cell's text: times relative, nested values as JSON. */
function displayText(value: unknown, now: number): string {
  if (typeof value === 'string') {
    const ms = parseIsoTime(value);
    if (ms !== undefined) return relativeTime(ms, now);
  }
  return oneLine(cellText(value));
}

/**
 * Column widths that fit `available` (the width minus the gaps): columns narrower than an
 * equal share keep their width, the rest share what is left. An ID or status is rarely cut.
 */
export function fitWidths(natural: readonly number[], available: number): number[] {
  const widths = [...natural];
  if (natural.reduce((a, b) => a + b, 0) <= available) return widths;
  let open = natural.map((_, i) => i);
  let left = available;
  for (;;) {
    const share = Math.floor(left / Math.max(open.length, 1));
    const fitting = open.filter((i) => (natural[i] ?? 0) <= share);
    if (fitting.length === 0 || open.length === 0) break;
    for (const i of fitting) left -= natural[i] ?? 0;
    open = open.filter((i) => !fitting.includes(i));
  }
  const base = Math.floor(left / Math.max(open.length, 1));
  const extra = left - base * open.length;
  open.forEach((i, n) => {
    widths[i] = Math.max(MIN_WIDTH, base + (n < extra ? 1 : 0));
  });
  return widths;
}

export function renderTable(rows: readonly unknown[], opts: TableOptions): string {
  if (rows.length === 0) return '';
  const width = Math.max(opts.width, MIN_WIDTH);
  if (valuesOnly(rows)) {
    return rows.map((row) => `${truncate(displayText(row, opts.now), width)}\n`).join('');
  }
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const choice = chooseColumns(rows, opts.defaults, opts.fields);
  const candidates = [...choice.fixed, ...choice.optional];
  const texts = rows.map((row) => candidates.map((c) => displayText(cellValue(row, c), opts.now)));
  const natural = candidates.map((c, i) => texts.reduce((w, cells) => Math.max(w, displayWidth(cells[i] ?? '')), displayWidth(headerOf(c))));

  // Fixed columns always; then optional ones in order, until the first that does not fit.
  const shown: number[] = choice.fixed.map((_, i) => i);
  let used = shown.reduce((sum, i) => sum + (natural[i] ?? 0), 0) + GAP * Math.max(shown.length - 1, 0);
  for (let i = choice.fixed.length; i < candidates.length; i++) {
    const w = natural[i] ?? 0;
    const extra = shown.length === 0 ? w : GAP + w;
    if (shown.length > 0 && used + extra > width) break;
    shown.push(i);
    used += extra;
  }

  const widths = fitWidths(
    shown.map((i) => natural[i] ?? 0),
    width - GAP * (shown.length - 1),
  );
  const table = new Table({
    head: shown.map((i, n) => chalk.bold(truncate(headerOf(candidates[i] ?? ''), widths[n] ?? 0))),
    chars: NO_BORDER,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
  });
  for (const cells of texts) {
    table.push(shown.map((i, n) => paint(chalk, candidates[i] ?? '', truncate(cells[i] ?? '', widths[n] ?? 0))));
  }
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}

function paint(chalk: ChalkInstance, column: string, text: string): string {
  if (column !== 'status' && column !== 'state' && !column.endsWith('.status')) return text;
  // Own keys only: a status of "constructor" or "__proto__" would otherwise find Object's.
  const key = text.toLowerCase();
  const color = Object.hasOwn(STATUS_COLORS, key) ? STATUS_COLORS[key] : undefined;
  return color ? chalk[color](text) : text;
}

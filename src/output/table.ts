// The table people read (gh's table printer): aligned columns without borders, times as
// "3 days ago", references as "name (ID)", colour only when allowed. Columns have
// priorities: publicId (never cut), the resource's declared columns, then the rest; on a
// narrow terminal the lowest go first, then long cells are cut with "…". The layout is
// linear in the rows (one pass to measure, one to write): cli-table3's is quadratic, 13 s
// for 10,000 rows. Only this file and detail.ts load chalk and string-width; format.ts
// imports them lazily, so json, ndjson and tsv output never pay for them.

import { Chalk, type ChalkInstance } from 'chalk';
import stringWidth from 'string-width';
import { cellText, cellValue, chooseColumns, isLongHex, referenceId, referenceName, referenceText, valuesOnly, type NameLookup } from './columns.js';
import { sanitize } from './sanitize.js';
import { parseIsoTime, relativeTime } from './time.js';

export interface TableOptions {
  /** The resource's default columns, shown after publicId, in priority order. */
  defaults: readonly string[];
  fields?: readonly string[];
  /** Terminal width in columns. */
  width: number;
  color: boolean;
  /** Accessible output: columns separated by " | " rather than by alignment alone. */
  plain?: boolean;
  /** For relative times, ms since the epoch. */
  now: number;
  /** Names of public IDs seen before, for references given as a bare ID. */
  names?: NameLookup;
  /** The fields that name an object (resources.ts NAME_FIELDS). */
  nameFields?: readonly string[];
}

/** Spaces between two columns. */
const GAP = 2;
/** No column is cut narrower than this, even when the terminal is narrower than the table. */
const MIN_WIDTH = 3;
/** A long cell is cut to no less than this before its column is dropped instead. */
const MIN_CUT = 10;

const STATUS_COLORS: Record<string, 'green' | 'yellow' | 'red' | 'dim'> = {
  running: 'green', active: 'green', succeeded: 'green', success: 'green', ready: 'green', healthy: 'green', issued: 'green', verified: 'green',
  pending: 'yellow', pending_verification: 'yellow', building: 'yellow', deploying: 'yellow', queued: 'yellow', starting: 'yellow', provisioning: 'yellow', in_progress: 'yellow',
  failed: 'red', error: 'red', errored: 'red', crashed: 'red', unhealthy: 'red',
  stopped: 'dim', sleeping: 'dim', canceled: 'dim', cancelled: 'dim',
};

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The display width of `text`: CJK and emoji take two columns. */
export function displayWidth(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text);
}

let segmenter: Intl.Segmenter | undefined;

/** `text` cut to at most `width` columns, ending in "…" when cut; never splits a character. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  if (PRINTABLE_ASCII.test(text)) return `${text.slice(0, width - 1)}…`;
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
export function oneLine(text: string): string {
  return sanitize(text.replace(/[\t\n\r\v\f]+/g, ' '));
}

/** "publicId" → "PUBLIC ID", "team.name" → "TEAM.NAME". */
export function headerOf(column: string): string {
  return oneLine(column.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toUpperCase());
}

/** The ID of a reference cell ("Acme (te-1)" → "te-1"), shown alone when the cell must be cut. */
type Fallbacks = Map<string, string>;

/** How a table shows one value: times relative, references as "name (ID)", digests short. */
export function displayText(value: unknown, column: string, opts: Pick<TableOptions, 'now' | 'names' | 'nameFields'>, fallbacks?: Fallbacks): string {
  if (typeof value === 'string') {
    const ms = parseIsoTime(value);
    if (ms !== undefined) return relativeTime(ms, opts.now);
    if (column === 'publicId' || column.endsWith('.publicId')) return oneLine(value);
    const name = opts.names?.(value);
    if (name !== undefined) {
      const text = oneLine(referenceText(value, name));
      fallbacks?.set(text, oneLine(value));
      return text;
    }
    if (isLongHex(value)) return value.slice(0, 7);
    return oneLine(value);
  }
  const ref = referenceId(value);
  if (ref !== undefined) {
    const text = oneLine(referenceText(ref, referenceName(value, opts.names, opts.nameFields ?? ['name'])));
    fallbacks?.set(text, oneLine(ref));
    return text;
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

function spanOf(widths: readonly number[]): number {
  return widths.reduce((a, b) => a + b, 0) + GAP * Math.max(widths.length - 1, 0);
}

/**
 * Which columns to show and how wide, in priority order. publicId keeps its width. Without
 * --fields, the lowest-priority columns go first: optional ones while the table is wider
 * than the terminal, then declared ones while even cells cut to MIN_CUT would not fit.
 */
export function layout(
  columns: readonly string[],
  natural: readonly number[],
  fixedCount: number,
  width: number,
  keepAll: boolean,
): { shown: number[]; widths: number[] } {
  const shown = columns.map((_, i) => i);
  // Whole unless it cannot fit the terminal at all (a value no ID would be).
  const keep = (i: number) => columns[i] === 'publicId' && (natural[i] ?? 0) <= width;
  const floor = (i: number) => (keep(i) ? (natural[i] ?? 0) : Math.min(natural[i] ?? 0, MIN_CUT));
  if (!keepAll) {
    const dropLast = (limit: (i: number) => number, stopAt: number) => {
      for (let n = shown.length - 1; n >= 0 && shown.length > 1; n--) {
        const i = shown[n] ?? 0;
        if (spanOf(shown.map(limit)) <= width || n < stopAt) break;
        if (!keep(i)) shown.splice(n, 1);
      }
    };
    dropLast((i) => natural[i] ?? 0, fixedCount);
    dropLast(floor, 0);
  }
  const ids = shown.filter(keep);
  const idWidth = ids.reduce((sum, i) => sum + (natural[i] ?? 0), 0);
  const rest = shown.filter((i) => !keep(i));
  const shared = fitWidths(
    rest.map((i) => natural[i] ?? 0),
    width - idWidth - GAP * Math.max(shown.length - 1, 0),
  );
  const widths = shown.map((i) => (keep(i) ? (natural[i] ?? 0) : (shared[rest.indexOf(i)] ?? MIN_WIDTH)));
  return { shown, widths };
}

export function renderTable(rows: readonly unknown[], opts: TableOptions): string {
  if (rows.length === 0) return '';
  const width = Math.max(opts.width, MIN_WIDTH);
  if (valuesOnly(rows)) {
    return rows.map((row) => `${truncate(displayText(row, '', opts), width)}\n`).join('');
  }
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const choice = chooseColumns(rows, opts.defaults, opts.fields);
  const candidates = [...choice.fixed, ...choice.optional];
  const natural = candidates.map((c) => displayWidth(headerOf(c)));
  const texts: string[][] = new Array<string[]>(rows.length);
  const fallbacks: Fallbacks = new Map();
  for (let r = 0; r < rows.length; r++) {
    const cells = new Array<string>(candidates.length);
    for (let c = 0; c < candidates.length; c++) {
      const column = candidates[c] ?? '';
      const text = displayText(cellValue(rows[r], column), column, opts, fallbacks);
      cells[c] = text;
      const w = displayWidth(text);
      if (w > (natural[c] ?? 0)) natural[c] = w;
    }
    texts[r] = cells;
  }

  // A plain separator is one column wider than the gap: the layout leaves room for it.
  const { shown, widths } = layout(candidates, natural, choice.fixed.length, opts.plain ? width - (candidates.length - 1) : width, Boolean(opts.fields?.length));
  const line = (cells: readonly string[], style: (column: string, text: string) => string) => {
    let out = '';
    for (let n = 0; n < shown.length; n++) {
      const i = shown[n] ?? 0;
      const w = widths[n] ?? 0;
      const full = cells[i] ?? '';
      // A reference too wide for its cell keeps its ID whole, without the name, if it can.
      const id = fallbacks.get(full);
      const text = truncate(id !== undefined && displayWidth(full) > w ? id : full, w);
      const last = n === shown.length - 1;
      out += style(candidates[i] ?? '', text);
      if (!last) out += opts.plain ? `${' '.repeat(w - displayWidth(text))} | ` : ' '.repeat(w - displayWidth(text) + GAP);
    }
    return `${out.trimEnd()}\n`;
  };
  const parts: string[] = [line(candidates.map(headerOf), (_c, t) => chalk.bold(t))];
  for (const cells of texts) parts.push(line(cells, (c, t) => paint(chalk, c, t)));
  return parts.join('');
}

function paint(chalk: ChalkInstance, column: string, text: string): string {
  if (column !== 'status' && column !== 'state' && !column.endsWith('.status')) return text;
  // Own keys only: a status of "constructor" or "__proto__" would otherwise find Object's.
  const key = text.toLowerCase();
  const color = Object.hasOwn(STATUS_COLORS, key) ? STATUS_COLORS[key] : undefined;
  return color ? chalk[color](text) : text;
}

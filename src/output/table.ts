// The table people read (gh's table printer): aligned columns without borders, times as
// "3 days ago", references as "name (ID)", colour only when allowed. Columns have
// priorities: publicId, the resource's declared columns, then the rest; on a narrow
// terminal the lowest go first (the name last), then long cells are cut with "…". No
// public ID is ever cut: a reference column is dropped instead. The layout is
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
  /** Columns that hold references to other objects (a resource's relations), bare IDs included. */
  references?: readonly string[];
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

/** One cell: its text, and for a reference its bare public ID (the form shown when names do not fit). */
interface Cell {
  readonly text: string;
  readonly id?: string;
}

/** How a table shows one value: times relative, references as "name (ID)", digests short. */
function displayText(value: unknown, column: string, opts: Pick<TableOptions, 'now' | 'names' | 'nameFields'>): string {
  return cellOf(value, column, opts, false).text;
}

function cellOf(value: unknown, column: string, opts: Pick<TableOptions, 'now' | 'names' | 'nameFields'>, reference: boolean): Cell {
  if (typeof value === 'string') {
    const ms = parseIsoTime(value);
    if (ms !== undefined) return { text: relativeTime(ms, opts.now) };
    if (isIdColumn(column)) return { text: oneLine(value), id: oneLine(value) };
    const name = opts.names?.(value);
    if (name !== undefined) return { text: oneLine(referenceText(value, name)), id: oneLine(value) };
    // A declared reference column holds IDs, whatever they look like.
    if (reference) return { text: oneLine(value), id: oneLine(value) };
    if (isLongHex(value)) return { text: value.slice(0, 7) };
    return { text: oneLine(value) };
  }
  const ref = referenceId(value);
  if (ref !== undefined) {
    return { text: oneLine(referenceText(ref, referenceName(value, opts.names, opts.nameFields ?? ['name']))), id: oneLine(ref) };
  }
  return { text: oneLine(cellText(value)) };
}

function isIdColumn(column: string): boolean {
  return column === 'publicId' || column.endsWith('.publicId');
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

/** What layout() needs to know of the columns beyond their widths. */
export interface ColumnRoles {
  /** Columns of public IDs (publicId, references): never cut; a reference column is dropped instead. */
  readonly ids?: ReadonlySet<number>;
  /** The column that names the object: the last to go. */
  readonly name?: number;
}

/**
 * Which columns to show and how wide, in priority order. An ID column keeps its width
 * (gh keeps the number and cuts the title). Without --fields, columns go while the table
 * is wider than the terminal: first the optional ones, lowest first; then, while even
 * cells cut to MIN_CUT would not fit, the declared ones that are neither IDs nor the
 * name, lowest first; then the reference columns (before their IDs would be cut); the
 * name last. publicId stays. What is left of the width goes to the columns that are cut.
 */
export function layout(
  columns: readonly string[],
  natural: readonly number[],
  fixedCount: number,
  width: number,
  keepAll: boolean,
  roles: ColumnRoles = {},
): { shown: number[]; widths: number[] } {
  const shown = columns.map((_, i) => i);
  const isId = (i: number) => columns[i] === 'publicId' || roles.ids?.has(i) === true;
  // Whole unless it cannot fit the terminal at all (a value no ID would be).
  const keep = (i: number) => isId(i) && (natural[i] ?? 0) <= width;
  const floor = (i: number) => (keep(i) ? (natural[i] ?? 0) : Math.min(natural[i] ?? 0, MIN_CUT));
  if (!keepAll) {
    const drop = (order: readonly number[], limit: (i: number) => number) => {
      for (const i of order) {
        if (shown.length <= 1 || spanOf(shown.map(limit)) <= width) return;
        shown.splice(shown.indexOf(i), 1);
      }
    };
    const byPriority = (test: (i: number) => boolean) => shown.filter((i) => test(i)).reverse();
    drop(byPriority((i) => i >= fixedCount), (i) => natural[i] ?? 0);
    drop(
      [
        ...byPriority((i) => !isId(i) && i !== roles.name),
        ...byPriority((i) => isId(i) && columns[i] !== 'publicId' && i !== roles.name),
        ...byPriority((i) => i === roles.name && columns[i] !== 'publicId'),
      ],
      floor,
    );
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
  const declared = new Set(opts.references ?? []);
  const headers = candidates.map(headerOf);
  // Per column: the widths of its cells as shown, and of its references as bare IDs.
  const natural = headers.map(displayWidth);
  const bare = [...natural];
  const cells: Cell[][] = new Array<Cell[]>(rows.length);
  // A column names its references only when every one has a name: one form per column.
  const reference = candidates.map(() => false);
  const everyNamed = candidates.map(() => true);
  for (let r = 0; r < rows.length; r++) {
    const row = new Array<Cell>(candidates.length);
    for (let c = 0; c < candidates.length; c++) {
      const column = candidates[c] ?? '';
      const cell = cellOf(cellValue(rows[r], column), column, opts, declared.has(column));
      row[c] = cell;
      if (cell.id !== undefined) reference[c] = true;
      if (cell.text !== '' && (cell.id === undefined || cell.id === cell.text)) everyNamed[c] = false;
      natural[c] = Math.max(natural[c] ?? 0, displayWidth(cell.text));
      bare[c] = Math.max(bare[c] ?? 0, displayWidth(cell.id ?? cell.text));
    }
    cells[r] = row;
  }

  const ids = new Set(candidates.flatMap((c, i) => (reference[i] || isIdColumn(c) ? [i] : [])));
  const nameIndex = candidates.findIndex((c) => (opts.nameFields ?? ['name']).includes(c));
  const roles: ColumnRoles = { ids, name: nameIndex >= 0 ? nameIndex : undefined };
  const keepAll = Boolean(opts.fields?.length);
  // A plain separator is one column wider than the gap: the layout leaves room for it.
  const fit = (widths: readonly number[]) => layout(candidates, widths, choice.fixed.length, opts.plain ? width - (candidates.length - 1) : width, keepAll, roles);
  const plain = candidates.map((_, c) => (ids.has(c) ? (bare[c] ?? 0) : (natural[c] ?? 0)));
  let chosen = fit(plain);
  const named = candidates.map((_, c) => (ids.has(c) && everyNamed[c] ? (natural[c] ?? 0) : (plain[c] ?? 0)));
  let useNames = false;
  // Names only where they cost nothing: every column still shown, none cut. Tried even when
  // no width changes: a "name (ID)" may fit within its header.
  const withNames = fit(named);
  const whole = (l: typeof chosen, widths: readonly number[]) => l.shown.length === candidates.length && l.shown.every((i, n) => l.widths[n] === widths[i]);
  if (whole(withNames, named)) {
    chosen = withNames;
    useNames = true;
  }
  const { shown, widths } = chosen;
  const textOf = (cell: Cell | undefined, c: number) => (cell === undefined ? '' : useNames && everyNamed[c] ? cell.text : (cell.id ?? cell.text));
  const line = (texts: readonly string[], style: (column: string, text: string) => string) => {
    let out = '';
    for (let n = 0; n < shown.length; n++) {
      const i = shown[n] ?? 0;
      const w = widths[n] ?? 0;
      const text = truncate(texts[i] ?? '', w);
      const last = n === shown.length - 1;
      out += style(candidates[i] ?? '', text);
      if (!last) out += opts.plain ? `${' '.repeat(w - displayWidth(text))} | ` : ' '.repeat(w - displayWidth(text) + GAP);
    }
    return `${out.trimEnd()}\n`;
  };
  const parts: string[] = [line(headers, (_c, t) => chalk.bold(t))];
  for (const row of cells) parts.push(line(row.map((cell, c) => (ids.has(c) ? textOf(cell, c) : cell.text)), (c, t) => paint(chalk, c, t)));
  return parts.join('');
}

function paint(chalk: ChalkInstance, column: string, text: string): string {
  if (column !== 'status' && column !== 'state' && !column.endsWith('.status')) return text;
  // Own keys only: a status of "constructor" or "__proto__" would otherwise find Object's.
  const key = text.toLowerCase();
  const color = Object.hasOwn(STATUS_COLORS, key) ? STATUS_COLORS[key] : undefined;
  return color ? chalk[color](text) : text;
}

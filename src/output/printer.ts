// What every printer is, and what every printer is given (a PrintJob): the objects
// cleaned and cut to --fields, a stdout writer that waits for 'drain', and the --fields
// warning. The printers themselves are in printers/, one per format; format.ts picks one.

import type { OutputFormat } from '../config/config.js';
import type { IO } from '../io.js';
import type { NameLookup } from './columns.js';
import { fieldValue, pickFields } from './fields.js';
import { isRecord } from '../json/narrow.js';
import { stripJsonLd } from './json.js';

export interface PrinterOptions {
  io: IO;
  format: OutputFormat;
  /** --fields: only these properties, in this order, in every format. */
  fields?: readonly string[];
  /** The resource's default columns (table and tsv), in priority order after publicId. */
  columns?: readonly string[];
  /** The clock for relative times; for tests. */
  now?: () => number;
  /** --jq: run this jq expression over the JSON output instead of printing it. */
  jq?: string;
  /** Names of public IDs seen before, for references (tables and the detail view). */
  names?: NameLookup;
  /** Columns of references to other objects (the resource's relations): tables never cut their IDs. */
  references?: readonly string[];
  /**
   * Known up front: a `list` lets json stream as an array. Without it the shape is given
   * to end(), and json waits for it.
   */
  shape?: 'list' | 'single';
}

export interface Printer {
  /** One page of objects. Resolves once stdout has taken them (back-pressure). */
  add(items: readonly unknown[]): Promise<void>;
  /**
   * Writes what was kept. `single`: the caller asked for one object (json prints it, not
   * an array of one; a single array is printed as its rows in table and tsv; one object
   * on a terminal in table format is the detail view); `list`: an array, `[]` when empty.
   * Table and tsv print nothing for no rows.
   */
  end(shape: 'list' | 'single'): Promise<void>;
}

/** What a printer is given. */
export interface PrintJob {
  readonly opts: PrinterOptions;
  readonly io: IO;
  /** --fields, when given (undefined for none). */
  readonly fields: readonly string[] | undefined;
  /** An object as printed: JSON-LD keys gone, cut to --fields. */
  prepare(item: unknown): unknown;
  /** Writes to stdout; resolves at once unless stdout asked to wait ('drain'). */
  write(text: string): Promise<void>;
  /** Warns once the objects are all seen, if --fields named a field none of them has. */
  warnFields(): void;
}

export type MakePrinter = (job: PrintJob) => Printer | Promise<Printer>;

function writer(io: IO): (text: string) => Promise<void> {
  const out = io.stdout;
  return (text) => {
    if (!text || out.write(text)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        out.off('error', done);
        resolve();
      };
      out.on('drain', done);
      out.on('close', done);
      out.on('error', done);
    });
  };
}

/**
 * Notes which of `fields` some object has, and the fields the objects do have, for the
 * warning at the end: `--fields nosuch` would otherwise print blank cells and exit 0.
 */
class FieldCheck {
  private readonly missing: Set<string>;
  private readonly seen = new Set<string>();
  private objects = 0;

  constructor(fields: readonly string[]) {
    this.missing = new Set(fields);
  }

  note(item: unknown): void {
    if (Array.isArray(item)) {
      for (const el of item) this.note(el);
      return;
    }
    if (!isRecord(item)) return;
    this.objects++;
    if (this.seen.size < 200) for (const key of Object.keys(item)) this.seen.add(key);
    for (const f of this.missing) if (fieldValue(item, f) !== undefined) this.missing.delete(f);
  }

  warning(): string | undefined {
    if (this.objects === 0 || this.missing.size === 0) return undefined;
    const names = [...this.missing].map((f) => `"${f}"`).join(', ');
    const there = [...this.seen].join(', ');
    return `--fields: no object has ${names}; the objects have: ${there || 'no fields'}.`;
  }
}

export function printJob(opts: PrinterOptions): PrintJob {
  const fields = opts.fields && opts.fields.length > 0 ? opts.fields : undefined;
  const check = fields ? new FieldCheck(fields) : undefined;
  return {
    opts,
    io: opts.io,
    fields,
    prepare: (item) => {
      const clean = stripJsonLd(item);
      check?.note(clean);
      return fields ? pickFields(clean, fields) : clean;
    },
    write: writer(opts.io),
    warnFields: () => {
      const text = check?.warning();
      if (text) opts.io.warn(text);
    },
  };
}

/** A printer that keeps every object until end() (a table is measured whole; json of one object waits for the shape). */
export function keeping(job: PrintJob, end: (kept: unknown[], shape: 'list' | 'single') => Promise<void>): Printer {
  const kept: unknown[] = [];
  return {
    async add(items) {
      for (const item of items) kept.push(job.prepare(item));
    },
    async end(shape) {
      job.warnFields();
      await end(kept, shape);
    },
  };
}

/** The one object asked for (`single`), if one came. */
export function onlyOne(kept: readonly unknown[], shape: 'list' | 'single'): unknown {
  return shape === 'single' && kept.length === 1 ? kept[0] : undefined;
}

/** The rows of what was kept: a single array is printed as its rows. */
export function rowsOf(kept: readonly unknown[], shape: 'list' | 'single'): readonly unknown[] {
  const one = onlyOne(kept, shape);
  return one !== undefined && Array.isArray(one) ? (one as unknown[]) : kept;
}

// The one output layer (kubectl's printers, doctl's displayers): commands hand over the
// objects they fetched, page by page, and this picks how they reach stdout. Nothing but
// data is written here; notes such as "No apps found." are the caller's, on stderr, and
// so is the one warning this layer gives (--fields naming a field no object has).
//
// ndjson, tsv and a json list are written as pages arrive, waiting for 'drain' when stdout
// is full, so memory stays flat however long the walk; the table measures every row
// first, so it keeps the objects until end(). --jq hands each page to jq's worker as it
// arrives (jq needs its whole input before it starts), and writes jq's output as it comes.

import type { OutputFormat } from '../config/config.js';
import type { IO } from '../io.js';
import { NAME_FIELDS } from '../resources.js';
import type { NameLookup } from './columns.js';
import { fieldValue, pickFields } from './fields.js';
import { isRecord } from '../json/narrow.js';
import { stringifyJson, stripJsonLd } from './json.js';
import { sanitize } from './sanitize.js';
import { tsvWriter } from './tsv.js';

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

/** Writes to stdout; resolves at once unless stdout asked to wait ('drain'). */
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

type TableModule = typeof import('./table.js');
type DetailModule = typeof import('./detail.js');

/** Async because the table format loads its modules (chalk, string-width) and --jq its engine only when used. */
export async function createPrinter(opts: PrinterOptions): Promise<Printer> {
  const fields = opts.fields && opts.fields.length > 0 ? opts.fields : undefined;
  const check = fields ? new FieldCheck(fields) : undefined;
  const prepare = (item: unknown): unknown => {
    const clean = stripJsonLd(item);
    check?.note(clean);
    return fields ? pickFields(clean, fields) : clean;
  };
  const { io, format } = opts;
  const write = writer(io);
  const warnFields = () => {
    const text = check?.warning();
    if (text) io.warn(text);
  };

  if (opts.jq !== undefined) {
    const jq = await import('./jq.js');
    const run = await jq.startJq(opts.jq);
    // The input is the JSON text --json would print (exact numbers), handed to jq page by
    // page; its output is written as it comes.
    let count = 0;
    return {
      async add(items) {
        count += items.length;
        try {
          run.add(items.map((item) => stringifyJson(prepare(item))));
        } catch (err) {
          run.stop();
          throw err;
        }
      },
      async end(shape) {
        warnFields();
        // Raw strings, as jq -r; on a terminal nothing in them may act on it, so only whole
        // lines are cleaned (a batch may end inside an escape sequence).
        let partial = '';
        const clean = (text: string): string => {
          if (!io.stdoutIsTTY) return text;
          const whole = partial + text;
          const cut = whole.lastIndexOf('\n') + 1;
          partial = whole.slice(cut);
          return whole
            .slice(0, cut)
            .split('\n')
            .map((line) => line.split('\t').map((cell) => sanitize(cell)).join('\t'))
            .join('\n');
        };
        const gone = () => io.stdout.destroyed || io.stdout.writableEnded;
        await run.finish(shape === 'single' && count === 1, async (text) => {
          await write(clean(text));
          return !gone();
        });
        if (partial) await write(partial.split('\t').map((cell) => sanitize(cell)).join('\t'));
      },
    };
  }

  if (format === 'ndjson') {
    return {
      async add(items) {
        let out = '';
        for (const item of items) out += `${stringifyJson(prepare(item))}\n`;
        await write(out);
      },
      async end() {
        warnFields();
      },
    };
  }

  if (format === 'tsv' && opts.shape === 'list') {
    const rows = tsvWriter(opts.columns ?? [], fields);
    return {
      add: (items) => write(rows(items.map(prepare))),
      async end() {
        warnFields();
      },
    };
  }

  if (format === 'json' && opts.shape === 'list') {
    let started = false;
    return {
      async add(items) {
        let out = '';
        for (const item of items) {
          // Indented as stringifyJson(list, 2) would: JSON text has no raw newline in strings.
          out += `${started ? ',\n' : '[\n'}  ${stringifyJson(prepare(item), 2).replace(/\n/g, '\n  ')}`;
          started = true;
        }
        await write(out);
      },
      async end() {
        await write(started ? '\n]\n' : '[]\n');
        warnFields();
      },
    };
  }

  const table: TableModule | undefined = format === 'table' ? await import('./table.js') : undefined;
  const kept: unknown[] = [];
  return {
    async add(items) {
      for (const item of items) kept.push(prepare(item));
    },
    async end(shape) {
      warnFields();
      if (format === 'json') {
        const value = shape === 'single' && kept.length === 1 ? kept[0] : kept;
        await write(`${stringifyJson(value, 2)}\n`);
        return;
      }
      const defaults = opts.columns ?? [];
      const now = (opts.now ?? Date.now)();
      const one = shape === 'single' && kept.length === 1 ? kept[0] : undefined;
      if (table && io.stdoutIsTTY && isRecord(one)) {
        const detail: DetailModule = await import('./detail.js');
        await write(detail.renderDetail(one, { width: io.columns, color: io.color, now, names: opts.names, nameFields: NAME_FIELDS }));
        return;
      }
      const rows = one !== undefined && Array.isArray(one) ? (one as unknown[]) : kept;
      const text = table
        ? table.renderTable(rows, { defaults, fields, width: io.columns, color: io.color, plain: io.accessible, now, names: opts.names, nameFields: NAME_FIELDS, references: opts.references })
        : tsvWriter(defaults, fields)(rows);
      await write(text);
    },
  };
}

/** What a command needs of its context to print through this layer. */
export interface OutputContext {
  io: IO;
  opts: { json?: boolean; output?: string; fields?: string; jq?: string };
  outputFormat(): OutputFormat;
  fields(): string[] | undefined;
}

/**
 * For commands that print a text of their own by default (`auth status`, `config list`):
 * a printer once the user asks for data (--json, -o, --fields or --jq), so that these
 * work there as everywhere; undefined otherwise. Called before any request, so that a bad
 * --jq sends nothing.
 */
export async function dataPrinter(ctx: OutputContext, columns?: readonly string[]): Promise<Printer | undefined> {
  const { json, output, fields, jq } = ctx.opts;
  if (json !== true && output === undefined && fields === undefined && jq === undefined) return undefined;
  return createPrinter({ io: ctx.io, format: ctx.outputFormat(), fields: ctx.fields(), columns, jq });
}

// The one output layer (kubectl's printers, doctl's displayers): commands hand over the
// objects they fetched, page by page, and this picks how they reach stdout. Nothing but
// data is written here; notes such as "No apps found." are the caller's, on stderr.

import type { OutputFormat } from '../config/config.js';
import type { IO } from '../io.js';
import { pickFields } from './fields.js';
import { stringifyJson, stripJsonLd } from './json.js';
import { renderTsv } from './tsv.js';

export interface PrinterOptions {
  io: IO;
  format: OutputFormat;
  /** --fields: only these properties, in this order, in every format. */
  fields?: readonly string[];
  /** The resource's default columns (table and tsv), shown after publicId when present. */
  columns?: readonly string[];
  /** The clock for relative times; for tests. */
  now?: () => number;
}

export interface Printer {
  /** One page of objects. ndjson writes them at once; the other formats keep them until end(). */
  add(items: readonly unknown[]): void;
  /**
   * Writes what was kept. `single`: the caller asked for one object (json prints it, not
   * an array of one; a single array is printed as its rows in table and tsv); `list`: an
   * array, `[]` when empty. Table and tsv print nothing for no rows.
   */
  end(shape: 'list' | 'single'): Promise<void>;
}

type RenderTable = typeof import('./table.js').renderTable;

/** Async because the table format loads its modules (cli-table3, chalk) only when used. */
export async function createPrinter(opts: PrinterOptions): Promise<Printer> {
  const fields = opts.fields && opts.fields.length > 0 ? opts.fields : undefined;
  const prepare = (item: unknown): unknown => {
    const clean = stripJsonLd(item);
    return fields ? pickFields(clean, fields) : clean;
  };
  const { io, format } = opts;

  if (format === 'ndjson') {
    return {
      add(items) {
        let out = '';
        for (const item of items) out += `${stringifyJson(prepare(item))}\n`;
        if (out) io.out(out);
      },
      async end() {},
    };
  }

  const renderTable: RenderTable | undefined = format === 'table' ? (await import('./table.js')).renderTable : undefined;
  const kept: unknown[] = [];
  return {
    add(items) {
      for (const item of items) kept.push(prepare(item));
    },
    async end(shape) {
      if (format === 'json') {
        const value = shape === 'single' && kept.length === 1 ? kept[0] : kept;
        io.out(`${stringifyJson(value, 2)}\n`);
        return;
      }
      const rows = shape === 'single' && kept.length === 1 && Array.isArray(kept[0]) ? (kept[0] as unknown[]) : kept;
      const defaults = opts.columns ?? [];
      const text = renderTable
        ? renderTable(rows, { defaults, fields, width: io.columns, color: io.color, now: (opts.now ?? Date.now)() })
        : renderTsv(rows, defaults, fields);
      if (text) io.out(text);
    },
  };
}

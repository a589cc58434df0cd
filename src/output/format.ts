// The one output layer (kubectl's printers, doctl's displayers): commands hand over the
// objects they fetched, page by page, and this picks how they reach stdout: one printer
// per format (printers/), looked up by the format. Nothing but data is written here;
// notes such as "No apps found." are the caller's, on stderr, and so is the one warning
// this layer gives (--fields naming a field no object has).
//
// ndjson, tsv and a json list are written as pages arrive, waiting for 'drain' when stdout
// is full, so memory stays flat however long the walk; the table measures every row
// first, so it keeps the objects until end(). --jq hands each page to jq's worker as it
// arrives (jq needs its whole input before it starts), and writes jq's output as it comes.

import type { OutputFormat } from '../config/config.js';
import type { IO } from '../io.js';
import { printJob, type MakePrinter, type Printer, type PrinterOptions } from './printer.js';
import { jsonPrinter } from './printers/json.js';
import { ndjsonPrinter } from './printers/ndjson.js';
import { tsvPrinter } from './printers/tsv.js';

export type { PrinterOptions };

const BY_FORMAT: Record<OutputFormat, MakePrinter> = {
  json: jsonPrinter,
  ndjson: ndjsonPrinter,
  tsv: tsvPrinter,
  // The table's modules (chalk, string-width) load only when a table is printed.
  table: async (job) => (await import('./printers/table.js')).tablePrinter(job),
};

/** Async because the table format loads its modules (chalk, string-width) and --jq its engine only when used. */
export async function createPrinter(opts: PrinterOptions): Promise<Printer> {
  const job = printJob(opts);
  if (opts.jq !== undefined) return (await import('./printers/jq.js')).jqPrinter(job, opts.jq);
  return BY_FORMAT[opts.format](job);
}

/** What a command needs of its context to print through this layer. */
export interface OutputContext {
  io: IO;
  opts: { output?: OutputFormat; fields?: string[]; jq?: string };
  outputFormat(): OutputFormat;
}

/**
 * For commands that print a text of their own by default (`auth status`, `config list`):
 * a printer once the user asks for data (--json, -o, --fields or --jq), so that these
 * work there as everywhere; undefined otherwise. Called before any request, so that a bad
 * --jq sends nothing.
 */
export async function dataPrinter(ctx: OutputContext, columns?: readonly string[]): Promise<Printer | undefined> {
  const { output, fields, jq } = ctx.opts;
  if (output === undefined && fields === undefined && jq === undefined) return undefined;
  return createPrinter({ io: ctx.io, format: ctx.outputFormat(), fields, columns, jq });
}

// The printer of `list` and `get`: the resource's columns, and references shown by the
// names seen before on this base URL.

import type { Context } from '../../context.js';
import type { Resource } from '../../resources.js';
import type { Printer } from '../../output/printer.js';

/** Names seen before on this base URL, for references shown as "name (ID)". */
function nameLookup(ctx: Context): (id: string) => string | undefined {
  const names = ctx.state().knownNames(ctx.baseUrl());
  return (id) => (Object.hasOwn(names, id) ? names[id] : undefined);
}

export async function printerFor(ctx: Context, resource: Resource, shape: 'list' | 'single'): Promise<Printer> {
  const { createPrinter } = await import('../../output/format.js');
  const format = ctx.outputFormat();
  return createPrinter({
    io: ctx.io,
    format,
    fields: ctx.opts.fields,
    // tsv writes exactly these, present or not; the table shows those present.
    columns: ['publicId', ...resource.columns],
    jq: ctx.opts.jq,
    names: format === 'table' ? nameLookup(ctx) : undefined,
    references: (resource.relations ?? []).map((r) => r.flag),
    shape: shape === 'list' ? 'list' : undefined,
  });
}

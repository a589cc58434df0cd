// `hostctl <resource> get`: its definition, and its run: one batched fetch of the IDs
// given, or round after round with --watch.

import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import type { Resource } from '../../resources.js';
import { idHint, idsArgument } from './by-id.js';
import { batchIds, checkIds, fetchByIds } from '../../core/by-id.js';
import { command, withContext, type OptionsOf } from '../define.js';
import { printerFor } from './printer.js';
import { Seen } from './seen.js';
import { WATCH, WATCH_INTERVAL } from './watch-flags.js';

function getDefinition(r: Resource) {
  return command('get')
    .alias('view')
    .description(`Show one or more ${r.description.toLowerCase()} by public ID (one request for all)`)
    .examples([`hostctl ${r.name} get ${idHint(r)}`, `hostctl ${r.name} get ${idHint(r)} ${idHint(r)} --json`, `hostctl ${r.name} get ${idHint(r)} --watch -o ndjson`])
    .seeAlso(['formatting', 'exit-codes'])
    .addArgument(idsArgument(r))
    .option('--watch', WATCH)
    .option('--interval <duration>', WATCH_INTERVAL);
}

type GetOptions = OptionsOf<typeof getDefinition>;

export function getCommand(r: Resource) {
  return getDefinition(r).action(withContext(async (ctx, [ids], opts) => getRun(ctx, r, ids, opts)));
}

async function getRun(ctx: Context, resource: Resource, rawIds: string[], opts: GetOptions = {}): Promise<void> {
  checkIds(resource, rawIds);
  const ids = [...new Set(rawIds)];

  const http = await ctx.http();
  const printer = await printerFor(ctx, resource, rawIds.length === 1 ? 'single' : 'list');
  if (opts.watch) {
    const { watchRun } = await import('./watch.js');
    return watchRun(ctx, resource, async () => {
      const found = await fetchByIds(http, resource, ids, { fresh: true });
      return ids.map((id) => found.get(id)).filter((item) => item !== undefined);
    }, { interval: opts.interval, shape: rawIds.length === 1 ? 'single' : 'list', requestsPerRound: () => batchIds(http.resolveUrl(resource.path).href.length, ids).length });
  }
  const spinner = await ctx.io.spinner(`Fetching ${ids.length === 1 ? resource.singular : resource.name}…`);
  const seen = new Seen(ctx);
  let found = new Map<string, unknown>();
  try {
    found = await fetchByIds(http, resource, ids);
  } finally {
    spinner.stop();
    seen.add(resource.name, [...found.values()]);
    seen.save();
  }

  const missing: string[] = [];
  for (const id of ids) {
    const item = found.get(id);
    if (item === undefined) missing.push(id);
    else await printer.add([item]);
  }
  if (found.size > 0) await printer.end(rawIds.length === 1 ? 'single' : 'list');
  if (missing.length > 0) {
    throw new NotFoundError(`not found: ${missing.join(', ')}`, `Run "hostctl ${resource.name} list" to see the ${resource.name} this token can see.`, { ids: missing });
  }
}

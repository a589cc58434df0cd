// `hostctl <resource> list`: its definition, and its run, one page (or every page) at a
// time, or round after round with --watch.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { findResource, type Resource } from '../../resources.js';
import { completes } from '../hints.js';
import { command, withContext, type OptionsOf } from '../define.js';
import type { HttpClient } from '../../http/client.js';
import type { PageRest } from '../../http/paging.js';
import type { Printer } from '../../output/printer.js';
import { FilterCost } from './filter-cost.js';
import { partialNote } from './partial-note.js';
import { printerFor } from './printer.js';
import { chosenRelation, filterWalk } from './relations.js';
import { directPath, type RelationFilter } from '../../core/relations.js';
import { keepListed } from '../../core/by-id.js';
import { Seen } from './seen.js';
import { shownPath } from '../../config/link.js';
import { WATCH, WATCH_INTERVAL } from './watch-flags.js';

function listDefinition(r: Resource) {
  const firstRelation = r.relations?.[0];
  return command('list')
    .alias('ls')
    .description(`List ${r.description.toLowerCase()} (first page unless --all)`)
    .examples([
      `hostctl ${r.name} list`,
      `hostctl ${r.name} list --all --json | jq -r '.[].publicId'`,
      `hostctl ${r.name} list --limit 5 --fields publicId,${r.columns[0] ?? 'name'}`,
      ...(firstRelation ? [`hostctl ${r.name} list --${firstRelation.flag} ${findResource(firstRelation.target)?.prefix ?? ''}…`] : []),
    ])
    .seeAlso(['formatting', 'rate-limit'])
    .addOption(new Option('--limit <n>', 'stop after N objects'))
    .addOption(new Option('--all', 'walk every page'))
    .option('--page <n>', 'show page N (from 1)')
    .option('--watch', WATCH)
    .option('--interval <duration>', WATCH_INTERVAL);
}

/** list's options; the relation flags (--app, --team, …) are the table's, read by name. */
type ListOptions = OptionsOf<typeof listDefinition> & Readonly<Record<string, string | boolean | undefined>>;

export function listCommand(r: Resource) {
  const list = listDefinition(r);
  for (const rel of r.relations ?? []) {
    const target = findResource(rel.target);
    const option = new Option(`--${rel.flag} <id>`, `only the ${r.name} of this ${target?.singular ?? rel.flag}${target?.prefix ? ` (${target.prefix}…)` : ''}`);
    list.addOption(completes(option, { ids: rel.target }));
  }
  if (r.relations?.some((rel) => rel.flag === 'app')) list.addOption(new Option('--all-apps', `every app's ${r.name}, in a linked directory too ("hostctl link")`));
  return list.action(withContext(async (ctx, _args, opts) => listRun(ctx, r, opts)));
}

function positiveInt(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new UsageError(`${flag} takes a whole number from 1 up, not "${raw}".`, `For example: ${flag} 10`);
  }
  return Number(raw);
}

/**
 * In a linked directory, a list that takes --app and was given no filter (nor --all-apps)
 * is of the linked app; a note on a terminal says so.
 */
function linkedFilter(ctx: Context, resource: Resource, opts: ListOptions): RelationFilter | undefined {
  const relation = resource.relations?.find((r) => r.flag === 'app');
  if (!relation) return undefined;
  if (opts.allApps === true) return undefined;
  const link = ctx.link();
  if (!link) return undefined;
  if (ctx.io.stdoutIsTTY && ctx.io.stderrIsTTY) ctx.io.note(`Only the ${resource.name} of ${link.app}, linked by ${shownPath(link.path)}; --all-apps lists every app's.`);
  return { relation, id: link.app };
}

/** What a list fetches, read off flags that were all checked before any request. */
interface ListPlan {
  limit?: number;
  page?: number;
  all: boolean;
  filter?: RelationFilter;
  /** A filter the API has no route for: the collection is walked (filterWalk). */
  walked: boolean;
  /** Where the pages are: the collection, or the filter's route. */
  path: string;
}

async function listRun(ctx: Context, resource: Resource, opts: ListOptions): Promise<void> {
  // Everything the user typed is checked before a request is sent, --jq included.
  const limit = positiveInt(opts.limit, '--limit');
  const page = positiveInt(opts.page, '--page');
  if (opts.allApps === true && typeof opts.app === 'string') throw new UsageError('Give --app or --all-apps, not both.', `For example: hostctl ${resource.name} list --all-apps`);
  const filter = chosenRelation(ctx, resource, opts) ?? linkedFilter(ctx, resource, opts);
  const direct = directPath(resource, filter);
  const walked = direct === undefined;
  if (filter && walked && page !== undefined) {
    throw new UsageError(`--page does not combine with --${filter.relation.flag}: the filter walks the whole collection.`, 'Use --limit N to stop early.');
  }
  const http = await ctx.http();
  const printer = await printerFor(ctx, resource, 'list');
  const plan: ListPlan = { limit, page, all: opts.all === true, filter, walked, path: direct ?? resource.path };
  if (opts.watch) return watchList(ctx, http, resource, plan, opts.interval);
  return printList(ctx, http, resource, printer, plan);
}

/** --watch: the same pages (or the same walk) every round, past the response cache. */
async function watchList(ctx: Context, http: HttpClient, resource: Resource, plan: ListPlan, interval: string | undefined): Promise<never> {
  const [{ walkPages }, { watchRun }] = await Promise.all([import('../../http/paging.js'), import('./watch.js')]);
  const { limit, page, filter } = plan;
  let requests = 1;
  return watchRun(
    ctx,
    resource,
    async () => {
      const all: unknown[] = [];
      const round = new FilterCost();
      const collect = async (items: readonly unknown[]) => {
        all.push(...items);
      };
      if (plan.walked && filter) {
        await filterWalk(ctx, http, resource, filter, { limit, cost: round, seen: new Seen(ctx), print: collect, spinnerText: () => undefined, fresh: true });
      } else {
        const counted = round.count(resource.name);
        for await (const items of walkPages(http, { path: plan.path, fresh: true }, { all: plan.all, limit, page, onResponse: counted })) all.push(...items);
      }
      requests = Math.max(1, round.total());
      return all;
    },
    { interval, shape: 'list', requestsPerRound: () => requests },
  );
}

/** One list: its pages printed as they come, the IDs seen kept, then the notes under it. */
async function printList(ctx: Context, http: HttpClient, resource: Resource, printer: Printer, plan: ListPlan): Promise<void> {
  const { walkPages } = await import('../../http/paging.js');
  const { limit, page, filter } = plan;
  const spinner = await ctx.io.spinner(`Fetching ${resource.name}…`);
  const seen = new Seen(ctx);
  const cost = new FilterCost();
  let count = 0;
  let rest: PageRest | undefined;

  const print = async (items: readonly unknown[]) => {
    count += items.length;
    seen.add(resource.name, items);
    await keepListed(http, resource, items);
    await printer.add(items);
  };

  try {
    if (plan.walked && filter) {
      await filterWalk(ctx, http, resource, filter, { limit, cost, seen, print, spinnerText: (t) => spinner.text(t) });
    } else {
      const pages = cost.count(resource.name);
      for await (const items of walkPages(http, { path: plan.path }, {
        all: plan.all,
        limit,
        page,
        onResponse: pages,
        onPage: (n, total, r) => {
          rest = r;
          spinner.text(`Fetching ${resource.name}… page ${n}, ${total} so far`);
        },
      })) {
        await print(items);
      }
    }
  } finally {
    spinner.stop();
    seen.save();
  }
  await printer.end('list');
  if (filter && ctx.opts.rateLimit) ctx.io.stderr.write(`${cost.line(filter.relation.flag, filter.id)}\n`);
  if (count === 0 && filter) {
    // Said in every format: an empty filter is most often a value that is no ID at all.
    const target = findResource(filter.relation.target);
    ctx.io.note(
      `No ${resource.name} reference the ${target?.singular ?? filter.relation.flag} ${filter.id}. --${filter.relation.flag} takes a public ID; "hostctl ${target?.name ?? filter.relation.target} list" shows them.`,
    );
  } else if (count === 0 && ctx.outputFormat() === 'table' && ctx.opts.jq === undefined) ctx.io.note(`No ${resource.name} found.`);
  if (!plan.walked && rest && !plan.all && limit === undefined && ctx.io.stdoutIsTTY) {
    const note = partialNote(resource, count, page ?? 1, rest);
    if (note) ctx.io.note(note);
  }
}


// `hostctl <resource> list|get|wait` for every resource in the table (src/resources.ts):
// one definition and one implementation, seven resources, and the relation filters
// (`environments list --app ap-…`) the table declares. wait is in wait.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { NotFoundError, UsageError } from '../errors.js';
import { findResource, NAME_FIELDS, type Relation, type Resource } from '../resources.js';
import { batchIds, checkIds, fetchByIds, idHint, idsArgument } from './by-id.js';
import { waitCommand } from './wait.js';
import { isRecord, publicIdOf } from '../json/narrow.js';
import { MAX_IDS, MAX_NAMES } from '../config/state.js';
import { completes } from '../help/hints.js';
import { hashes } from '../help/startup.js';
import { command, withContext, type HostctlCommand, type OptionsOf } from './define.js';
import type { ApiRequest, HttpClient } from '../http/client.js';
import type { PageRest } from '../http/paging.js';
import type { Printer } from '../output/format.js';

/** `hostctl <resource>` and its verbs, for one resource of the table. */
export function resourceCommand(r: Resource): HostctlCommand {
  const cmd = command(r.name)
    .description(`${r.description}: list, get and wait`)
    .examples([`hostctl ${r.name} list`, `hostctl ${r.name} get ${idHint(r)}`])
    .seeAlso(['formatting', 'exit-codes']);
  for (const alias of r.aliases) cmd.alias(alias);
  cmd.addCommand(listCommand(r));
  cmd.addCommand(getCommand(r));
  cmd.addCommand(waitCommand(r));
  return cmd;
}

const WATCH = 'fetch again every interval and print what changed, until Ctrl-C';
const WATCH_INTERVAL = 'with --watch: time between rounds (default 5s; longer when the budget needs it)';

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
    .addOption(hashes(new Option('--limit <n>', 'stop after N objects')))
    .addOption(hashes(new Option('--all', 'walk every page')))
    .option('--page <n>', 'show page N (from 1)')
    .option('--watch', WATCH)
    .option('--interval <duration>', WATCH_INTERVAL);
}

/** list's options; the relation flags (--app, --team, …) are the table's, read by name. */
export type ListOptions = OptionsOf<typeof listDefinition> & Readonly<Record<string, string | boolean | undefined>>;

function listCommand(r: Resource) {
  const list = listDefinition(r);
  for (const rel of r.relations ?? []) {
    const target = findResource(rel.target);
    const option = new Option(`--${rel.flag} <id>`, `only the ${r.name} of this ${target?.singular ?? rel.flag}${target?.prefix ? ` (${target.prefix}…)` : ''}`);
    list.addOption(completes(option, { ids: rel.target }));
  }
  return list.action(withContext(async (ctx, _args, opts) => listRun(ctx, r, opts)));
}

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

export type GetOptions = OptionsOf<typeof getDefinition>;

function getCommand(r: Resource) {
  return getDefinition(r).action(withContext(async (ctx, [ids], opts) => getRun(ctx, r, ids, opts)));
}

/**
 * `--app` through environments: at most this many environments are asked one by one by
 * the API's own route (one request each); more, and one walk of the whole collection is
 * likely cheaper.
 */
const MAX_ROUTE_CALLS = 3;

function positiveInt(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new UsageError(`${flag} takes a whole number from 1 up, not "${raw}".`, `For example: ${flag} 10`);
  }
  return Number(raw);
}

function nameOf(item: Record<string, unknown>): string | undefined {
  for (const f of NAME_FIELDS) {
    const v = item[f];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/**
 * Whether `item` references one of `ids` by value: a field equal to it, or a nested object
 * whose publicId is it (in arrays too), whatever the field is called. Its own publicId
 * does not count.
 */
export function references(item: unknown, ids: ReadonlySet<string>, depth = 0): boolean {
  if (typeof item === 'string') return depth > 0 && ids.has(item);
  if (Array.isArray(item)) return depth < 4 && item.some((el: unknown) => references(el, ids, depth + 1));
  if (!isRecord(item) || depth >= 4) return false;
  for (const [key, value] of Object.entries(item)) {
    if (key === 'publicId') {
      if (depth > 0 && typeof value === 'string' && ids.has(value)) return true;
      continue;
    }
    if (references(value, ids, depth + 1)) return true;
  }
  return false;
}

/**
 * Public IDs and names seen in this run, for completion and for showing references by
 * name later with no request. Written to the state once, at the end.
 */
class Seen {
  private readonly ids = new Map<string, string[]>();
  private readonly names = new Map<string, string>();
  private readonly fields = new Map<string, Set<string>>();

  constructor(private readonly ctx: Context) {}

  add(resource: string, items: readonly unknown[]): void {
    let list = this.ids.get(resource);
    if (!list) this.ids.set(resource, (list = []));
    let fields = this.fields.get(resource);
    if (!fields) this.fields.set(resource, (fields = new Set()));
    for (const item of items) {
      if (!isRecord(item)) continue;
      if (fields.size < 200) for (const key of Object.keys(item)) if (!key.startsWith('@')) fields.add(key);
      const id = publicIdOf(item);
      if (id === undefined) continue;
      // Newest first, as the state keeps them; only the first MAX_IDS are kept there.
      if (list.length < MAX_IDS) list.push(id);
      // The state keeps MAX_NAMES per base URL; a walk of 100,000 objects must not hold more.
      if (this.names.size >= MAX_NAMES) continue;
      const name = nameOf(item);
      if (name !== undefined) this.names.set(id, name);
      // A nested reference may carry its name: {"team": {"publicId": "te-1", "name": "Acme"}}.
      for (const value of Object.values(item)) {
        const ref = publicIdOf(value);
        const refName = ref !== undefined && isRecord(value) ? nameOf(value) : undefined;
        if (ref !== undefined && refName !== undefined) this.names.set(ref, refName);
      }
    }
  }

  save(): void {
    const base = this.ctx.baseUrl();
    const state = this.ctx.state();
    for (const [resource, ids] of this.ids) state.rememberIds(base, resource, ids);
    for (const [resource, fields] of this.fields) if (fields.size > 0) state.rememberFields(base, resource, [...fields]);
    if (this.names.size > 0) state.rememberNames(base, this.names);
  }
}

/** Names seen before on this base URL, for references shown as "name (ID)". */
function nameLookup(ctx: Context): (id: string) => string | undefined {
  const names = ctx.state().knownNames(ctx.baseUrl());
  return (id) => (Object.hasOwn(names, id) ? names[id] : undefined);
}

async function printerFor(ctx: Context, resource: Resource, shape: 'list' | 'single'): Promise<Printer> {
  const { createPrinter } = await import('../output/format.js');
  const format = ctx.outputFormat();
  return createPrinter({
    io: ctx.io,
    format,
    fields: ctx.fields(),
    // tsv writes exactly these, present or not; the table shows those present.
    columns: ['publicId', ...resource.columns],
    jq: ctx.opts.jq,
    names: format === 'table' ? nameLookup(ctx) : undefined,
    references: (resource.relations ?? []).map((r) => r.flag),
    shape: shape === 'list' ? 'list' : undefined,
  });
}

/**
 * A filter given the name of an object hostctl has seen instead of its ID
 * (`--team Marketing`): a usage error naming the ID, before any request, for every
 * relation alike. A value seen as an ID is left alone.
 */
function refuseKnownName(ctx: Context, relation: Relation, target: Resource, value: string): void {
  const base = ctx.baseUrl();
  const state = ctx.state();
  const ids = state.knownIds(base, target.name);
  if (ids.includes(value)) return;
  const names = state.knownNames(base);
  const wanted = value.toLowerCase();
  const meant = ids.filter((id) => Object.hasOwn(names, id) && names[id]?.toLowerCase() === wanted).slice(0, 3);
  if (meant.length === 0) return;
  throw new UsageError(
    `--${relation.flag} takes an ID: did you mean ${meant.map((id) => `${id} ("${names[id] ?? ''}")`).join(' or ')}?`,
    `Run "hostctl ${target.name} list" to see the IDs.`,
  );
}

/** The relation filter given, if any; two at once is a usage error. */
function chosenRelation(ctx: Context, resource: Resource, opts: ListOptions): { relation: Relation; id: string } | undefined {
  const given = (resource.relations ?? []).filter((r) => typeof opts[r.flag] === 'string');
  if (given.length > 1) {
    throw new UsageError(`Give only one of ${given.map((r) => `--${r.flag}`).join(', ')}.`, `For example: hostctl ${resource.name} list --${given[0]?.flag} …`);
  }
  const relation = given[0];
  if (!relation) return undefined;
  const id = String(opts[relation.flag]);
  const target = findResource(relation.target);
  if (target) {
    refuseKnownName(ctx, relation, target, id);
    checkIds(target, [id]);
  }
  return { relation, id };
}

/** Requests spent by a filter, per collection walked, for -R. */
class Cost {
  readonly walks: [string, number][] = [];

  /** A counter for one walk, called on every response (a page the walk then drops counts too). */
  count(what: string): () => void {
    const entry: [string, number] = [what, 0];
    this.walks.push(entry);
    return () => {
      entry[1]++;
    };
  }

  total(): number {
    return this.walks.reduce((sum, [, n]) => sum + n, 0);
  }

  line(flag: string, id: string): string {
    const total = this.total();
    const parts = this.walks.map(([what, n]) => `${what}: ${n}`);
    return `Filter --${flag} ${id}: ${total} ${total === 1 ? 'request' : 'requests'} (${parts.join(', ')})`;
  }
}

export async function listRun(ctx: Context, resource: Resource, opts: ListOptions): Promise<void> {
  // Everything the user typed is checked before a request is sent, --jq included.
  const limit = positiveInt(opts.limit, '--limit');
  const page = positiveInt(opts.page, '--page');
  const filter = chosenRelation(ctx, resource, opts);
  const walked = filter !== undefined && filter.relation.route === undefined;
  if (walked && page !== undefined) {
    throw new UsageError(`--page does not combine with --${filter.relation.flag}: the filter walks the whole collection.`, 'Use --limit N to stop early.');
  }
  const format = ctx.outputFormat();
  const http = await ctx.http();
  const printer = await printerFor(ctx, resource, 'list');
  const { walkPages } = await import('../http/paging.js');
  const listPath = filter ? (filter.relation.route ?? '').replace('{id}', encodeURIComponent(filter.id)) : resource.path;
  if (opts.watch) {
    let requests = 1;
    const { watchRun } = await import('./watch.js');
    return watchRun(
      ctx,
      resource,
      async () => {
        const all: unknown[] = [];
        const round = new Cost();
        const collect = async (items: readonly unknown[]) => {
          all.push(...items);
        };
        if (walked) {
          await filterWalk(ctx, http, resource, filter, { limit, cost: round, seen: new Seen(ctx), print: collect, spinnerText: () => undefined, fresh: true });
        } else {
          const counted = round.count(resource.name);
          for await (const items of walkPages(http, { path: listPath, fresh: true }, { all: opts.all === true, limit, page, onResponse: counted })) all.push(...items);
        }
        requests = Math.max(1, round.total());
        return all;
      },
      { interval: opts.interval, shape: 'list', requestsPerRound: () => requests },
    );
  }
  const spinner = await ctx.io.spinner(`Fetching ${resource.name}…`);
  const seen = new Seen(ctx);
  const cost = new Cost();
  let count = 0;
  let rest: PageRest | undefined;

  const print = async (items: readonly unknown[]) => {
    count += items.length;
    seen.add(resource.name, items);
    if (http.options.cache) await cacheObjects(http, resource, items);
    await printer.add(items);
  };

  try {
    if (!walked) {
      const pages = cost.count(resource.name);
      for await (const items of walkPages(http, { path: listPath }, {
        all: opts.all === true,
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
    } else {
      await filterWalk(ctx, http, resource, filter, { limit, cost, seen, print, spinnerText: (t) => spinner.text(t) });
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
  } else if (count === 0 && format === 'table' && ctx.opts.jq === undefined) ctx.io.note(`No ${resource.name} found.`);
  if (!walked && rest && opts.all !== true && limit === undefined && ctx.io.stdoutIsTTY) {
    const note = partialNote(resource, count, page ?? 1, rest);
    if (note) ctx.io.note(note);
  }
}

/** "Showing 30 of 108 apps. Use --all for every page, or --page 2." when there is more. */
export function partialNote(resource: Resource, count: number, page: number, rest: PageRest): string | undefined {
  const more = `Use --all for every page, or --page ${page + 1}.`;
  if (rest.total !== undefined && page === 1) return rest.total > count ? `Showing ${count} of ${rest.total} ${resource.name}. ${more}` : undefined;
  if (rest.next) return `Showing ${count} ${resource.name}; there are more. ${more}`;
  // A bare array says nothing of what follows; a page of a round size may well be full.
  if (rest.full && count >= 10 && (count % 10 === 0 || count % 25 === 0)) return `Showing ${count} ${resource.name}; there may be more. ${more}`;
  return undefined;
}

interface FilterRun {
  limit?: number;
  cost: Cost;
  seen: Seen;
  print: (items: readonly unknown[]) => Promise<void>;
  spinnerText: (text: string) => void;
  /** Past the response cache (--watch must see changes). */
  fresh?: boolean;
}

/**
 * A filter the API has no route for: walk the collection and keep the objects that
 * reference the ID. Through another resource (`deployments list --app`): first the
 * objects of that resource which reference the ID, then the objects referencing any of
 * them, by the API's route for that step where it has one and it is cheaper.
 */
async function filterWalk(ctx: Context, http: HttpClient, resource: Resource, filter: { relation: Relation; id: string }, run: FilterRun): Promise<void> {
  const [{ walkPages }, { waitForSlots }] = await Promise.all([import('../http/paging.js'), import('../http/budget.js')]);
  let ids = new Set([filter.id]);
  const through = filter.relation.through ? findResource(filter.relation.through) : undefined;
  const base = ctx.baseUrl();
  const known = (name: string) => ctx.state().knownIds(base, name).length;
  let foreseen = false;
  /**
   * After a walk's first page, once: when the rest of the walk (its size from the server's
   * total, or from the IDs seen before) needs more requests than the budget has left, one
   * line says how many and about how long the wait is.
   */
  const foresee = (what: string, items: number, rest: PageRest, later: readonly string[]) => {
    if (foreseen || run.fresh || items <= 0) return;
    foreseen = true;
    const size = rest.total ?? (rest.next || rest.full ? known(what) : items);
    let more = Math.max(0, Math.ceil(size / items) - 1);
    for (const name of later) more += Math.max(1, Math.ceil(known(name) / items));
    const left = http.budgetLeft();
    if (more === 0 || left === undefined || left >= more) return;
    const ms = waitForSlots(http.budgetSnapshot(), more, ctx.clock.now());
    if (ms === undefined || ms <= 0) return;
    ctx.io.note(
      `Filter --${filter.relation.flag} ${filter.id}: about ${more} more ${more === 1 ? 'request' : 'requests'} to walk ${[what, ...later].join(' and ')}; the budget has ${left} left, so this will wait about ${Math.ceil(ms / 1000)}s.`,
    );
  };
  const walk = async function* (what: string, req: ApiRequest, later: readonly string[] = []): AsyncGenerator<unknown[]> {
    const pages = run.cost.count(what);
    yield* walkPages(http, { ...req, fresh: run.fresh }, {
      all: true,
      onResponse: pages,
      onPage: (n, total, rest) => {
        if (n === 1) foresee(what, total, rest, later);
        run.spinnerText(`Looking through ${what}… page ${n}, ${total} so far`);
      },
    });
  };

  if (through) {
    const found = new Set<string>();
    for await (const items of walk(through.name, { path: through.path }, [resource.name])) {
      run.seen.add(through.name, items);
      for (const item of items) {
        const id = publicIdOf(item);
        if (id !== undefined && references(item, ids)) found.add(id);
      }
    }
    ids = found;
    if (ids.size === 0) return;
    const route = resource.relations?.find((r) => r.target === through.name && r.route)?.route;
    if (route && ids.size <= MAX_ROUTE_CALLS) {
      let count = 0;
      for (const id of ids) {
        for await (const items of walk(`${through.name}/${id}/${resource.name}`, { path: route.replace('{id}', encodeURIComponent(id)) })) {
          const kept = run.limit === undefined ? items : items.slice(0, run.limit - count);
          count += kept.length;
          await run.print(kept);
          if (run.limit !== undefined && count >= run.limit) return;
        }
      }
      return;
    }
  }

  let count = 0;
  for await (const items of walk(resource.name, { path: resource.path })) {
    let kept = items.filter((item) => references(item, ids));
    if (run.limit !== undefined) kept = kept.slice(0, run.limit - count);
    count += kept.length;
    if (kept.length > 0) await run.print(kept);
    // Leaving the loop ends the walk: no further page is fetched.
    if (run.limit !== undefined && count >= run.limit) return;
  }
}

/** Keeps the objects of a list page for `get --cache`. */
async function cacheObjects(http: HttpClient, resource: Resource, items: readonly unknown[]): Promise<void> {
  const { stringifyJson } = await import('../output/json.js');
  const objects = new Map<string, string>();
  for (const item of items) {
    const id = publicIdOf(item);
    if (id !== undefined) objects.set(id, stringifyJson(item));
  }
  await http.options.cache?.putObjects(resource.path, objects);
}

export async function getRun(ctx: Context, resource: Resource, rawIds: string[], opts: GetOptions = {}): Promise<void> {
  checkIds(resource, rawIds);
  const ids = [...new Set(rawIds)];

  const http = await ctx.http();
  const printer = await printerFor(ctx, resource, rawIds.length === 1 ? 'single' : 'list');
  if (opts.watch) {
    const { watchRun } = await import('./watch.js');
    return watchRun(ctx, resource, async () => {
      const found = await fetchByIds(http, resource, ids, true);
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

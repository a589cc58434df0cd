// The relation filters of `list` (`environments list --app ap-…`): which one was given,
// and the walk that answers it (src/core/relations.ts, shared with the MCP tool) with
// what a command shows of it: the spinner, the budget's forecast, -R's cost.

import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Relation, Resource } from '../../resources.js';
import type { HttpClient } from '../../http/client.js';
import type { PageRest } from '../../http/paging.js';
import type { FilterCost } from './filter-cost.js';
import type { Seen } from './seen.js';
import { relationFilter, type RelationFilter } from '../../core/relations.js';

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


/** The relation filter given, if any, of list's options; two at once is a usage error. */
export function chosenRelation(ctx: Context, resource: Resource, opts: Readonly<Record<string, string | boolean | undefined>>): RelationFilter | undefined {
  const given = Object.fromEntries((resource.relations ?? []).map((r) => [r.flag, opts[r.flag]]));
  return relationFilter(
    resource,
    given,
    { flag: (f) => `--${f}`, example: (f) => `hostctl ${resource.name} list --${f} …` },
    (relation, target, id) => refuseKnownName(ctx, relation, target, id),
  );
}

export interface FilterRun {
  limit?: number;
  cost: FilterCost;
  seen: Seen;
  print: (items: readonly unknown[]) => Promise<void>;
  spinnerText: (text: string) => void;
  /** Past the response cache (--watch must see changes). */
  fresh?: boolean;
}

/**
 * Before a walk must wait for the budget, once: after a walk's first page, when the rest
 * of it and the walks still to come (their size from the server's total, or from the IDs
 * seen before) need more requests than the budget has left, one line under `label` says
 * how many and about how long the wait is. A watch (`fresh`) says nothing.
 */
export async function budgetForecast(ctx: Context, http: HttpClient, label: string, fresh: boolean): Promise<(what: string, items: number, rest: PageRest, later: readonly string[]) => void> {
  const { waitForSlots } = await import('../../http/budget.js');
  const base = ctx.baseUrl();
  const known = (name: string) => ctx.state().knownIds(base, name).length;
  let foreseen = false;
  return (what, items, rest, later) => {
    if (foreseen || fresh || items <= 0) return;
    foreseen = true;
    const size = rest.total ?? (rest.next || rest.full ? known(what) : items);
    let more = Math.max(0, Math.ceil(size / items) - 1);
    for (const name of later) more += Math.max(1, Math.ceil(known(name) / items));
    const left = http.budgetLeft();
    if (more === 0 || left === undefined || left >= more) return;
    const ms = waitForSlots(http.budgetSnapshot(), more, ctx.clock.now());
    if (ms === undefined || ms <= 0) return;
    ctx.io.note(
      `${label}: about ${more} more ${more === 1 ? 'request' : 'requests'} to walk ${[what, ...later].join(' and ')}; the budget has ${left} left, so this will wait about ${Math.ceil(ms / 1000)}s.`,
    );
  };
}

/**
 * A filter the API has no route for: walk the collection and keep the objects that
 * reference the ID. Through another resource (`deployments list --app`): first the
 * objects of that resource which reference the ID, then the objects referencing any of
 * them, by the API's route for that step where it has one and it is cheaper.
 */
export async function filterWalk(ctx: Context, http: HttpClient, resource: Resource, filter: RelationFilter, run: FilterRun): Promise<void> {
  const { walk } = await import('../../core/relations.js');
  const foresee = await budgetForecast(ctx, http, `Filter --${filter.relation.flag} ${filter.id}`, run.fresh === true);
  const opts = {
    fresh: run.fresh,
    walking: (what: string, later: readonly string[]) => ({
      onResponse: run.cost.count(what),
      onPage: (n: number, total: number, rest: PageRest) => {
        if (n === 1) foresee(what, total, rest, later);
        run.spinnerText(`Looking through ${what}… page ${n}, ${total} so far`);
      },
    }),
    through: (name: string, items: readonly unknown[]) => run.seen.add(name, items),
  };
  let count = 0;
  for await (const page of walk(http, resource, filter, opts)) {
    let kept = page.kept.map(([, item]) => item);
    if (run.limit !== undefined) kept = kept.slice(0, run.limit - count);
    count += kept.length;
    if (kept.length > 0) await run.print(kept);
    // Leaving the loop ends the walk: no further page is fetched.
    if (run.limit !== undefined && count >= run.limit) return;
  }
}

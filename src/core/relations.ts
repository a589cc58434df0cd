// The relation filters' walk (`deployments list --app ap-…`, list_objects with an app),
// shared by the command and the MCP tool so that one question costs the same requests
// whoever asks it. It takes an HTTP client and hooks, not a command's Context: what a
// caller shows (a spinner, -R's cost line, progress) stays with the caller.

import { UsageError } from '../errors.js';
import { findResource, type Relation, type Resource } from '../resources.js';
import { isRecord, publicIdOf } from '../json/narrow.js';
import type { ApiResponse, HttpClient } from '../http/client.js';
import type { PageRest } from '../http/paging.js';
import { checkIds } from './by-id.js';

/**
 * `--app` through environments: at most this many environments are asked one by one by
 * the API's own route (one request each); more, and one walk of the whole collection is
 * likely cheaper.
 */
const MAX_ROUTE_CALLS = 3;

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

/** A relation filter as given: `--app ap-1`. */
export interface RelationFilter {
  relation: Relation;
  id: string;
}

/** How a face writes a filter to its user: `--app` and a command line, or `app` and a tool call. */
export interface FilterSpelling {
  flag(name: string): string;
  /** An example that gives the filter `flag` alone. */
  example(flag: string): string;
}

/**
 * The relation filter among `given` (a filter's name to its ID; absent ones left out):
 * none, or one that `resource` takes, its ID checked. Two at once, or one the resource does
 * not take, is a usage error, before any request. `vet` sees the value before the ID check
 * (the command's "did you mean" for a name it has seen).
 */
export function relationFilter(
  resource: Resource,
  given: Readonly<Record<string, unknown>>,
  spelling: FilterSpelling,
  vet?: (relation: Relation, target: Resource, id: string) => void,
): RelationFilter | undefined {
  const flags = Object.keys(given).filter((f) => typeof given[f] === 'string');
  const flag = flags[0];
  if (flag === undefined) return undefined;
  if (flags.length > 1) throw new UsageError(`Give only one of ${flags.map((f) => spelling.flag(f)).join(', ')}.`, `For example: ${spelling.example(flag)}`);
  const relation = resource.relations?.find((r) => r.flag === flag);
  if (!relation) {
    const takes = (resource.relations ?? []).map((r) => spelling.flag(r.flag));
    throw new UsageError(`${resource.name} cannot be filtered by ${spelling.flag(flag)}.`, takes.length > 0 ? `It takes: ${takes.join(', ')}.` : `List all ${resource.name}, with no filter.`);
  }
  const id = String(given[flag]);
  const target = findResource(relation.target);
  if (target) {
    vet?.(relation, target, id);
    checkIds(target, [id]);
  }
  return { relation, id };
}

/** One collection or route a walk reads, and which of its objects it keeps. */
export interface Source {
  /** What a walk of it is called (-R, the spinner): `deployments`, `environments/en-1/deployments`. */
  what: string;
  /** Under the base URL. */
  path: string;
  /** Only the objects that reference one of these IDs; absent: every object. */
  keep?: readonly string[];
}

/** The hooks of one walk of a collection or route, as walkPages takes them. */
export interface PageHooks {
  onResponse?: (res: ApiResponse) => void;
  onPage?: (pages: number, items: number, rest: PageRest) => void;
}

export interface WalkOptions {
  /** Past the response cache (a watch must see changes). */
  fresh?: boolean;
  /** Each walk as it starts: what it reads and what is still to read after it. */
  walking?: (what: string, later: readonly string[]) => PageHooks;
  /** The objects of the step the filter goes through (`environments` of an app), as read. */
  through?: (resource: string, items: readonly unknown[]) => void;
}

/** Where the answer is one collection or route read as it is (no filter, or the API's route for it); undefined when a walk must filter. */
export function directPath(resource: Resource, filter: RelationFilter | undefined): string | undefined {
  if (!filter) return resource.path;
  return filter.relation.route?.replace('{id}', encodeURIComponent(filter.id));
}

/**
 * What a question reads, in order. No filter: the collection. A filter with a route: the
 * route. Without one: the collection, keeping the objects that reference the ID. Through
 * another resource (deployments of an app): that resource is walked now for the objects
 * referencing the ID, then the API's route for each of them where it has one and there
 * are few, else the collection keeping the objects that reference any of them. Empty
 * when nothing can match.
 */
export async function sources(http: HttpClient, resource: Resource, filter: RelationFilter | undefined, opts: WalkOptions = {}): Promise<Source[]> {
  const direct = directPath(resource, filter);
  if (direct !== undefined || !filter) return [{ what: resource.name, path: direct ?? resource.path }];
  const { relation, id } = filter;
  const through = relation.through ? findResource(relation.through) : undefined;
  if (!through) return [{ what: resource.name, path: resource.path, keep: [id] }];
  const { walkPages } = await import('../http/paging.js');
  const ids = new Set([id]);
  const found = new Set<string>();
  for await (const items of walkPages(http, { path: through.path, fresh: opts.fresh }, { all: true, ...opts.walking?.(through.name, [resource.name]) })) {
    opts.through?.(through.name, items);
    for (const item of items) {
      const ref = publicIdOf(item);
      if (ref !== undefined && references(item, ids)) found.add(ref);
    }
  }
  if (found.size === 0) return [];
  const route = resource.relations?.find((r) => r.target === through.name && r.route)?.route;
  if (route && found.size <= MAX_ROUTE_CALLS) {
    return [...found].map((ref) => ({ what: `${through.name}/${ref}/${resource.name}`, path: route.replace('{id}', encodeURIComponent(ref)) }));
  }
  return [{ what: resource.name, path: resource.path, keep: [...found] }];
}

/** Where a walk resumes: a source, a page of it (its URL), and how many of that page's objects were already taken. */
export interface Position {
  source: number;
  url?: string;
  skip: number;
}

/** A page of a walk: the objects kept, each with its index in the page as the server sent it. */
export interface WalkPage {
  source: number;
  /** This page's URL, after redirects. */
  url: string;
  /** The next page's URL, where the server names it. */
  next?: string;
  /** The page may be followed by more (a next page named, or a full numbered page). */
  more: boolean;
  /** How many objects the server sent on it. */
  length: number;
  kept: [index: number, item: unknown][];
}

/**
 * The pages of `sources` in order, every page of each, from `from` on. Leaving the loop
 * ends the walk: no further page is fetched.
 */
export async function* walkSources(http: HttpClient, list: readonly Source[], from: Position | undefined, opts: WalkOptions = {}): AsyncGenerator<WalkPage> {
  const { walkPages, pageOf } = await import('../http/paging.js');
  for (let source = from?.source ?? 0; source < list.length; source++) {
    const src = list[source];
    if (!src) break;
    const resumed = source === from?.source ? from : undefined;
    const keep = src.keep ? new Set(src.keep) : undefined;
    const hooks = opts.walking?.(src.what, []);
    let url = '';
    let next: string | undefined;
    let more = false;
    let skip = resumed?.skip ?? 0;
    for await (const items of walkPages(http, { path: resumed?.url ?? src.path, fresh: opts.fresh }, {
      all: true,
      onResponse: (res) => {
        url = res.url.href;
        try {
          next = pageOf(res.json(), res.headers, res.url, { strict: false }).next?.href;
        } catch {
          next = undefined;
        }
        hooks?.onResponse?.(res);
      },
      onPage: (n, total, rest) => {
        more = rest.next || rest.full;
        hooks?.onPage?.(n, total, rest);
      },
    })) {
      const kept: [number, unknown][] = [];
      for (let i = skip; i < items.length; i++) {
        if (!keep || references(items[i], keep)) kept.push([i, items[i]]);
      }
      skip = 0;
      yield { source, url, ...(next === undefined ? {} : { next }), more, length: items.length, kept };
    }
  }
}

/**
 * Where a walk resumes after `page`: the page after it where the server names one (no
 * request again for a page already read), past its end where more may follow, else the
 * next source; undefined when the walk is over.
 */
export function positionAfter(page: WalkPage, list: readonly Source[]): Position | undefined {
  if (page.next !== undefined) return { source: page.source, url: page.next, skip: 0 };
  if (page.more) return { source: page.source, url: page.url, skip: page.length };
  if (page.source + 1 < list.length) return { source: page.source + 1, skip: 0 };
  return undefined;
}

/**
 * The pages of one question (`resource`, with or without a relation filter) from the
 * start: what it reads (sources), then each page, fetched as the loop asks.
 */
export async function* walk(http: HttpClient, resource: Resource, filter: RelationFilter | undefined, opts: WalkOptions = {}): AsyncGenerator<WalkPage> {
  yield* walkSources(http, await sources(http, resource, filter, opts), undefined, opts);
}

/** The objects `walk` keeps, one by one; leaving the loop ends the walk, no further page fetched. */
export async function* objects(http: HttpClient, resource: Resource, filter: RelationFilter | undefined, opts: WalkOptions = {}): AsyncGenerator<unknown> {
  for await (const page of walk(http, resource, filter, opts)) {
    for (const [, item] of page.kept) yield item;
  }
}

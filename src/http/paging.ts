// Walking the pages of a collection. The platform does not document paging, so the
// client follows, in the contract's order: a `Link: <…>; rel="next"` header; a JSON-LD
// style envelope (member / hydra:member with view.next / hydra:view.hydra:next); else,
// for a bare array, `?page=N+1` while the last page was as long as the first.

import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import { appendQuery, setQueryParam, type ApiRequest, type ApiResponse, type HttpClient } from './client.js';
import { oneLine } from '../output/sanitize.js';
import { isRecord } from '../json/narrow.js';

/** A bound on any walk, against a server that never stops sending next pages. */
const MAX_PAGES = 10_000;

export interface PageWalkOptions {
  /** Walk every page (--all). */
  all?: boolean;
  /** Stop after this many items; walks pages until it is met, even without `all`. */
  limit?: number;
  /** Start at this page (?page=N on the first request). */
  page?: number;
  /** After each page: pages fetched so far, items so far, and what the page said of the rest. */
  onPage?: (pages: number, items: number, rest: PageRest) => void;
  /** Each page's response as it arrives, before its items are yielded (`hostctl api -i`). */
  onResponse?: (res: ApiResponse) => void;
}

/** What a page says about the rest of the collection ("Showing 30 of 108 apps"). */
export interface PageRest {
  /** The server named a next page. */
  next: boolean;
  /** A numbered page (bare array, no link) that may be followed by more. */
  full: boolean;
  /** The collection's size, where the server states it (X-Total-Count, totalItems). */
  total?: number;
}

/** The collection's size, where the server states it. */
function totalOf(body: unknown, headers: Record<string, string>): number | undefined {
  const candidates: unknown[] = [headers['x-total-count']];
  if (isRecord(body)) candidates.push(body.totalItems, body['hydra:totalItems'], body.total);
  for (const c of candidates) {
    const n = typeof c === 'string' && /^\d+$/.test(c) ? Number(c) : c;
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) return n;
  }
  return undefined;
}

/** The target of the `rel="next"` link of a Link header, if any. */
export function linkNext(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const m of link.matchAll(/<([^>]*)>([^<]*)/g)) {
    const params = m[2] ?? '';
    for (const p of params.matchAll(/;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/gi)) {
      const rels = (p[1] ?? p[2] ?? '').toLowerCase().split(/\s+/);
      if (rels.includes('next')) return m[1];
    }
  }
  return undefined;
}

function linkTarget(v: unknown): string | undefined {
  if (typeof v === 'string' && v.trim()) return v;
  if (isRecord(v) && typeof v['@id'] === 'string') return v['@id'];
  return undefined;
}

function envelopeNext(body: Record<string, unknown>): string | undefined {
  for (const key of ['view', 'hydra:view']) {
    const view = body[key];
    if (!isRecord(view)) continue;
    const next = linkTarget(view.next) ?? linkTarget(view['hydra:next']);
    if (next) return next;
  }
  return undefined;
}

/**
 * The items of one page and the next page's URL, if the server named one. A next URL
 * on another origin is refused: the token would follow it. With `strict: false` (a
 * command that does not need every page) an unusable next URL is ignored instead.
 */
export function pageOf(body: unknown, headers: Record<string, string>, url: URL, opts: { strict?: boolean } = {}): { items: unknown[]; next?: URL } {
  let items: unknown[];
  let raw = linkNext(headers.link);
  if (Array.isArray(body)) {
    items = body;
  } else if (isRecord(body) && (Array.isArray(body.member) || Array.isArray(body['hydra:member']))) {
    items = (Array.isArray(body.member) ? body.member : body['hydra:member']) as unknown[];
    raw ??= envelopeNext(body);
  } else {
    throw new ApiError(
      `The API sent ${isRecord(body) ? 'an object' : `a ${body === null ? 'null' : typeof body}`} where a list was expected (neither an array nor a member / hydra:member envelope) for ${url.pathname}.`,
      'Check --base-url and the path; run with --verbose to see the exchange.',
    );
  }
  if (raw === undefined) return { items };
  let next: URL;
  try {
    next = new URL(raw, url);
  } catch {
    if (opts.strict === false) return { items };
    throw new ApiError(`The API named an invalid next page ("${oneLine(raw, 120)}") for ${url.pathname}.`, 'Use --page N to fetch pages one by one.');
  }
  next.hash = '';
  if (next.origin !== url.origin) {
    if (opts.strict === false) return { items };
    throw new ApiError(
      `The API's next-page link points to another origin (${next.origin}); hostctl does not follow it, so that the token stays with ${url.origin}.`,
      'Use --page N to fetch pages one by one, or report this to the API operator.',
    );
  }
  return { items, next };
}

/** The rel="last" link of a Link header, if any. */
function linkLast(link: string | undefined): string | undefined {
  if (!link) return undefined;
  for (const m of link.matchAll(/<([^>]*)>([^<]*)/g)) {
    if (/;\s*rel\s*=\s*(?:"[^"]*\blast\b[^"]*"|last\b)/i.test(m[2] ?? '')) return m[1];
  }
  return undefined;
}

/**
 * Whether the server said that `url` is the last page (a Link rel="last" to it), or that
 * `seen` items are all there are (totalItems, hydra:totalItems, X-Total-Count): then the
 * walk needs no probe for an empty page.
 */
export function isLastPage(body: unknown, headers: Record<string, string>, url: URL, seen: number): boolean {
  const total = totalOf(body, headers);
  if (total !== undefined && seen >= total) return true;
  const last = linkLast(headers.link) ?? (isRecord(body) ? envelopeLast(body) : undefined);
  if (last === undefined) return false;
  try {
    return new URL(last, url).href === url.href;
  } catch {
    return false;
  }
}

function envelopeLast(body: Record<string, unknown>): string | undefined {
  for (const key of ['view', 'hydra:view']) {
    const view = body[key];
    if (isRecord(view)) return linkTarget(view.last) ?? linkTarget(view['hydra:last']);
  }
  return undefined;
}

/**
 * A digest of a page as sent, to notice a server that ignores ?page= and repeats itself
 * (it sends the same text again). The text, not the parsed items written out again: that
 * cost a JSON.stringify of every page of a walk.
 */
function signature(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function pageParam(url: URL): number | undefined {
  for (const part of url.search.replace(/^\?/, '').split('&')) {
    const [k, v] = part.split('=');
    if (k === 'page' && v !== undefined && /^\d+$/.test(v) && Number(v) >= 1) return Number(v);
  }
  return undefined;
}

/**
 * The clients whose server was seen naming its next page (a Link header, a cursor): there,
 * a page that names none is the last, and `?page=N` is never tried (such a server ignores
 * it, and answers page 1 again).
 */
const namesNextPage = new WeakSet<HttpClient>();

/**
 * Yields each page's items (JSON-LD `@` members are left in; the output layer drops
 * them). Without `all` or `limit`, only the first page is fetched. With `limit`, pages
 * are walked until that many items have arrived, and no request is sent after that.
 */
export async function* walkPages(client: HttpClient, req: ApiRequest, opts: PageWalkOptions): AsyncGenerator<unknown[]> {
  const limit = opts.limit;
  if (limit !== undefined && limit <= 0) return;
  const walk = opts.all === true || limit !== undefined;
  let firstUrl = appendQuery(client.resolveUrl(req.path), req.query);
  if (opts.page !== undefined) firstUrl = setQueryParam(firstUrl, 'page', String(opts.page));
  let pageNo = pageParam(firstUrl) ?? 1;

  let current: ApiRequest = { ...req, path: firstUrl.href, query: undefined, then: req.then ?? (walk ? 'then the next pages, which depend on what each answer says' : req.fresh ? 'then the same request again every round, while the list is watched' : undefined) };
  const visited = new Set<string>([firstUrl.href]);
  let linked = false;
  let firstLength = 0;
  let firstSig = '';
  let lastSig = '';
  let pages = 0;
  let count = 0;
  // Every item the server sent (count stops at --limit), against the total it names.
  let served = 0;

  for (;;) {
    if (pages >= MAX_PAGES) {
      throw new ApiError(
        `The API kept naming further pages after ${MAX_PAGES}; hostctl stopped there, so the output is incomplete.`,
        'Use --limit N or --page N to fetch a part of the collection.',
      );
    }
    const res = await client.request(current);
    opts.onResponse?.(res);
    const body = res.json();
    // Only --all needs every page: elsewhere a next link that cannot be followed is ignored.
    const { items, next } = pageOf(body, res.headers, res.url, { strict: opts.all === true });
    // A page of the shape a list has: the cache may keep it.
    res.keep();
    pages++;

    const numbered = !linked && next === undefined && Array.isArray(body);
    if (numbered && pages > 1) {
      const sig = signature(res.text);
      if (items.length > 0 && (sig === firstSig || sig === lastSig)) {
        client.options.io.warn(
          `the API sent the same items for page ${pageNo} as for an earlier page; it seems to ignore ?page=, so hostctl stopped there.`,
        );
        return;
      }
      lastSig = sig;
    } else if (numbered) {
      firstLength = items.length;
      // Only a walk compares pages; a first page alone needs no digest (nor node:crypto).
      if (walk) firstSig = lastSig = signature(res.text);
    }

    const kept = limit !== undefined && count + items.length > limit ? items.slice(0, limit - count) : items;
    count += kept.length;
    served += items.length;
    opts.onPage?.(pages, count, { next: next !== undefined, full: numbered && items.length > 0, total: totalOf(body, res.headers) });
    if (kept.length > 0 || pages === 1) yield kept;

    if (!walk || (limit !== undefined && count >= limit)) return;
    if (isLastPage(body, res.headers, res.url, served)) return;
    if (next) {
      linked = true;
      namesNextPage.add(client);
      if (visited.has(next.href)) return;
      visited.add(next.href);
      current = { ...req, path: next.href, query: undefined };
    } else if (numbered) {
      if (items.length === 0 || items.length < firstLength || namesNextPage.has(client)) return;
      pageNo++;
      current = { ...req, path: setQueryParam(firstUrl, 'page', String(pageNo)).href, query: undefined };
    } else {
      return;
    }
  }
}

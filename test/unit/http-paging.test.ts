import { afterAll, describe, expect, it, vi } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, StopHere } from '../../src/errors.js';
import { isLastPage, linkNext, pageOf, walkPages, type PageRest, type PageWalkOptions } from '../../src/http/paging.js';
import type { ApiResponse, HttpClient } from '../../src/http/client.js';
import { closeAfterEach, cleanupDirs, harness, json, rejection, stub } from './http-support.js';

const track = closeAfterEach();
afterAll(cleanupDirs);

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ publicId: `ap-${from + i}` }));

async function collect(client: HttpClient, path: string, opts: PageWalkOptions): Promise<{ pages: unknown[][]; calls: Array<[number, number]> }> {
  const pages: unknown[][] = [];
  const calls: Array<[number, number]> = [];
  for await (const page of walkPages(client, { path }, { ...opts, onPage: (p, n) => calls.push([p, n]) })) pages.push(page);
  return { pages, calls };
}

function pageNo(req: IncomingMessage): number {
  return Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
}

/** The error `f` throws, or a failure when it returns. */
function thrownBy(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    if (err instanceof Error) return err;
  }
  throw new Error('expected a throw');
}

/** A bare-array server: `total` items, `size` per page, ?page=N. */
function bareArray(total: number, size: number) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const p = pageNo(req);
    const from = (p - 1) * size;
    json(res, ids(from, Math.max(0, Math.min(size, total - from))));
  };
}

describe('pageOf', () => {
  const url = new URL('http://127.0.0.1:9/v1/apps?page=1');

  it('a bare array has items and no next', () => {
    expect(pageOf([1, 2], {}, url)).toEqual({ items: [1, 2] });
  });

  it('a Link header names the next page, relative links resolved against the response URL', () => {
    const r = pageOf([1], { link: '</v1/apps?page=1>; rel="prev", <apps?page=2>; rel="next"' }, url);
    expect(r.next?.href).toBe('http://127.0.0.1:9/v1/apps?page=2');
  });

  it('the Link header wins over the envelope', () => {
    const body = { member: [1], view: { next: '/v1/apps?page=9' } };
    expect(pageOf(body, { link: '<http://127.0.0.1:9/v1/apps?cursor=b>; rel=next' }, url).next?.search).toBe('?cursor=b');
  });

  it('member with view.next, and hydra:member with hydra:view.hydra:next', () => {
    expect(pageOf({ member: [1], view: { next: '/v1/apps?page=2' } }, {}, url)).toEqual({ items: [1], next: new URL('http://127.0.0.1:9/v1/apps?page=2') });
    const hydra = { '@context': '/c', 'hydra:member': [{ '@id': '/v1/apps/ap-1' }], 'hydra:view': { '@id': '/v1/apps?page=1', 'hydra:next': '/v1/apps?page=2' } };
    expect(pageOf(hydra, {}, url).next?.href).toBe('http://127.0.0.1:9/v1/apps?page=2');
    expect(pageOf(hydra, {}, url).items).toEqual([{ '@id': '/v1/apps/ap-1' }]);
    expect(pageOf({ 'hydra:member': [], 'hydra:view': { 'hydra:last': 'x' } }, {}, url)).toEqual({ items: [] });
  });

  it('refuses a next URL on another origin', () => {
    expect(() => pageOf([1], { link: '<https://evil.invalid/v1/apps?page=2>; rel="next"' }, url)).toThrow(ApiError);
    expect(() => pageOf({ member: [], view: { next: 'http://127.0.0.1:10/v1/apps?page=2' } }, {}, url)).toThrow(/another origin/);
  });

  it('a next URL on another origin: the error names both origins and the way round it', () => {
    const err = thrownBy(() => pageOf([1], { link: '<https://evil.invalid/v1/apps?page=2>; rel="next"' }, url));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      message: "The API's next-page link points to another origin (https://evil.invalid); hostctl does not follow it, so that the token stays with http://127.0.0.1:9.",
      hint: 'Use --page N to fetch pages one by one, or report this to the API operator.',
    });
  });

  it('a next URL that does not parse: an error naming it, or, where not every page is needed, the page alone', () => {
    const headers = { link: '<http://[>; rel="next"' };
    const err = thrownBy(() => pageOf([1], headers, url));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ message: 'The API named an invalid next page ("http://[") for /v1/apps.', hint: 'Use --page N to fetch pages one by one.' });
    expect(pageOf([1], headers, url, { strict: false })).toEqual({ items: [1] });
  });

  it('an object that is not a collection is an ApiError', () => {
    expect(() => pageOf({ publicId: 'ap-1' }, {}, url)).toThrow(ApiError);
    expect(() => pageOf('text', {}, url)).toThrow(ApiError);
  });

  it('says what arrived where a list was expected, and what to check', () => {
    const said = (body: unknown) => {
      const err = thrownBy(() => pageOf(body, {}, url));
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).hint).toBe('Check --base-url and the path; run with --verbose to see the exchange.');
      return err.message;
    };
    const tail = ' where a list was expected (neither an array nor a member / hydra:member envelope) for /v1/apps.';
    expect(said({ publicId: 'ap-1' })).toBe(`The API sent an object${tail}`);
    expect(said(null)).toBe(`The API sent a null${tail}`);
    expect(said('text')).toBe(`The API sent a string${tail}`);
  });

  it('an envelope\'s next link may be an object naming its "@id"; any other shape, or a blank string, names no next page', () => {
    expect(pageOf({ member: [1], view: { next: { '@id': '/v1/apps?page=2' } } }, {}, url).next?.href).toBe('http://127.0.0.1:9/v1/apps?page=2');
    expect(pageOf({ member: [1], view: { next: { '@id': 42 } } }, {}, url)).toEqual({ items: [1] });
    expect(pageOf({ member: [1], view: { next: 42 } }, {}, url)).toEqual({ items: [1] });
    expect(pageOf({ member: [1], view: { next: '  ' } }, {}, url)).toEqual({ items: [1] });
  });

  it('a view that names no next page does not hide a hydra:view that does', () => {
    const body = { member: [1], view: { '@id': '/v1/apps?page=1' }, 'hydra:view': { 'hydra:next': '/v1/apps?page=2' } };
    expect(pageOf(body, {}, url).next?.href).toBe('http://127.0.0.1:9/v1/apps?page=2');
  });

  it('linkNext reads the rel parameter however it is written', () => {
    expect(linkNext('<a>; rel="next"')).toBe('a');
    expect(linkNext('<a>; rel=next')).toBe('a');
    expect(linkNext('<a>; title="x, y"; rel="prev next"')).toBe('a');
    expect(linkNext('<a>; REL="Next"')).toBe('a');
    expect(linkNext('<a>;rel=next')).toBe('a');
    expect(linkNext('<a> ; rel = "next"')).toBe('a');
    expect(linkNext('<a>; rel="prev", <b>; rel="last"')).toBeUndefined();
    expect(linkNext(undefined)).toBeUndefined();
  });
});

describe('walkPages', () => {
  it('Link header paging: follows rel=next to the end with --all', async () => {
    const s = track(await stub((req, res) => {
      const p = pageNo(req);
      json(res, ids(p * 10, p < 3 ? 10 : 4), 200, p < 3 ? { link: `<${'/v1/apps'}?page=${p + 1}>; rel="next"` } : {});
    }));
    const h = track(harness(s.baseUrl));
    const { pages, calls } = await collect(h.client, '/apps', { all: true });
    expect(pages.map((p) => p.length)).toEqual([10, 10, 4]);
    expect(calls).toEqual([[1, 10], [2, 20], [3, 24]]);
    expect(s.seen.map((x) => x.url)).toEqual(['/v1/apps', '/v1/apps?page=2', '/v1/apps?page=3']);
  });

  it('envelope paging (hydra) with relative next links', async () => {
    const s = track(await stub((req, res) => {
      const p = pageNo(req);
      const view: Record<string, string> = { '@id': `/v1/apps?page=${p}` };
      if (p < 2) view['hydra:next'] = `/v1/apps?page=${p + 1}`;
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      res.end(JSON.stringify({ '@context': '/c', 'hydra:member': ids(p * 5, 5), 'hydra:view': view }));
    }));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', { all: true });
    expect(pages.flat()).toHaveLength(10);
    expect(h.client.requestCount).toBe(2);
  });

  it('bare array: page=N+1 while pages are full, stopping on a shorter page', async () => {
    const s = track(await stub(bareArray(23, 10)));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', { all: true });
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    expect(s.seen.map((x) => x.url)).toEqual(['/v1/apps', '/v1/apps?page=2', '/v1/apps?page=3']);
  });

  it('bare array: stops on an empty page when the total is a multiple of the page size', async () => {
    const s = track(await stub(bareArray(20, 10)));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', { all: true });
    expect(pages.map((p) => p.length)).toEqual([10, 10]);
    expect(h.client.requestCount).toBe(3);
  });

  it('bare array with a total (X-Total-Count): no probe for an empty page after the last full one', async () => {
    const pages = bareArray(20, 10);
    const s = track(await stub((req, res) => {
      res.setHeader('x-total-count', '20');
      pages(req, res);
    }));
    const h = track(harness(s.baseUrl));
    const { pages: got } = await collect(h.client, '/apps', { all: true });
    expect(got.map((p) => p.length)).toEqual([10, 10]);
    expect(h.client.requestCount).toBe(2);
  });

  it('bare array with a Link rel="last": the walk ends on that page', async () => {
    const pages = bareArray(20, 10);
    const s = track(await stub((req, res) => {
      res.setHeader('link', '</v1/apps?page=2>; rel="last"');
      pages(req, res);
    }));
    const h = track(harness(s.baseUrl));
    const { pages: got } = await collect(h.client, '/apps', { all: true });
    expect(got.map((p) => p.length)).toEqual([10, 10]);
    expect(h.client.requestCount).toBe(2);
  });

  it('an envelope whose totalItems is reached ends the walk even if it names a next page', () => {
    const url = new URL('http://127.0.0.1:9/v1/apps?page=2');
    expect(isLastPage({ 'hydra:member': [], 'hydra:totalItems': 20 }, {}, url, 20)).toBe(true);
    expect(isLastPage({ member: [], totalItems: 21 }, {}, url, 20)).toBe(false);
    expect(isLastPage({ 'hydra:member': [], 'hydra:view': { 'hydra:last': '/v1/apps?page=2' } }, {}, url, 3)).toBe(true);
    expect(isLastPage([], { 'x-total-count': 'many' }, url, 3)).toBe(false);
  });

  it('only a whole number from 0 up, or a string of digits, is a total', () => {
    const url = new URL('http://127.0.0.1:9/v1/apps?page=2');
    expect(isLastPage({ member: [], totalItems: 0 }, {}, url, 0)).toBe(true);
    expect(isLastPage([], { 'x-total-count': '20' }, url, 20)).toBe(true);
    for (const t of ['', '0x14', '+20', ' 20', '20 ', '20.0', '2e1']) expect(isLastPage([], { 'x-total-count': t }, url, 20), JSON.stringify(t)).toBe(false);
    for (const t of [null, true, [20], -1, 20.5, 19.5]) expect(isLastPage({ member: [], totalItems: t }, {}, url, 20), JSON.stringify(t)).toBe(false);
  });

  it('a Link rel="last" is read however its rel is written, and only a link whose rels include "last" counts', () => {
    const url = new URL('http://127.0.0.1:9/v1/apps?page=2');
    for (const link of [
      '</v1/apps?page=2>;rel=last',
      '</v1/apps?page=2>; rel = "last"',
      '</v1/apps?page=2>; rel= "last"',
      '</v1/apps?page=1>; rel="first", </v1/apps?page=2>; rel="first last"',
      '</v1/apps?page=2>; rel="last prev"',
    ]) {
      expect(isLastPage([1], { link }, url, 1), link).toBe(true);
    }
    expect(isLastPage([1], { link: '</v1/apps?page=2>; rel="next"' }, url, 1)).toBe(false);
    // A last link that does not parse says nothing.
    expect(isLastPage([1], { link: '<http://[>; rel="last"' }, url, 1)).toBe(false);
  });

  it('an envelope\'s view.last (not only hydra:view.hydra:last) marks the last page', () => {
    const url = new URL('http://127.0.0.1:9/v1/apps?page=2');
    expect(isLastPage({ member: [], view: { last: '/v1/apps?page=2' } }, {}, url, 0)).toBe(true);
  });

  it('without a total or a last link no page is known to be the last, whatever its URL', () => {
    // A path that ends in "undefined" is one a missing link would resolve to.
    expect(isLastPage([1], {}, new URL('http://127.0.0.1:9/v1/things/undefined'), 1)).toBe(false);
  });

  it('a server that ignores ?page= is caught: the repeated page is dropped and the walk stops', async () => {
    const s = track(await stub((_req, res) => json(res, ids(0, 10))));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', { all: true });
    expect(pages.map((p) => p.length)).toEqual([10]);
    expect(h.client.requestCount).toBe(2);
    expect(h.stderr.text).toContain('seems to ignore ?page=');
  });

  it('a page that repeats an earlier one, not only the first or only the one before, ends the walk there', async () => {
    // Pages by number, as a server that ignores ?page= from some page on would send them; page 4 is shorter, the end.
    for (const sent of [
      [ids(0, 10), ids(10, 10), ids(10, 10), ids(20, 3)],
      [ids(0, 10), ids(10, 10), ids(0, 10), ids(20, 3)],
    ]) {
      const s = track(await stub((req, res) => json(res, sent[pageNo(req) - 1])));
      const h = track(harness(s.baseUrl));
      const { pages } = await collect(h.client, '/apps', { all: true });
      expect(pages).toEqual([sent[0], sent[1]]);
      expect(h.client.requestCount).toBe(3);
      expect(h.stderr.text).toBe('hostctl: warning: the API sent the same items for page 3 as for an earlier page; it seems to ignore ?page=, so hostctl stopped there.\n');
    }
  });

  it('a Link header that points back at a page already fetched ends the walk', async () => {
    const s = track(await stub((_req, res) => json(res, ids(0, 3), 200, { link: '</v1/apps?page=1>; rel="next"' })));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps?page=1', { all: true });
    expect(pages).toHaveLength(1);
    expect(h.client.requestCount).toBe(1);
  });

  it('without --all only the first page is fetched', async () => {
    const s = track(await stub(bareArray(95, 10)));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', {});
    expect(pages.map((p) => p.length)).toEqual([10]);
    expect(h.client.requestCount).toBe(1);
  });

  it('--limit walks pages until met, trims the last one, and sends nothing more', async () => {
    const s = track(await stub(bareArray(95, 10)));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', { limit: 25 });
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(h.client.requestCount).toBe(3);
    const exact = await collect(h.client, '/apps', { limit: 10, all: true });
    expect(exact.pages.map((p) => p.length)).toEqual([10]);
    expect(h.client.requestCount).toBe(4);
  });

  it('--page N starts at that page (and stays there without --all)', async () => {
    const s = track(await stub(bareArray(95, 10)));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', { page: 3 });
    expect(pages[0]![0]).toEqual({ publicId: 'ap-20' });
    expect(s.seen.map((x) => x.url)).toEqual(['/v1/apps?page=3']);
    await collect(h.client, '/apps', { page: 9, all: true });
    expect(s.seen.slice(1).map((x) => x.url)).toEqual(['/v1/apps?page=9', '/v1/apps?page=10']);
  });

  it('goes on from the ?page= the path names, read as the first page parameter of decimal digits from 1; anything else counts as page 1', async () => {
    const s = track(await stub(bareArray(500, 10)));
    const h = track(harness(s.baseUrl));
    const walkFrom = async (path: string) => {
      const before = s.seen.length;
      await collect(h.client, path, { limit: 20 });
      return s.seen.slice(before).map((x) => x.url);
    };
    expect(await walkFrom('/apps?owner=7&page=12')).toEqual(['/v1/apps?owner=7&page=12', '/v1/apps?owner=7&page=13']);
    expect(await walkFrom('/apps?page=1&page=5')).toEqual(['/v1/apps?page=1&page=5', '/v1/apps?page=2']);
    for (const odd of ['0', '0x10', '1e1']) expect(await walkFrom(`/apps?page=${odd}`), odd).toEqual([`/v1/apps?page=${odd}`, '/v1/apps?page=2']);
  });

  it('a --limit of 0 or less sends nothing and yields nothing', async () => {
    const s = track(await stub(bareArray(95, 10)));
    const h = track(harness(s.baseUrl));
    expect((await collect(h.client, '/apps', { limit: 0 })).pages).toEqual([]);
    expect((await collect(h.client, '/apps', { limit: -1, all: true })).pages).toEqual([]);
    expect(s.seen).toHaveLength(0);
  });

  it('what each page says of the rest: a bare array with a Link next is a linked page, not a full numbered one', async () => {
    const s = track(await stub((req, res) => {
      if (req.url?.includes('cursor=b')) json(res, ids(10, 4), 200, { 'x-total-count': '14' });
      else json(res, ids(0, 10), 200, { link: '</v1/apps?cursor=b>; rel="next"' });
    }));
    const h = track(harness(s.baseUrl));
    const rests: PageRest[] = [];
    for await (const page of walkPages(h.client, { path: '/apps' }, { all: true, onPage: (_p, _n, rest) => rests.push(rest) })) expect(page.length).toBeGreaterThan(0);
    expect(rests).toStrictEqual([
      { next: true, full: false, total: undefined },
      { next: false, full: false, total: 14 },
    ]);
  });

  it('what each page says of the rest: numbered pages are full while they have items, and the empty one that ends the walk is not', async () => {
    const s = track(await stub(bareArray(20, 10)));
    const h = track(harness(s.baseUrl));
    const rests: PageRest[] = [];
    for await (const page of walkPages(h.client, { path: '/apps' }, { all: true, onPage: (_p, _n, rest) => rests.push(rest) })) expect(page.length).toBe(10);
    expect(rests).toStrictEqual([
      { next: false, full: true, total: undefined },
      { next: false, full: true, total: undefined },
      { next: false, full: false, total: undefined },
    ]);
  });

  it('keeps other query parameters (raw []) on every page', async () => {
    const s = track(await stub(bareArray(15, 10)));
    const h = track(harness(s.baseUrl));
    const pages: unknown[][] = [];
    for await (const p of walkPages(h.client, { path: '/apps', query: [['publicId[]', 'ap-1']] }, { all: true })) pages.push(p);
    expect(s.seen.map((x) => x.url)).toEqual(['/v1/apps?publicId[]=ap-1', '/v1/apps?publicId[]=ap-1&page=2']);
  });

  it('an empty first page is yielded once', async () => {
    const s = track(await stub((_req, res) => json(res, [])));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', { all: true });
    expect(pages).toEqual([[]]);
    expect(h.client.requestCount).toBe(1);
  });

  it('stops with an error after 10,000 pages of a server that keeps naming a next one, having sent no more requests', async () => {
    const h = track(harness('http://127.0.0.1:9'));
    // Each page names the next one, up to page 10,001, the last: a walk without a bound would end there.
    const request = vi.spyOn(h.client, 'request').mockImplementation(async (req) => {
      const url = new URL(req.path);
      const n = Number(url.searchParams.get('cursor') ?? '1');
      const res: ApiResponse = {
        status: 200,
        statusText: 'OK',
        method: 'GET',
        headers: n <= 10_000 ? { link: `</v1/apps?cursor=${n + 1}>; rel="next"` } : {},
        url,
        text: `[${n}]`,
        json: () => [n],
        keep: () => undefined,
      };
      return res;
    });
    try {
      const err = await rejection(collect(h.client, '/apps', { all: true }));
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({
        message: 'The API kept naming further pages after 10000; hostctl stopped there, so the output is incomplete.',
        hint: 'Use --limit N or --page N to fetch a part of the collection.',
      });
      expect(request).toHaveBeenCalledTimes(10_000);
    } finally {
      request.mockRestore();
    }
  });

  it('--dry-run of a watched list (fresh, no --all) says the same request would follow every round', async () => {
    const h = track(harness('http://127.0.0.1:9', { dryRun: true }));
    const err = await rejection(walkPages(h.client, { path: '/apps', fresh: true }, {}).next());
    expect(err).toBeInstanceOf(StopHere);
    expect(h.stderr.text).toBe('hostctl: dry run: only the first request is shown; then the same request again every round, while the list is watched.\n');
  });

  it('a next link to another origin fails the walk', async () => {
    const s = track(await stub((_req, res) => json(res, { member: [1], view: { next: 'https://evil.invalid/v1/apps?page=2' } })));
    const h = track(harness(s.baseUrl));
    const err = await rejection(collect(h.client, '/apps', { all: true }));
    expect(err).toBeInstanceOf(ApiError);
    expect(h.client.requestCount).toBe(1);
  });
});

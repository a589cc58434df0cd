import { afterAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../../src/errors.js';
import { isLastPage, linkNext, pageOf, walkPages, type PageWalkOptions } from '../../src/http/paging.js';
import type { HttpClient } from '../../src/http/client.js';
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

  it('an object that is not a collection is an ApiError', () => {
    expect(() => pageOf({ publicId: 'ap-1' }, {}, url)).toThrow(ApiError);
    expect(() => pageOf('text', {}, url)).toThrow(ApiError);
  });

  it('linkNext reads the rel parameter however it is written', () => {
    expect(linkNext('<a>; rel="next"')).toBe('a');
    expect(linkNext('<a>; rel=next')).toBe('a');
    expect(linkNext('<a>; title="x, y"; rel="prev next"')).toBe('a');
    expect(linkNext('<a>; REL="Next"')).toBe('a');
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

  it('a server that ignores ?page= is caught: the repeated page is dropped and the walk stops', async () => {
    const s = track(await stub((_req, res) => json(res, ids(0, 10))));
    const h = track(harness(s.baseUrl));
    const { pages } = await collect(h.client, '/apps', { all: true });
    expect(pages.map((p) => p.length)).toEqual([10]);
    expect(h.client.requestCount).toBe(2);
    expect(h.stderr.text).toContain('seems to ignore ?page=');
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

  it('a next link to another origin fails the walk', async () => {
    const s = track(await stub((_req, res) => json(res, { member: [1], view: { next: 'https://evil.invalid/v1/apps?page=2' } })));
    const h = track(harness(s.baseUrl));
    const err = await rejection(collect(h.client, '/apps', { all: true }));
    expect(err).toBeInstanceOf(ApiError);
    expect(h.client.requestCount).toBe(1);
  });
});

// The walk's cap on V8's young generation, with node:v8 stubbed: what it reads and sets.

import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cleanupDirs, closeAfterEach, harness, json, rejection, stub } from './http-support.js';

const v8 = vi.hoisted(() => ({ young: 0, flags: [] as string[] }));
vi.mock('node:v8', () => ({
  getHeapSpaceStatistics: () => [
    { space_name: 'old_space', space_size: 50 << 20 },
    { space_name: 'new_space', space_size: v8.young },
  ],
  setFlagsFromString: (flags: string) => v8.flags.push(flags),
}));

// The unit layer shares its workers between files (isolate: false): another file may have
// loaded young.js with the real node:v8 already, so this file loads its own.
vi.resetModules();
const { YOUNG_CAP_BYTES, youngCap } = await import('../../src/http/young.js');
// Loaded after the reset too, so that its walks hold the cap of the young.js above.
const { walkPages } = await import('../../src/http/paging.js');

const track = closeAfterEach();
afterAll(cleanupDirs);

afterEach(() => {
  v8.young = 0;
  v8.flags = [];
});

describe('the young generation during a walk', () => {
  it('grows freely until it reaches the cap, then no more; the default again when the walk ends', () => {
    const cap = youngCap();
    v8.young = YOUNG_CAP_BYTES / 2;
    cap.check();
    expect(v8.flags).toEqual([]);
    v8.young = YOUNG_CAP_BYTES;
    cap.check();
    cap.check();
    expect(v8.flags).toEqual(['--semi-space-growth-factor=1']);
    cap.release();
    cap.release();
    expect(v8.flags).toEqual(['--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
  });

  it('the cap is 8 MiB (both semi-spaces), the size measured in docs/performance.md', () => {
    const cap = youngCap();
    try {
      v8.young = 8 * 1024 * 1024 - 1;
      cap.check();
      expect(v8.flags).toEqual([]);
      v8.young = 8 * 1024 * 1024;
      cap.check();
      expect(v8.flags).toEqual(['--semi-space-growth-factor=1']);
    } finally {
      cap.release();
    }
  });

  it('two walks at once (a filter walks within a walk): the default comes back when the last one ends', () => {
    const outer = youngCap();
    const inner = youngCap();
    v8.young = YOUNG_CAP_BYTES;
    inner.check();
    outer.check();
    inner.release();
    expect(v8.flags).toEqual(['--semi-space-growth-factor=1']);
    outer.release();
    expect(v8.flags.at(-1)).toBe('--semi-space-growth-factor=2');
    // A walk that never reached the cap sets nothing.
    const small = youngCap();
    v8.young = 0;
    small.check();
    small.release();
    expect(v8.flags).toHaveLength(2);
  });

  it('a page walk lets go of the cap however it ends: at its last page, when its reader stops early, when it fails', async () => {
    // Ten items a page, five pages; asked with ?bad, page 2 names a next page on another origin.
    const s = track(
      await stub((req: IncomingMessage, res: ServerResponse) => {
        const url = new URL(req.url ?? '/', 'http://x');
        const page = Number(url.searchParams.get('page') ?? '1');
        const items = Array.from({ length: page <= 5 ? 10 : 0 }, (_, i) => ({ publicId: `ap-${page}-${i}` }));
        if (url.searchParams.has('bad') && page === 2) json(res, { member: items, view: { next: 'https://evil.invalid/v1/apps' } });
        else json(res, items);
      }),
    );
    const h = track(harness(s.baseUrl));
    const settled = ['--semi-space-growth-factor=1', '--semi-space-growth-factor=2'];
    v8.young = YOUNG_CAP_BYTES;

    let pages = 0;
    for await (const page of walkPages(h.client, { path: '/apps' }, { all: true })) pages += page.length > 0 ? 1 : 0;
    expect(pages).toBe(5);
    expect(v8.flags).toEqual(settled);

    v8.flags = [];
    pages = 0;
    for await (const _page of walkPages(h.client, { path: '/apps' }, { all: true })) if (++pages === 2) break;
    expect(v8.flags).toEqual(settled);

    v8.flags = [];
    const err = await rejection((async () => {
      for await (const _page of walkPages(h.client, { path: '/apps', query: [['bad', '1']] }, { all: true })) pages++;
    })());
    expect(err.message).toMatch(/another origin/);
    expect(v8.flags).toEqual(settled);
  });
});

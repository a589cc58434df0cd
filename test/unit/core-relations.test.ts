// The core's list walk (src/core/relations.ts) against a loopback stub: pages are fetched
// as the loop asks for objects, never ahead of it.

import { afterEach, describe, expect, it } from 'vitest';
import { findResource, type Resource } from '../../src/resources.js';
import { objects } from '../../src/core/relations.js';
import { cleanupDirs, closeAfterEach, harness, json, stub } from './http-support.js';

const track = closeAfterEach();
afterEach(cleanupDirs);

const apps = findResource('apps') as Resource;

/** Three pages of two apps each, linked by a next link. */
async function pagedApps() {
  return track(
    await stub((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      const items = [1, 2].map((i) => ({ publicId: `ap-${String(page * 10 + i).padStart(10, '0')}`, name: `app ${page}.${i}` }));
      json(res, items, 200, page < 3 ? { link: `</v1/apps?page=${page + 1}>; rel="next"` } : {});
    }),
  );
}

describe('objects()', () => {
  it('yields every object of every page, in order', async () => {
    const server = await pagedApps();
    const { client } = track(harness(server.baseUrl));
    const names: unknown[] = [];
    for await (const item of objects(client, apps, undefined)) names.push((item as { name: string }).name);
    expect(names).toEqual(['app 1.1', 'app 1.2', 'app 2.1', 'app 2.2', 'app 3.1', 'app 3.2']);
    expect(server.seen).toHaveLength(3);
  });

  it('fetches a page only when the loop asks for its objects: stopping at the second object sends one request', async () => {
    const server = await pagedApps();
    const { client } = track(harness(server.baseUrl));
    let taken = 0;
    for await (const _item of objects(client, apps, undefined)) if (++taken === 2) break;
    expect(server.seen.map((s) => s.url)).toEqual(['/v1/apps']);
  });
});

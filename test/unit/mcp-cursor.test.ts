// list_objects' cursors on their own: what the seal holds is still checked against the
// base URL, so a cursor never leads outside it even if the seal were ever made over one.

import { describe, expect, it } from 'vitest';
import { Cursors, type Cursor } from '../../src/mcp/cursor.js';
import { UsageError } from '../../src/errors.js';

const base = new URL('http://127.0.0.1:8080/v1');
const want = { resource: 'apps', filter: null, baseUrl: base };
const cursor = (over: Partial<Cursor> = {}): Cursor => ({ resource: 'apps', filter: null, baseUrl: base.href, sources: [{ what: 'apps', path: '/apps' }], at: { source: 0, skip: 0 }, ...over });

describe('a sealed cursor', () => {
  it('opens in the process that sealed it, for the list it was made for', async () => {
    const cursors = new Cursors();
    const made = cursor({ at: { source: 0, url: 'http://127.0.0.1:8080/v1/apps?page=2', skip: 3 } });
    expect(await cursors.open(await cursors.seal(made), want)).toEqual(made);
  });

  it.each([
    ['a page above the base path', { at: { source: 0, url: 'http://127.0.0.1:8080/_sandbox/requests', skip: 0 } }],
    ['a page that climbs out of it', { at: { source: 0, url: 'http://127.0.0.1:8080/v1/../_sandbox/tokens', skip: 0 } }],
    ['an escaped climb', { at: { source: 0, url: 'http://127.0.0.1:8080/v1/%2e%2e/_sandbox/tokens', skip: 0 } }],
    ['another origin', { at: { source: 0, url: 'http://collector.invalid/v1/apps', skip: 0 } }],
    ['a source outside the base URL', { sources: [{ what: 'apps', path: '/../_sandbox/requests' }] }],
    ['a source that does not exist', { at: { source: 1, skip: 0 } }],
  ])('leading to %s is refused even under a good seal', async (_name, over) => {
    const cursors = new Cursors();
    await expect(cursors.open(await cursors.seal(cursor(over)), want)).rejects.toThrow(UsageError);
  });

  it('made for another base URL, resource or filter is refused', async () => {
    const cursors = new Cursors();
    for (const over of [{ baseUrl: 'http://127.0.0.1:9090/v1' }, { resource: 'teams' }, { filter: 'app=ap-1a2b3c4d5e' }]) {
      await expect(cursors.open(await cursors.seal(cursor(over)), want)).rejects.toThrow(/another list/);
    }
  });
});

// The response cache (src/http/cache.ts) alone: its layer over a stub `next`, a cache
// directory of the test's own and a clock the test moves. Judged by what reached the stub,
// what the cache answered and what it left on disk; the promises end to end (real runs
// against the sandbox) are in test/cli/cache.test.ts.

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheInfo, clearCache, ResponseCache, type CacheStorage } from '../../src/http/cache.js';
import type { Answer, Exchange } from '../../src/http/layers.js';
import { answer, drive } from './http-support.js';

const BASE = new URL('https://api.example.invalid/v1/');
const FINGERPRINT = 'fp-cache-test-1';
const MINUTE = 60_000;
const MAX_AGE = 10 * MINUTE;
/** The run's clock at the start of each test (small, so that age arithmetic is plain). */
const T0 = 100_000;

const get = (path = 'apps', over: Partial<Exchange> = {}): Exchange => ({ method: 'GET', url: new URL(path, BASE), headers: { accept: 'application/json' }, body: undefined, ...over });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const HEADERS = {
  'content-type': 'application/json',
  etag: '"v1"',
  'last-modified': 'Tue, 03 Jun 2025 10:00:00 GMT',
  link: '<https://api.example.invalid/v1/apps?cursor=2>; rel="next"',
  'x-total-count': '108',
};
const LIST = answer(200, { ...HEADERS, 'x-ratelimit-remaining': '59', date: 'Tue, 03 Jun 2025 10:00:00 GMT' }, '[{"publicId":"ap-one"}]');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hostctl-cache-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A cache in the test's directory, on a clock the test sets (`clock.now`). */
function cacheOf(over: { baseUrl?: URL; fingerprint?: string; shared?: CacheStorage } = {}) {
  const clock = { now: T0 };
  const cache = new ResponseCache(root, over.baseUrl ?? BASE, over.fingerprint ?? FINGERPRINT, MAX_AGE, () => clock.now, over.shared && (() => over.shared!));
  return { cache, clock };
}

/** Sends `x` through the layer and keeps the answer, as a caller that used it does. */
async function fetchAndKeep(send: (x: Exchange) => Promise<Answer>, x = get()): Promise<Answer> {
  const a = await send(x);
  a.keep?.();
  return a;
}

/** The cache's files under `root`, relative to it. */
const jsonFiles = () => readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));

/** Rewrites the one answer entry on disk as `change` says (a damaged or foreign entry). */
function rewriteAnswer(change: (entry: Record<string, unknown>) => unknown): void {
  const [file] = jsonFiles().filter((f) => f.includes('answers'));
  const path = join(root, file!);
  writeFileSync(path, JSON.stringify(change(JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)));
}

/** A fleet's store held in memory: entries by name, and each claim taken. */
function memoryStore(onClaim?: (name: string) => void) {
  const entries = new Map<string, unknown>();
  const claims: string[] = [];
  const storage: CacheStorage = {
    read: (name) => entries.get(name),
    write: (name, value) => void entries.set(name, JSON.parse(JSON.stringify(value))),
    claim: async (name) => {
      claims.push(name);
      onClaim?.(name);
    },
  };
  return { entries, claims, storage };
}

describe('the cache layer: fresh answers from disk', () => {
  it('serves a kept 200 up to the max age with the headers that give it meaning (type, validators, paging), and sends nothing', async () => {
    const { cache, clock } = cacheOf();
    const { send, seen } = drive(cache.layer(), [LIST]);
    await fetchAndKeep(send);
    clock.now = T0 + MAX_AGE;
    expect(await send(get())).toEqual({ status: 200, headers: HEADERS, text: LIST.text });
    expect(seen).toHaveLength(1);
    expect(cache.hits).toBe(1);
  });

  it('an entry stored later than the clock now says (the clock went back) is not fresh: it is revalidated', async () => {
    const { cache, clock } = cacheOf();
    const { send, seen } = drive(cache.layer(), [LIST]);
    await fetchAndKeep(send);
    clock.now = T0 - 1;
    await send(get());
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers['if-none-match']).toBe('"v1"');
    expect(cache.hits).toBe(0);
  });

  it('only a GET is answered from the cache: a POST or a HEAD to a cached URL reaches the server', async () => {
    const { cache } = cacheOf();
    const { send, seen } = drive(cache.layer(), [LIST, answer(201, {}, '{"publicId":"ap-two"}'), answer(200)]);
    await fetchAndKeep(send);
    expect(await send(get('apps', { method: 'POST', body: '{}' }))).toEqual(answer(201, {}, '{"publicId":"ap-two"}'));
    expect((await send(get('apps', { method: 'HEAD' }))).status).toBe(200);
    expect(seen.map((x) => x.method)).toEqual(['GET', 'POST', 'HEAD']);
  });

  it('each base URL and each token has entries of its own', async () => {
    await fetchAndKeep(drive(cacheOf().cache.layer(), [LIST]).send);
    const otherToken = drive(cacheOf({ fingerprint: 'fp-cache-test-2' }).cache.layer(), [answer(200, {}, '[]')]);
    expect((await otherToken.send(get())).text).toBe('[]');
    const otherBase = drive(cacheOf({ baseUrl: new URL('https://other.example.invalid/v1/') }).cache.layer(), [answer(200, {}, '[]')]);
    expect((await otherBase.send(get())).text).toBe('[]');
    expect([otherToken.seen.length, otherBase.seen.length]).toEqual([1, 1]);
  });

  it('lays its entries out as every release does: <first 32 hex digits of sha256(base URL, newline, fingerprint)>/answers/<sha256 of the URL>.json', async () => {
    // The layout is what a cache left by another release, or a fleet's store shared by
    // machines of mixed releases, is found by; it names neither the URL nor the token.
    await fetchAndKeep(drive(cacheOf().cache.layer(), [LIST]).send);
    const scope = sha(`${BASE.href}\n${FINGERPRINT}`).slice(0, 32);
    expect(jsonFiles()).toEqual([join(scope, 'answers', `${sha(get().url.href)}.json`)]);
  });
});

describe('the cache layer: stale entries, revalidation and errors', () => {
  it('a stale entry is asked for with its validators; a 304 serves the stored body, its own headers win, and keeping it makes the entry fresh again', async () => {
    const { cache, clock } = cacheOf();
    const { send, seen } = drive(cache.layer(), [LIST, answer(304, { etag: '"v2"', 'x-ratelimit-remaining': '58' })]);
    await fetchAndKeep(send);
    clock.now = T0 + MAX_AGE + 1;
    const revalidated = await fetchAndKeep(send);
    expect(seen[1]!.headers).toEqual({ accept: 'application/json', 'if-none-match': '"v1"', 'if-modified-since': HEADERS['last-modified'] });
    expect(revalidated).toEqual({ status: 200, headers: { ...HEADERS, etag: '"v2"', 'x-ratelimit-remaining': '58' }, text: LIST.text, keep: expect.any(Function) });
    // Kept at the 304: fresh for another max age from then, so nothing more is sent.
    clock.now = T0 + 2 * MAX_AGE;
    expect((await send(get())).text).toBe(LIST.text);
    expect(seen).toHaveLength(2);
  });

  it('an error is never kept, not even by a run that succeeds', async () => {
    const { cache } = cacheOf();
    const { send, seen } = drive(cache.layer(), [answer(404, { 'content-type': 'application/json' }, '{"title":"Not Found"}'), LIST]);
    (await send(get())).keep?.();
    await cache.commit(true);
    expect(await send(get())).toMatchObject({ status: 200, text: LIST.text });
    expect(seen).toHaveLength(2);
  });

  // Each a damaged entry, or one that belongs to another URL (a file copied over another):
  // the server is asked as if there were none, without validators.
  const damaged: [string, (e: Record<string, unknown>) => unknown][] = [
    ['without its time', ({ storedAt: _, ...rest }) => rest],
    ['with a status other than 200', (e) => ({ ...e, status: 500 })],
    ['without its body', ({ text: _, ...rest }) => rest],
    ['that is not an object', () => []],
    ['that is an empty object', () => ({})],
    ['of another URL', (e) => ({ ...e, url: new URL('other', BASE).href })],
  ];
  for (const [what, change] of damaged) {
    it(`an entry ${what} is a miss`, async () => {
      const { cache } = cacheOf();
      const { send, seen } = drive(cache.layer(), [LIST, answer(200, {}, '[]')]);
      await fetchAndKeep(send);
      rewriteAnswer(change);
      expect(await send(get())).toEqual({ ...answer(200, {}, '[]'), keep: expect.any(Function) });
      expect(seen).toHaveLength(2);
      expect(seen[1]!.headers).toEqual({ accept: 'application/json' });
    });
  }
});

describe('what is kept: keep() at once, else commit() of a run that succeeded', () => {
  it('keep() keeps the answer at once: a run that fails afterwards does not undo it', async () => {
    const { cache } = cacheOf();
    const { send, seen } = drive(cache.layer(), [LIST]);
    await fetchAndKeep(send);
    await cache.commit(false);
    await send(get());
    expect(seen).toHaveLength(1);
  });

  it("a shared store's writes that answer later are awaited by commit(), and none is held once settled", async () => {
    const { entries, storage } = memoryStore();
    let release = (): void => undefined;
    const later = new Promise<void>((resolve) => (release = resolve));
    const slow: CacheStorage = {
      ...storage,
      write: async (name, value) => {
        await later;
        await storage.write(name, value);
      },
    };
    const { cache } = cacheOf({ shared: slow });
    await fetchAndKeep(drive(cache.layer(), [LIST]).send);
    // White-box: the writes under way, which a long run (--watch) must not collect.
    const writing = (cache as unknown as { writing: Set<Promise<void>> }).writing;
    expect(writing.size).toBeGreaterThan(0);
    let committed = false;
    const commit = cache.commit(true).then(() => (committed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(committed).toBe(false);
    release();
    await commit;
    expect(entries.size).toBeGreaterThan(0);
    expect(writing.size).toBe(0);
  });

  it('an answer not kept is dropped by a failed run and kept by a run that succeeded', async () => {
    const { cache } = cacheOf();
    const { send, seen } = drive(cache.layer(), [LIST]);
    await send(get());
    await cache.commit(false);
    await send(get());
    expect(seen).toHaveLength(2);
    await cache.commit(true);
    await send(get());
    expect(seen).toHaveLength(2);
  });

  it('of two answers to one URL in a run, the later is kept, whichever keep() comes last', async () => {
    const { cache } = cacheOf();
    const { send, seen } = drive(cache.layer(), [answer(200, {}, '["older"]'), answer(200, {}, '["newer"]')]);
    const older = await send(get());
    const newer = await send(get());
    newer.keep?.();
    older.keep?.();
    await cache.commit(true);
    expect((await send(get())).text).toBe('["newer"]');
    expect(seen).toHaveLength(2);
  });

  it('commit() waits for the writes under way of a store that answers later, and for a failed one too', async () => {
    for (const how of ['by keep()', 'by commit()', 'failing'] as const) {
      let finish!: () => void;
      let fail!: (err: Error) => void;
      const shared: CacheStorage = {
        read: () => undefined,
        write: () => new Promise<void>((resolve, reject) => ((finish = resolve), (fail = reject))),
      };
      const { cache } = cacheOf({ shared });
      const { send } = drive(cache.layer(), [LIST]);
      const a = await send(get());
      if (how !== 'by commit()') a.keep?.();
      let committed = false;
      const commit = cache.commit(true).then(() => void (committed = true));
      await new Promise((r) => setImmediate(r));
      expect(committed, how).toBe(false);
      if (how === 'failing') fail(new Error('store gone'));
      else finish();
      await commit;
      expect(committed, how).toBe(true);
    }
  });
});

describe("a fleet's store: one process fetches, the others wait for its answer", () => {
  it('a miss takes the claim, then reads again: what another process filled meanwhile is served, and nothing is sent', async () => {
    const theirs = memoryStore();
    await fetchAndKeep(drive(cacheOf({ shared: { read: theirs.storage.read, write: theirs.storage.write } }).cache.layer(), [LIST]).send);
    const ours = memoryStore((name) => ours.entries.set(name, theirs.entries.get(name)));
    const { cache } = cacheOf({ shared: ours.storage });
    const { send, seen } = drive(cache.layer(), [answer(200, {}, '[]')]);
    expect(await send(get())).toEqual({ status: 200, headers: HEADERS, text: LIST.text });
    expect(seen).toHaveLength(0);
    expect(ours.claims).toEqual([join('answers', sha(get().url.href))]);
  });

  it('a fresh entry takes no claim, nor does a refresh (a claim makes the other processes wait)', async () => {
    const store = memoryStore();
    const { cache } = cacheOf({ shared: store.storage });
    const { send, seen } = drive(cache.layer(), [LIST]);
    await fetchAndKeep(send);
    store.claims.length = 0;
    await send(get());
    expect(seen).toHaveLength(1);
    const refresh = drive(cache.layer(true), [LIST]);
    await refresh.send(get());
    expect(refresh.seen).toHaveLength(1);
    expect(store.claims).toEqual([]);
  });
});

describe('the objects of lists, by public ID', () => {
  it('a collection never stored has none, and counts no hit', async () => {
    const { cache } = cacheOf();
    expect(await cache.objects('apps', ['ap-one'])).toEqual(new Map());
    expect(cache.hits).toBe(0);
  });

  it('serves the objects put within the max age, by ID; a call that found any counts one hit', async () => {
    const { cache, clock } = cacheOf();
    await cache.putObjects('apps', new Map([['ap-one', '{"publicId":"ap-one"}'], ['ap-two', '{"publicId":"ap-two"}']]));
    clock.now = T0 + MAX_AGE;
    expect(await cache.objects('apps', ['ap-one', 'ap-three'])).toEqual(new Map([['ap-one', '{"publicId":"ap-one"}']]));
    expect(cache.hits).toBe(1);
    expect(await cache.objects('apps', ['ap-three'])).toEqual(new Map());
    expect(cache.hits).toBe(1);
  });

  it('putting no objects writes nothing', async () => {
    await cacheOf().cache.putObjects('apps', new Map());
    expect(cacheInfo(root).entries).toBe(0);
  });

  it('a damaged object is not served, and the next put keeps only the fresh, sound ones', async () => {
    const { cache, clock } = cacheOf();
    await cache.putObjects('apps', new Map([['ap-old', '"old"']]));
    clock.now = T0 + 5 * MINUTE;
    await cache.putObjects('apps', new Map([['ap-mid', '"mid"']]));
    clock.now = T0 + MAX_AGE + 1; // ap-old is stale now, ap-mid is not
    const [file] = jsonFiles();
    const path = join(root, file!);
    const onDisk = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const now = clock.now;
    writeFileSync(path, JSON.stringify({ ...onDisk, 'ap-null': null, 'ap-textual-time': { storedAt: String(now), json: '"t"' }, 'ap-not-text': { storedAt: now, json: 42 } }));
    expect(await cache.objects('apps', ['ap-null', 'ap-textual-time', 'ap-not-text'])).toEqual(new Map());
    await cache.putObjects('apps', new Map([['ap-new', '"new"']]));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      'ap-mid': { storedAt: T0 + 5 * MINUTE, json: '"mid"' },
      'ap-new': { storedAt: now, json: '"new"' },
    });
  });
});

describe('cacheInfo and clearCache (hostctl cache info|clear)', () => {
  it('counts the .json files only, whatever else lies there, and the oldest is the earliest of them', () => {
    const answers = join(root, 'scope', 'answers');
    mkdirSync(join(answers, 'not-a-file.json'), { recursive: true });
    writeFileSync(join(answers, 'a.json'), '{"a":1}');
    writeFileSync(join(answers, 'b.json'), '{"b":22}');
    writeFileSync(join(answers, 'b.json.tmp-123'), 'a write under way');
    // Both ways round, so that whichever the directory lists first, the earliest is found.
    for (const [a, b] of [[1_000, 2_000], [2_000, 1_000]] as const) {
      utimesSync(join(answers, 'a.json'), a, a);
      utimesSync(join(answers, 'b.json'), b, b);
      expect(cacheInfo(root)).toEqual({ entries: 2, bytes: 15, oldest: 1_000_000 });
    }
  });

  it('clear removes every entry and says what there was; a cache never made clears to nothing', () => {
    expect(clearCache(join(root, 'never-made'))).toEqual({ entries: 0, bytes: 0 });
    mkdirSync(join(root, 'scope'));
    writeFileSync(join(root, 'scope', 'a.json'), '{}');
    expect(clearCache(root)).toMatchObject({ entries: 1, bytes: 2 });
    expect(() => statSync(root)).toThrow(/ENOENT/);
  });
});

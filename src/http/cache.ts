// The opt-in response cache (--cache DURATION, HOSTCTL_CACHE, profile `cache`): a private
// directory (0700, files 0600) per base URL and token fingerprint, never the token. Only
// successful reads are kept, never errors. Two parts:
// - a layer of the request path: a GET answered within DURATION is served from disk and
//   sends nothing; an older one that carried validators (ETag, Last-Modified) is
//   revalidated, and a 304 serves the stored body. A 200 is only a candidate: hostctl may
//   still reject it (an HTML page, JSON that does not parse, an object where a list
//   belongs), and a rejected answer replayed from disk would outlive the server's
//   recovery. So an answer is kept once it was used: by its response's keep() (a page
//   walk calls it for each page it accepted, so memory stays flat), else by commit(),
//   which the run calls once its command succeeded; a failed run keeps no other;
// - the objects of cached lists, by public ID, so that `get` of IDs a list has shown
//   sends no request (only the unseen ones are fetched).
// A damaged or unreadable cache is a miss; a cache that cannot be written is skipped.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writeFileAtomic } from '../config/atomic.js';
import type { Answer, Layer } from './layers.js';
import { isRecord } from '../json/narrow.js';

/** The response headers worth keeping: what the body means and how to revalidate it. */
const KEPT_HEADERS = ['content-type', 'etag', 'last-modified', 'link', 'x-total-count'];

interface StoredAnswer {
  url: string;
  storedAt: number;
  status: number;
  headers: Record<string, string>;
  text: string;
}

interface StoredObject {
  storedAt: number;
  /** The object as JSON text, kept losslessly. */
  json: string;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Where the entries live: files in the cache directory (default), or a fleet's shared
 * store (src/http/redis.ts), named by `name` (digests only) within one scope. A storage
 * that fails reads as a miss and keeps nothing.
 */
export interface CacheStorage {
  read(name: string): unknown;
  write(name: string, value: unknown): void | Promise<void>;
  /**
   * A claim to fetch `name` while other processes wait for it (shared storage only):
   * resolves once this process holds the claim, or another filled it or its claim lapsed.
   * The caller reads the entry again either way, so which of these it was does not matter.
   */
  claim?(name: string): Promise<void>;
}

function isStoredAnswer(v: unknown): v is StoredAnswer {
  return isRecord(v) && typeof v.url === 'string' && typeof v.storedAt === 'number' && v.status === 200 && isRecord(v.headers) && typeof v.text === 'string';
}

/** The cache directory's files. */
function fileStorage(dir: string): CacheStorage {
  return {
    read: (name) => readJsonFile(join(dir, `${name}.json`)),
    write(name, value) {
      const path = join(dir, `${name}.json`);
      try {
        mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
        writeFileAtomic(path, JSON.stringify(value), 0o600);
      } catch {
        // A full or read-only disk: the answer is simply not kept.
      }
    },
  };
}

export class ResponseCache {
  private readonly storage: CacheStorage;
  /** Answers and objects served without a request, for -R. */
  hits = 0;
  /** The answers of this run, by file, kept by commit() (see above). */
  private readonly pending = new Map<string, () => void | Promise<void>>();
  private readonly writing = new Set<Promise<void>>();

  /** `shared`: a fleet's store for the scope's entries, given the scope's digest. */
  constructor(
    root: string,
    baseUrl: URL,
    fingerprint: string,
    readonly maxAgeMs: number,
    private readonly now: () => number,
    shared?: (scope: string) => CacheStorage,
  ) {
    // The scope names neither the URL nor the token: a digest of both.
    const scope = sha(`${baseUrl.href}\n${fingerprint}`).slice(0, 32);
    this.storage = shared ? shared(scope) : fileStorage(join(root, scope));
  }

  private answerPath(url: URL): string {
    return join('answers', sha(url.href));
  }

  private objectsPath(collection: string): string {
    return join('objects', sha(collection));
  }

  private write(path: string, value: unknown): void | Promise<void> {
    return this.storage.write(path, value);
  }

  private fresh(storedAt: number): boolean {
    const age = this.now() - storedAt;
    return age >= 0 && age <= this.maxAgeMs;
  }

  /**
   * The layer: serves fresh answers, revalidates stale ones with validators, keeps 200s.
   * `refresh`: always ask the server (still with validators), and keep its answer.
   */
  layer(refresh = false): Layer {
    return (next) => async (x) => {
      if (x.method !== 'GET') return next(x);
      const path = this.answerPath(x.url);
      const lookup = async () => {
        const raw = await this.storage.read(path);
        return isStoredAnswer(raw) && raw.url === x.url.href ? raw : undefined;
      };
      let stored = await lookup();
      // A fleet's store: one process fetches what is missing, the others wait and read it.
      // Read again after the claim either way: the one who filled it may have finished (and
      // let go of its claim) between this process's miss and its claim.
      if (!refresh && !(stored && this.fresh(stored.storedAt)) && this.storage.claim) {
        await this.storage.claim(path);
        stored = await lookup();
      }
      if (stored && !refresh && this.fresh(stored.storedAt)) {
        this.hits++;
        return { status: 200, headers: { ...stored.headers }, text: stored.text };
      }
      const headers = { ...x.headers };
      if (stored?.headers.etag) headers['if-none-match'] = stored.headers.etag;
      if (stored?.headers['last-modified']) headers['if-modified-since'] = stored.headers['last-modified'];
      const answer = await next({ ...x, headers });
      if (answer.status === 304 && stored) {
        const storedAt = this.now();
        const keep = this.defer(path, () => this.write(path, { ...stored, storedAt }));
        // The 304's own headers (rate limit, a new ETag) win over the stored ones.
        return { status: 200, headers: { ...stored.headers, ...answer.headers }, text: stored.text, keep };
      }
      if (answer.status === 200) {
        const storedAt = this.now();
        return { ...answer, keep: this.defer(path, () => this.store(path, x.url, answer, storedAt)) };
      }
      return answer;
    };
  }

  /** Holds a write until the answer is used: returns what keeps it now (ApiResponse.keep). */
  private defer(path: string, write: () => void | Promise<void>): () => void {
    this.pending.set(path, write);
    return () => {
      if (this.pending.get(path) !== write) return;
      this.pending.delete(path);
      this.track(write());
    };
  }

  /** A write under way (a fleet's store answers later): commit() waits for it. */
  private track(written: void | Promise<void>): void {
    if (!written) return;
    const done: Promise<void> = written.catch(() => undefined).then(() => {
      this.writing.delete(done);
    });
    this.writing.add(done);
  }

  /**
   * Called once the command has ended: keeps the answers of this run not kept yet when it
   * `succeeded`, and waits for every write under way.
   */
  async commit(succeeded: boolean): Promise<void> {
    if (succeeded) for (const write of this.pending.values()) this.track(write());
    this.pending.clear();
    await Promise.all([...this.writing]);
  }

  private store(path: string, url: URL, answer: Answer, storedAt: number): void | Promise<void> {
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const v = answer.headers[name];
      if (v !== undefined) headers[name] = v;
    }
    return this.write(path, { url: url.href, storedAt, status: 200, headers, text: answer.text } satisfies StoredAnswer);
  }

  /** The objects of `collection` seen within the max age, as JSON text by public ID. */
  async objects(collection: string, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const raw = await this.storage.read(this.objectsPath(collection));
    if (!isRecord(raw)) return out;
    for (const id of ids) {
      const o = raw[id];
      if (isRecord(o) && typeof o.storedAt === 'number' && typeof o.json === 'string' && this.fresh(o.storedAt)) out.set(id, o.json);
    }
    if (out.size > 0) this.hits++;
    return out;
  }

  /** Keeps objects (JSON text by public ID) of `collection`, dropping those past the max age. */
  async putObjects(collection: string, objects: ReadonlyMap<string, string>): Promise<void> {
    if (objects.size === 0) return;
    const path = this.objectsPath(collection);
    const raw = await this.storage.read(path);
    const kept: Record<string, StoredObject> = {};
    if (isRecord(raw)) {
      for (const [id, o] of Object.entries(raw)) {
        if (isRecord(o) && typeof o.storedAt === 'number' && typeof o.json === 'string' && this.fresh(o.storedAt)) kept[id] = { storedAt: o.storedAt, json: o.json };
      }
    }
    const storedAt = this.now();
    for (const [id, json] of objects) kept[id] = { storedAt, json };
    await this.write(path, kept);
  }
}

export interface CacheInfo {
  entries: number;
  bytes: number;
  /** Epoch ms of the oldest file, undefined when empty. */
  oldest?: number;
}

/** Every cached file under `root`, whatever its scope. */
export function cacheInfo(root: string): CacheInfo {
  const info: CacheInfo = { entries: 0, bytes: 0 };
  let files: string[];
  try {
    files = readdirSync(root, { recursive: true, encoding: 'utf8' });
  } catch {
    return info;
  }
  for (const f of files) {
    if (!f.endsWith('.json')) continue;
    try {
      const st = statSync(join(root, f));
      if (!st.isFile()) continue;
      info.entries++;
      info.bytes += st.size;
      if (info.oldest === undefined || st.mtimeMs < info.oldest) info.oldest = st.mtimeMs;
    } catch {
      // Removed meanwhile by another process.
    }
  }
  return info;
}

export function clearCache(root: string): CacheInfo {
  const before = cacheInfo(root);
  rmSync(root, { recursive: true, force: true });
  return before;
}

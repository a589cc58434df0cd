// list_objects' cursors: where a list stopped, sealed with a key this process drew at
// random, so that an agent (or text an agent read somewhere) cannot make one up. A cursor
// names URLs the token is sent to; one that hostctl did not make, or made for another
// list or base URL, is refused before anything is sent, and so is any URL outside the
// base URL, whatever the seal says.

import { UsageError } from '../errors.js';
import { isRecord } from '../json/narrow.js';
import { staysUnder } from '../http/origin.js';
import type { Position, Source } from '../core/relations.js';

/** Where a list stopped: what it reads, and the position in it. */
export interface Cursor {
  resource: string;
  /** The filter, `app=ap-…`, or null. */
  filter: string | null;
  baseUrl: string;
  sources: Source[];
  at: Position;
}

const notOurs = () =>
  new UsageError(
    'The cursor is not one list_objects returned.',
    'Pass nextCursor exactly as the previous list_objects call of this server returned it, or leave it out to start again.',
  );

function isSource(v: unknown): v is Source {
  return isRecord(v) && typeof v.what === 'string' && typeof v.path === 'string' && (v.keep === undefined || (Array.isArray(v.keep) && v.keep.every((k) => typeof k === 'string')));
}

function isPosition(v: unknown): v is Position {
  return isRecord(v) && Number.isSafeInteger(v.source) && Number(v.source) >= 0 && Number.isSafeInteger(v.skip) && Number(v.skip) >= 0 && (v.url === undefined || typeof v.url === 'string');
}

/** Whether `raw` (a path under the base URL, or a full URL) lands inside the base URL. */
function insideBase(base: URL, raw: string): boolean {
  let url: URL;
  try {
    url = /^[a-z][a-z\d+.-]*:\/\//i.test(raw) ? new URL(raw) : new URL(`${base.origin}${base.pathname.replace(/\/+$/, '')}/${raw.replace(/^[/\\]+/, '')}`);
  } catch {
    return false;
  }
  return url.origin === base.origin && staysUnder(base.pathname, url.pathname);
}

// Web Crypto rather than node:crypto, which the build loads lazily for a fixed list of
// functions (scripts/trim.mjs); its verify compares in constant time.
const HMAC = { name: 'HMAC', hash: 'SHA-256' } as const;

export class Cursors {
  private key?: Promise<CryptoKey>;

  private keyOf(): Promise<CryptoKey> {
    return (this.key ??= globalThis.crypto.subtle.importKey('raw', globalThis.crypto.getRandomValues(new Uint8Array(32)), HMAC, false, ['sign', 'verify']));
  }

  async seal(c: Cursor): Promise<string> {
    const body = Buffer.from(JSON.stringify(c)).toString('base64url');
    const tag = await globalThis.crypto.subtle.sign(HMAC, await this.keyOf(), Buffer.from(body));
    return `${body}.${Buffer.from(tag).toString('base64url')}`;
  }

  /** The cursor of the list `want` describes, or a usage error. */
  async open(raw: string, want: { resource: string; filter: string | null; baseUrl: URL }): Promise<Cursor> {
    const [body, tag, ...rest] = raw.split('.');
    if (body === undefined || tag === undefined || rest.length > 0) throw notOurs();
    if (!(await globalThis.crypto.subtle.verify(HMAC, await this.keyOf(), Buffer.from(tag, 'base64url'), Buffer.from(body)))) throw notOurs();
    let c: unknown;
    try {
      c = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw notOurs();
    }
    if (
      !isRecord(c) ||
      typeof c.resource !== 'string' ||
      (c.filter !== null && typeof c.filter !== 'string') ||
      typeof c.baseUrl !== 'string' ||
      !Array.isArray(c.sources) ||
      !c.sources.every(isSource) ||
      !isPosition(c.at)
    ) {
      throw notOurs();
    }
    const cursor: Cursor = { resource: c.resource, filter: c.filter, baseUrl: c.baseUrl, sources: c.sources, at: c.at };
    if (cursor.resource !== want.resource || cursor.filter !== want.filter || cursor.baseUrl !== want.baseUrl.href) {
      throw new UsageError('This cursor belongs to another list (another resource, filter or base URL).', 'Pass the same resource and filter as the call that returned it.');
    }
    const urls = [...cursor.sources.map((s) => s.path), ...(cursor.at.url === undefined ? [] : [cursor.at.url])];
    if (cursor.at.source >= cursor.sources.length || !urls.every((u) => insideBase(want.baseUrl, u))) throw notOurs();
    return cursor;
  }
}

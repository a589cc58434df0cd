// --dry-run: in place of the whole request path, the request is written out (method, URL,
// headers with the token as `****` + its last four, body) and the command stops there with
// exit 0. Nothing below runs: no budget slot is reserved, no cache is read or written, no
// connection is opened, no rejected mark is consulted (the run has said so: context.ts).

import { redacted } from '../io.js';
import { StopHere } from '../errors.js';
import type { Exchange, ExchangeHandler } from './layers.js';

export interface DryRunOptions {
  /** The token the request would carry; '' when there is none (`Bearer <none>`). */
  secret: string;
  /** One JSON object per request rather than a line of text. */
  json: boolean;
  /** What the request would be followed by, when the command would send more (ApiRequest.then). */
  then?: string;
  out: (text: string) => void;
  /** A note on stderr (silenced by -q). */
  note: (text: string) => void;
}

/** The request as it would go out: the token layer's header added, shown redacted. */
function dryRunRecord(x: Exchange, secret: string): { method: string; url: string; headers: Record<string, string>; body?: string } {
  const headers = { ...x.headers, authorization: `Bearer ${secret ? redacted(secret) : '<none>'}` };
  const body = x.body === undefined ? undefined : typeof x.body === 'string' ? x.body : Buffer.from(x.body).toString('utf8');
  return { method: x.method, url: x.url.href, headers, ...(body === undefined ? {} : { body }) };
}

const shellQuoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function dryRun(o: DryRunOptions): ExchangeHandler {
  return async (x) => {
    const r = dryRunRecord(x, o.secret);
    if (o.json) {
      o.out(`${JSON.stringify(o.then ? { ...r, then: o.then } : r)}\n`);
    } else {
      const headers = Object.entries(r.headers).map(([k, v]) => ` -H ${shellQuoted(`${k}: ${v}`)}`);
      o.out(`${r.method} ${r.url}${headers.join('')}${r.body === undefined ? '' : ` --data ${shellQuoted(r.body)}`}\n`);
      if (o.then) o.note(`hostctl: dry run: only the first request is shown; ${o.then}.`);
    }
    throw new StopHere();
  };
}

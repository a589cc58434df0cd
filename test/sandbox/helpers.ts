// Plain node:http requests for the sandbox's tests: fetch always sends an Accept header,
// and the JSON-LD rule is about requests that send none. localAddress lets a test come
// from another loopback address (127.0.0.2) to prove that counting is per IP.

import { Agent, request } from 'node:http';

export interface Res {
  status: number;
  headers: Record<string, string>;
  text: string;
  json(): unknown;
}

export interface ReqOptions {
  method?: string;
  /** A token, sent as "Authorization: Bearer …". */
  token?: string;
  /** Header values; undefined leaves a header out. */
  headers?: Record<string, string | undefined>;
  body?: string;
  localAddress?: string;
  agent?: Agent;
}

export const JSON_ACCEPT = { accept: 'application/json' };

export function req(url: string, opts: ReqOptions = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = v;
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
    const u = new URL(url);
    const r = request(
      {
        host: u.hostname,
        port: u.port,
        // The raw path and query as given: brackets stay raw, %5B%5D stays encoded.
        path: url.slice(u.origin.length),
        method: opts.method ?? 'GET',
        headers,
        localAddress: opts.localAddress,
        agent: opts.agent ?? false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers: h, text, json: () => JSON.parse(text) as unknown });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(opts.body);
  });
}

export type Obj = Record<string, unknown>;

export function asObjects(v: unknown): Obj[] {
  if (!Array.isArray(v)) throw new Error(`expected an array, got ${JSON.stringify(v).slice(0, 200)}`);
  return v as Obj[];
}

export function ids(v: unknown): string[] {
  return asObjects(v).map((o) => String(o.publicId));
}

/** Creates a token through the admin API and returns its full value. */
export async function createToken(origin: string, name: string, person?: string): Promise<string> {
  const res = await req(`${origin}/_sandbox/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(person ? { name, person } : { name }),
  });
  if (res.status !== 201) throw new Error(`token ${name}: ${res.status} ${res.text}`);
  return String((res.json() as Obj).token);
}

/** Every object of a collection, straight from the admin endpoint (no token, no paging). */
export async function allObjects(origin: string, resource: string): Promise<Obj[]> {
  return asObjects((await req(`${origin}/_sandbox/objects/${resource}`)).json());
}

export function expectRateHeaders(res: Res): void {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    if (!/^\d+$/.test(res.headers[h] ?? '')) throw new Error(`${h} missing or not a number on a ${res.status}: ${JSON.stringify(res.headers)}`);
  }
}

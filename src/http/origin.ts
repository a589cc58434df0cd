// The origin guard and the redirect layer. A request names a path under the base URL, or
// an absolute URL of the base URL's origin, and nothing else: the token goes to that
// origin only. A redirect is followed only where that stays safe: http(s) only, no plain
// http off loopback, no request body resent to another origin, and another origin gets
// none of the user's headers (the token layer, bearer.ts, never sends it the token).

import { ApiError, UsageError } from '../errors.js';
import { isLoopbackHost } from '../config/url.js';
import { oneLine } from '../output/sanitize.js';
import type { Exchange, Layer } from './layers.js';

export const MAX_REDIRECTS = 5;

/** The only request headers a redirect to another origin keeps: they say nothing about the user. */
const HARMLESS_HEADERS = new Set(['accept', 'accept-language', 'user-agent', 'content-type']);

/** `%2e` → `.`, `%2f` → `/`, …, until nothing is left to decode (so `%252e` too, however often escaped). */
function decoded(path: string): string {
  let text = path;
  // Each round that changes the text makes it shorter, so this ends.
  for (;;) {
    const next = text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === text) return text;
    text = next;
  }
}

/**
 * Where a path lands as a server that decodes and normalizes it reads it: percent-escapes
 * decoded (`%2e%2e`, `..%2f`, twice-escaped too), backslashes as slashes, `.` and `..`
 * resolved. Undefined when `..` climbs above the root.
 */
function landing(pathname: string): string | undefined {
  const out: string[] = [];
  for (const segment of decoded(pathname).replace(/\\/g, '/').split('/').slice(1)) {
    if (segment === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else if (segment !== '.') {
      out.push(segment);
    }
  }
  return `/${out.join('/')}`;
}

/** Whether `pathname` stays at or under `basePath` (`/v1`), however a server decodes it. */
export function staysUnder(basePath: string, pathname: string): boolean {
  const base = basePath.replace(/\/+$/, '');
  const lands = landing(pathname);
  if (lands === undefined) return false;
  return base === '' || lands === base || lands.startsWith(`${base}/`);
}

/**
 * A path relative to the base URL, or an absolute URL of the base URL's origin, as a URL.
 * Any other origin is a UsageError, before anything is sent; so is a relative path that
 * climbs out of the base URL's path (`/../x`, `%2e%2e/x`, `..%2fx`, `..\\x`): the token
 * would go to another part of the host. A full same-origin URL is taken as given on purpose.
 */
export function resolveUrl(base: URL, path: string): URL {
  let url: URL;
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(path)) {
    try {
      url = new URL(path);
    } catch {
      throw new UsageError(`"${oneLine(path, 200)}" is not a valid URL.`, 'Give a path relative to the base URL, such as /apps.');
    }
    if (url.origin !== base.origin) {
      throw new UsageError(
        `Refusing ${url.origin}: hostctl sends requests (and the token) only to the base URL's origin, ${base.origin}.`,
        'Give a path relative to the base URL, such as /apps, or change --base-url.',
      );
    }
  } else {
    const basePath = base.pathname.replace(/\/+$/, '');
    url = new URL(`${base.origin}${basePath}/${path.replace(/^[/\\]+/, '')}`);
    // Defensive: a relative path must never leave the origin, whatever it holds.
    if (url.origin !== base.origin) throw new UsageError(`The path "${oneLine(path, 200)}" leaves the base URL.`, 'Give a path such as /apps.');
    if (!staysUnder(basePath, url.pathname)) {
      const lands = landing(url.pathname) ?? '/';
      throw new UsageError(
        `The path "${oneLine(path, 200)}" resolves to ${oneLine(`${url.origin}${lands}${url.search}`, 240)}, outside the base URL ${base.origin}${basePath}; nothing was sent.`,
        `Give a path under the base URL, such as /apps; to call another path of ${base.origin} on purpose, give its full URL.`,
      );
    }
  }
  url.hash = '';
  return url;
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** The next hop of a redirect, or an ApiError when following it would be unsafe. */
export function nextHop(prev: Exchange, status: number, location: string): Exchange {
  let next: URL;
  try {
    next = new URL(location, prev.url);
  } catch {
    throw new ApiError(`The API redirected to an invalid address (${oneLine(location, 120)}).`, 'Check --base-url.', { status });
  }
  next.hash = '';
  if (next.protocol !== 'https:' && next.protocol !== 'http:') {
    throw new ApiError(`The API redirected to a ${next.protocol} address; hostctl follows http(s) redirects only.`, 'Check --base-url.', { status });
  }
  if (next.protocol === 'http:' && !isLoopbackHost(next.hostname)) {
    throw new ApiError(
      `The API redirected to plain http (${next.origin}); hostctl refuses to follow, so that nothing travels unencrypted.`,
      'Check --base-url; use the https:// address of the API.',
      { status },
    );
  }
  // 301/302/303 turn into a GET without a body, as browsers, curl -L and Go do;
  // 307/308 keep the method and body.
  const keep = status === 307 || status === 308 || prev.method === 'GET' || prev.method === 'HEAD';
  const cross = next.origin !== prev.url.origin;
  if (cross && keep && prev.body !== undefined) {
    throw new ApiError(
      `The API redirected ${prev.method} ${prev.url.pathname} to another origin (${next.origin}) with ${status}, which would resend the request body there; hostctl does not follow.`,
      'Check --base-url; it should point at the API itself.',
      { status },
    );
  }
  let headers = { ...prev.headers };
  if (cross) {
    // Another origin gets none of the user's -H headers (a cookie, an API key), only
    // what any client sends: undici's own redirect handler drops cookie and
    // proxy-authorization for the same reason.
    headers = Object.fromEntries(Object.entries(headers).filter(([name]) => HARMLESS_HEADERS.has(name)));
  }
  if (!keep) delete headers['content-type'];
  // A new object, without `unpaced`: a hop waits for its slot like any request. With the
  // signal: a hop is cancelled with its call.
  const hop: Exchange = { method: keep ? prev.method : 'GET', url: next, headers, body: keep ? prev.body : undefined };
  if (prev.signal) hop.signal = prev.signal;
  return hop;
}

export interface RedirectOptions {
  /** The base URL's origin, to say in the note which hops go without the token. */
  origin: string;
  /** With --verbose: one line per hop followed. */
  note?: (line: string) => void;
}

/**
 * Follows up to MAX_REDIRECTS redirects; each hop goes down the whole pipeline again (its
 * own slot, its own 429 wait). The answer names the hop that gave it.
 */
export function redirects(o: RedirectOptions): Layer {
  return (next) => async (first) => {
    let x = first;
    for (let hops = 0; ; hops++) {
      const res = await next(x);
      const location = res.headers.location;
      if (!isRedirect(res.status) || !location) return { ...res, url: x.url, method: x.method };
      if (hops >= MAX_REDIRECTS) {
        throw new ApiError(
          `The API redirected more than ${MAX_REDIRECTS} times for ${first.method} ${first.url.pathname}; hostctl stopped following.`,
          'Check --base-url; it should point at the API itself (ending in /v1).',
          { status: res.status },
        );
      }
      x = nextHop(x, res.status, location);
      if (o.note) o.note(`* following redirect to ${oneLine(x.url.href, 2000)}${x.url.origin !== o.origin ? ' (another origin: without the token)' : ''}`);
    }
  };
}

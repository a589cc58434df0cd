// The base URL's rules, below the context so that the config store and the HTTP client
// can check a URL without loading the context (which loads them).

import { UsageError } from '../errors.js';
import { oneLine } from '../output/sanitize.js';

// Exactly the contract's list. Not `*.localhost`: where the resolver is `files dns` (most
// Linux), such a name is asked of the DNS server, which could point it anywhere, and the
// token would travel there in clear text.
const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(h)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * A URL as text with the password of its user:password@ part masked, for a message about a
 * URL that may not even parse: everything from `://` (or the start) to the last `@` is the user
 * part (a password may hold `@` or `/`), and what follows the first `:` there is masked.
 */
export function maskCredentials(raw: string): string {
  return raw.replace(/^((?:[^:/?#\s]+:\/\/)?)(.*)@/s, (_all, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${scheme}${colon === -1 ? userinfo : `${userinfo.slice(0, colon)}:****`}@`;
  });
}

/**
 * Checks a base URL: https, or http on a loopback host only, so that a token never
 * crosses a network in clear text. Returns it without a trailing slash.
 */
export function parseBaseUrl(raw: string, origin: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`The base URL from ${origin} is not a valid URL: ${oneLine(maskCredentials(raw), 120)}.`, 'Give a URL such as https://api.example.com/v1.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`The base URL from ${origin} uses ${oneLine(url.protocol, 20)}, not https:, and must be https:// (or http:// on a loopback host).`, 'Give a URL such as https://api.example.com/v1.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new UsageError(
      `Refusing base URL ${url.origin} from ${origin}: the token may only travel over https (plain http is allowed for loopback hosts only).`,
      'Use an https:// base URL.',
    );
  }
  if (url.username || url.password) {
    throw new UsageError(`The base URL from ${origin} must not contain credentials.`, 'Remove the user:password@ part.');
  }
  withoutExtras(url);
  // Every path of the API is under /v1; without it every request would go astray (a web
  // page, a 404) and the token with it.
  if (!/\/v1$/.test(url.pathname)) {
    throw new UsageError(
      `The base URL from ${origin} must end in /v1, the API's version: ${oneLine(url.href, 120)} does not.`,
      `Give the API's address with its version, such as ${url.origin}/v1.`,
    );
  }
  return url;
}

/** Drops what never belongs to a base URL: query, fragment, trailing slashes. */
function withoutExtras(url: URL): URL {
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/**
 * The key under which the state and the kept reference file things per base URL: the
 * base URL as parseBaseUrl makes it, as text without a trailing slash; undefined when
 * `base` is not a URL.
 */
export function baseUrlKey(base: URL | string): string | undefined {
  let url: URL;
  try {
    url = new URL(typeof base === 'string' ? base : base.href);
  } catch {
    return undefined;
  }
  return withoutExtras(url).href.replace(/\/+$/, '');
}

/**
 * The `&`-separated parts of a query string (its `?` optional) whose key, decoded as a
 * form would (`+` a space), is not `key`; each part as it was, not re-encoded.
 */
export function queryPartsWithout(query: string, key: string): string[] {
  return query
    .replace(/^\?/, '')
    .split('&')
    .filter((part) => part !== '' && decodeQueryText(part.split('=')[0]!) !== key);
}

function decodeQueryText(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

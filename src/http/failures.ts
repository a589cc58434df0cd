// From what went wrong on the wire to the typed errors of src/errors.ts, with their
// messages: an HTTP status with its body, or a network failure from undici. Every message
// is one or two plain sentences with the next step. The token is replaced where every
// message is written (the sink in io.ts), and before any cut (oneLine), so it never shows.

import { ApiError, AuthError, HostctlError, NetworkError, NotFoundError, RateLimitError } from '../errors.js';
import { oneLine } from '../output/sanitize.js';
import { MAX_JSON_DEPTH } from '../output/json.js';
import { formatSeconds } from '../output/time.js';
import { isRecord } from '../json/narrow.js';
import { isHtmlType, looksLikeHtml } from './media-type.js';
import { PROXY_RETRY_CODE } from './proxy.js';
import { newTokenAdvice } from '../auth/advice.js';
import { RESOURCES } from '../resources.js';

/**
 * What the server said about the error, as one short line: the detail, title, message
 * or error member of a JSON body (problem+json and the usual shapes), never HTML.
 */
export function errorDetail(text: string, contentType: string | undefined): string | undefined {
  if (isHtmlType(contentType) || looksLikeHtml(text)) return 'an HTML error page';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const pick = (o: Record<string, unknown>): string | undefined => {
    for (const key of ['detail', 'title', 'message', 'error_description', 'error', 'hydra:description', 'hydra:title']) {
      const v = o[key];
      if (typeof v === 'string' && v.trim()) return v;
      if (isRecord(v)) {
        const inner = pick(v);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  if (!isRecord(body)) return undefined;
  const found = pick(body);
  if (found === undefined) return undefined;
  const line = oneLine(found);
  return line ? `"${line}"` : undefined;
}

export interface StatusContext {
  status: number;
  statusText: string;
  method: string;
  url: URL;
  text: string;
  contentType: string | undefined;
  /** false when a redirect led to another origin, which got no token. */
  tokenSent?: boolean;
  /** true when a 401's rejected mark could be written nowhere: the next run would send the token again. */
  unrecorded?: boolean;
  /** The answer came from a hostctl sandbox (its X-Hostctl-Sandbox header). */
  sandbox?: boolean;
}

function describeRequest(method: string, url: URL): string {
  // Cut, as every echo of input is: a path or query can be as long as a server takes.
  return `${method} ${oneLine(`${url.pathname}${url.search}`, 200)}`;
}

/**
 * The command that lists what a 404's path was about: the first path segment that is a
 * resource's collection (`/v1/environments/en-1/deployments` is about the environment).
 */
function notFoundHint(url: URL): string {
  for (const segment of url.pathname.split('/')) {
    const resource = RESOURCES.find((r) => r.path === `/${segment}`);
    if (resource) return `Check the ID; "hostctl ${resource.name} list" shows the ${resource.name} this token can see.`;
  }
  return 'Check the path; "hostctl docs --operations" lists the paths the API has.';
}

/** The typed error for a non-2xx status other than 429. */
export function statusError(c: StatusContext): HostctlError {
  const what = describeRequest(c.method, c.url);
  const detail = errorDetail(c.text, c.contentType);
  // A detail that ends a sentence of its own ("…may see.") gets no second full stop.
  const said = detail ? ` The server said: ${detail}${/[.!?]"$/.test(detail) ? '' : '.'}` : '';
  const statusLine = `${c.status}${c.statusText ? ` ${c.statusText}` : ''}`;
  let err: HostctlError;
  if (c.status === 401 && c.tokenSent === false) {
    err = new ApiError(
      `A redirect led to ${c.url.origin}, which asks for credentials (401); hostctl sends the token only to the base URL's origin.`,
      'Check --base-url; it should point at the API itself.',
      { status: c.status },
    );
  } else if (c.status === 401 && c.unrecorded) {
    err = new AuthError(
      `The API rejected the token (${statusLine} for ${what}), and hostctl could not record this: neither the config dir nor any fallback place can be written, so the next run would send it again, and retrying a rejected token locks out your IP address.`,
      `Stop using this token now: unset HOSTCTL_TOKEN or run "hostctl auth logout". ${newTokenAdvice(c.sandbox === true)}`,
    );
  } else if (c.status === 401) {
    err = new AuthError(
      `The API rejected the token (${statusLine} for ${what}). hostctl will not send this token again, because retrying a rejected token locks out your IP address.`,
      newTokenAdvice(c.sandbox === true),
    );
  } else if (c.status === 403) {
    err = new AuthError(
      // The API document does not say what a locked-out address is answered (section 8), and
      // a server may answer it with 403: so the sentence blames neither the token nor the person.
      `The API refused this request (${statusLine} for ${what}).${said}`,
      'A token acts as the person who created it: check that this person may see the object in the dashboard. If the server speaks of failed authentications, this address is locked out for a while: wait before any further request.',
    );
  } else if (c.status === 404) {
    err = new NotFoundError(
      `Not found: ${what} (404).${said}`,
      notFoundHint(c.url),
    );
  } else if (c.status === 429) {
    err = new RateLimitError(
      `The API kept answering 429 Too Many Requests for ${what}; hostctl gave up resending.`,
      'Wait a minute and run the command again.',
    );
  } else if (c.status >= 500) {
    err = new ApiError(
      `The API failed with ${statusLine} for ${what}.${said}`,
      'This is a server-side problem; try again later.',
      { status: c.status },
    );
  } else if (c.status >= 300 && c.status < 400) {
    err = new ApiError(
      `The API answered ${statusLine} for ${what} with no usable redirect.${said}`,
      'Check --base-url; it should point at the API itself (ending in /v1).',
      { status: c.status },
    );
  } else {
    err = new ApiError(
      `The API refused the request with ${statusLine} for ${what}.${said}`,
      'Check the command and its arguments; run with --verbose to see the exchange.',
      { status: c.status },
    );
  }
  return err;
}

/** Error codes anywhere in an error's cause chain (undici wraps system errors). */
function errorCodes(err: unknown, depth = 0): string[] {
  if (depth > 5 || !(err instanceof Error || isRecord(err))) return [];
  const rec = err as unknown as Record<string, unknown>;
  const out: string[] = [];
  if (typeof rec.code === 'string') out.push(rec.code);
  if (typeof rec.name === 'string' && (rec.name === 'AbortError' || rec.name === 'TimeoutError')) out.push(rec.name);
  if (Array.isArray(rec.errors)) for (const e of rec.errors) out.push(...errorCodes(e, depth + 1));
  if (rec.cause !== undefined) out.push(...errorCodes(rec.cause, depth + 1));
  return out;
}

function firstMessage(err: unknown): string {
  if (err instanceof Error && err.message) return err.message;
  return String(err);
}

// Node's TLS and OpenSSL codes, and the certificate checks' codes (X509ErrorCode in Node's
// crypto_common.cc: X509_V_ERR_* without the prefix), of which INVALID_CA, PATH_LENGTH_EXCEEDED,
// INVALID_PURPOSE, CRL_* and ERROR_IN_* begin with none of the other prefixes.
const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_TLS_|ERR_SSL_|EPROTO$|HOSTNAME_MISMATCH|ERR_OSSL|CRL_|ERROR_IN_(CERT|CRL)_|INVALID_CA$|INVALID_PURPOSE$|PATH_LENGTH_EXCEEDED$)/;

function hostPort(url: URL): string {
  if (url.port) return url.host;
  return `${url.hostname}:${url.protocol === 'https:' ? 443 : 80}`;
}

export interface NetworkContext {
  url: URL;
  timeoutMs: number;
  timedOut: boolean;
  /** Headers had arrived: the failure happened while reading the body. */
  midResponse: boolean;
  /** The proxy the request went through (HTTPS_PROXY / HTTP_PROXY): its host:port and variable. */
  proxy?: { label: string; variable: string };
  /** Where the base URL came from (--base-url, HOSTCTL_BASE_URL, profile "x"), to name it. */
  baseUrlFrom?: string;
}

/**
 * A network failure as a NetworkError. The undici error is not kept as the cause: its
 * text could carry request details; a scrubbed copy of its code and message is.
 */
export function networkError(err: unknown, c: NetworkContext): NetworkError {
  const codes = errorCodes(err);
  const host = hostPort(c.url);
  const has = (...want: string[]) => codes.some((code) => want.includes(code));
  let message: string;
  let hint: string;
  let dropped = false;
  const proxyStatus = /Proxy response \((\d{3})\)/.exec(firstMessage(err))?.[1];
  const proxy = c.proxy ? `the proxy ${c.proxy.label} (${c.proxy.variable})` : 'the proxy';
  const via = c.proxy ? ` through ${proxy}` : '';
  if (proxyStatus === '407') {
    message = `${capitalised(proxy)} asks for credentials (407): it would not open a tunnel to ${host}.`;
    hint = `Check the user name and password in ${c.proxy?.variable ?? 'HTTPS_PROXY'} (http://user:password@host:port, special characters percent-encoded).`;
  } else if (proxyStatus) {
    message = `${capitalised(proxy)} refused to connect to ${host} (it answered ${proxyStatus}).`;
    hint = 'Check HTTPS_PROXY / HTTP_PROXY, or list the host in NO_PROXY to go without the proxy.';
  } else if (has(PROXY_RETRY_CODE)) {
    dropped = true;
    message = `${capitalised(proxy)} closed the connection before the tunnel to ${host} was open.`;
    hint = `Check the proxy in ${c.proxy?.variable ?? 'HTTPS_PROXY'} (and its credentials), or list the host in NO_PROXY to go without it.`;
  } else if (c.timedOut || has('UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'TimeoutError')) {
    message = `No answer from ${host}${via} within ${formatSeconds(c.timeoutMs)}${c.midResponse ? ' (the response stalled part-way)' : ''}.`;
    hint = 'Raise --timeout or try later.';
  } else if (has('ECONNREFUSED')) {
    message = `Could not connect to ${host}: connection refused.`;
    hint = `Is the server running, and is the base URL right (from ${c.baseUrlFrom ?? '--base-url'})?`;
  } else if (has('ENOTFOUND')) {
    message = `Could not find the host ${c.url.hostname}: the DNS lookup failed.`;
    hint = `Check the host name in the base URL (from ${c.baseUrlFrom ?? '--base-url, HOSTCTL_BASE_URL or the profile'}) and your network connection.`;
  } else if (has('EAI_AGAIN')) {
    message = `Could not look up the host ${c.url.hostname}: the DNS server did not answer.`;
    hint = 'Check your network connection and try again.';
  } else if (codes.some((code) => TLS_CODES.test(code))) {
    const code = codes.find((x) => TLS_CODES.test(x));
    message = `Could not make a secure connection to ${host} (${code}): the server's TLS certificate was not accepted.`;
    hint = 'Check the base URL; behind a proxy that inspects TLS, set NODE_EXTRA_CA_CERTS to its CA certificate file.';
  } else if (has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED')) {
    dropped = !c.midResponse;
    message = c.midResponse
      ? `The connection to ${host} broke off before the whole response had arrived.`
      : `The connection to ${host} was closed before the server answered.`;
    hint = 'Try again; if it keeps happening, check the server or any proxy in between.';
  } else if (has('EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN')) {
    message = `Could not reach ${host}: no route to the host.`;
    hint = 'Check your network connection, VPN or proxy settings (HTTPS_PROXY, NO_PROXY).';
  } else {
    message = `Could not talk to ${host}: ${oneLine(firstMessage(err), 120)}.`;
    hint = 'Check --base-url and your network connection; run with --verbose for details.';
  }
  if (c.proxy && !proxyStatus && !has(PROXY_RETRY_CODE)) hint = `${hint} The request went through ${proxy}; check it too.`;
  const code = codes[0];
  const cause = new Error(`${code ? `${code}: ` : ''}${oneLine(firstMessage(err), 2000)}`);
  return new NetworkError(message, hint, { cause, dropped });
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A JSON answer nested past MAX_JSON_DEPTH (docs/security.md). */
export function tooDeepError(where: string, status: number): ApiError {
  return new ApiError(
    `The API sent JSON nested more than ${MAX_JSON_DEPTH} levels deep for ${where}; hostctl refuses such documents.`,
    'The server is at fault: no API answer nests that deeply. Report it to the API operator.',
    { status },
  );
}

// The error-mapping layer: the final answer's status as the typed error of src/errors.ts.
// A module of its own (with node:http's status texts), so that what imports failures.ts
// or media-type.ts for their helpers (the reference, `api`) loads nothing more.

import { STATUS_CODES } from 'node:http';
import type { HostctlError } from '../errors.js';
import { statusError } from './failures.js';
import type { Answer, Layer } from './layers.js';
import { fromSandbox } from '../auth/advice.js';

export function statusText(status: number): string {
  return STATUS_CODES[status] ?? '';
}

export interface StatusMapping {
  /** The base URL's origin: only an answer from it answered the token. */
  origin: string;
  /** Whether a 401's rejected mark could be written somewhere (state.recorded). */
  recorded(): boolean;
}

export interface StatusErrorOptions extends StatusMapping {
  /** `hostctl api`: every status is an answer, none an error (it prints the body, then asks errorForStatus). */
  acceptAnyStatus: boolean;
}

/**
 * The typed error a final answer's status means, undefined for a 2xx: named by the
 * request that got it (after redirects, the last hop's method and URL).
 */
export function errorForStatus(res: Answer & { url: URL; method: string }, o: StatusMapping): HostctlError | undefined {
  if (res.status >= 200 && res.status <= 299) return undefined;
  const tokenSent = res.url.origin === o.origin;
  return statusError({
    status: res.status,
    statusText: statusText(res.status),
    method: res.method,
    url: res.url,
    text: res.text,
    contentType: res.headers['content-type'],
    tokenSent,
    unrecorded: res.status === 401 && tokenSent && !o.recorded(),
    sandbox: fromSandbox(res.headers),
  });
}

/**
 * The error-mapping layer: the final answer's status as a typed error. Outermost, because
 * a status is final only once nothing below acts on it any more: no redirect to follow, no
 * 429 to wait out, no 5xx to resend. (A failure of the network itself is mapped where
 * only it is known how it failed: on the wire, wire.ts.)
 */
export function statusErrors(o: StatusErrorOptions): Layer {
  return (next) => async (x) => {
    const res = await next(x);
    if (o.acceptAnyStatus) return res;
    const err = errorForStatus({ ...res, url: res.url ?? x.url, method: res.method ?? x.method }, o);
    if (err) throw err;
    return res;
  };
}

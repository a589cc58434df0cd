// The error-mapping layer: the final answer's status as the typed error of src/errors.ts.
// A module of its own (with node:http's status texts), so that what imports failures.ts
// or media-type.ts for their helpers (the reference, `api`) loads nothing more.

import { STATUS_CODES } from 'node:http';
import { statusError } from './failures.js';
import type { Layer } from './layers.js';
import { fromSandbox } from '../auth/advice.js';

export function statusText(status: number): string {
  return STATUS_CODES[status] ?? '';
}

export interface StatusErrorOptions {
  /** `hostctl api`: every status is an answer, none an error. */
  acceptAnyStatus: boolean;
  /** The base URL's origin: only an answer from it answered the token. */
  origin: string;
  /** Whether a 401's rejected mark could be written somewhere (state.recorded). */
  recorded(): boolean;
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
    if ((res.status >= 200 && res.status <= 299) || o.acceptAnyStatus) return res;
    const url = res.url ?? x.url;
    const tokenSent = url.origin === o.origin;
    throw statusError({
      status: res.status,
      statusText: statusText(res.status),
      method: res.method ?? x.method,
      url,
      text: res.text,
      contentType: res.headers['content-type'],
      tokenSent,
      unrecorded: res.status === 401 && tokenSent && !o.recorded(),
      sandbox: fromSandbox(res.headers),
    });
  };
}

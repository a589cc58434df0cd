// The token layer: the one place the token joins a request. Only an exchange with the
// base URL's origin carries it (a redirect elsewhere goes without), and a 401 to it marks
// the token rejected in the state file at once, for good: retrying a rejected credential
// locks out the IP address, so a marked token is never sent again, by this run either.

import { AuthError } from '../errors.js';
import { fromSandbox, newTokenAdvice } from '../auth/advice.js';
import { isRecord } from '../json/narrow.js';
import type { Layer } from './layers.js';

export interface BearerOptions {
  /** The base URL's origin: the only one that gets the token. */
  origin: string;
  secret: string;
  fingerprint: string;
  marks: {
    rejected(fingerprint: string): unknown;
    markRejected(fingerprint: string, status: number, sandbox?: boolean): void;
  };
}

export function bearer(o: BearerOptions): Layer {
  return (next) => async (x) => {
    const { authorization: _dropped, ...headers } = x.headers;
    if (x.url.origin !== o.origin) return next({ ...x, headers });
    const mark = o.marks.rejected(o.fingerprint);
    if (mark) {
      throw new AuthError(
        'The API rejected this token earlier in this run; hostctl will not send it again, because retrying a rejected token locks out your IP address.',
        newTokenAdvice(isRecord(mark) && mark.sandbox === true),
      );
    }
    const res = await next({ ...x, headers: { ...headers, authorization: `Bearer ${o.secret}` } });
    // Saved at once, so that even an interrupted run leaves the mark behind.
    if (res.status === 401) o.marks.markRejected(o.fingerprint, 401, fromSandbox(res.headers));
    return res;
  };
}

// The 429 layer: an answer 429 Too Many Requests is waited out as the server says
// (Retry-After, else Reset; within --max-wait, never with --no-wait: ratelimit.ts decides
// and throws RateLimitError) and the same exchange is sent again, paced this time. A
// server that answers 429 with "retry now" forever is not resent forever.

import { errorDetail } from './failures.js';
import type { Layer } from './layers.js';

export const MAX_429_RETRIES = 50;

export interface Wait429Options {
  /** Waits as the 429's headers say, or throws; `detail` is the server's one line. */
  on429(headers: Record<string, string>, detail: string | undefined): Promise<void>;
}

export function wait429(o: Wait429Options): Layer {
  return (next) => async (first) => {
    let x = first;
    for (let n = 0; ; n++) {
      const res = await next(x);
      if (res.status !== 429 || n >= MAX_429_RETRIES) return res;
      await o.on429(res.headers, errorDetail(res.text, res.headers['content-type']));
      // The window is spent whatever `unpaced` asked: the resend waits for its slot.
      x = { ...x, unpaced: false };
    }
  };
}

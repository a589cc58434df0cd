// The request path as a short pipeline of layers, in the spirit of undici's interceptors:
// each layer owns one concern, wraps the next one, and can be tested alone against a
// stub `next`. HttpClient composes them around the one exchange on the wire (its
// pipeline() says in which order, and why).

import { InterruptedError } from '../errors.js';

export interface Exchange {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  /**
   * Goes out even when the shared budget says the window is spent (`rate-limit
   * --refresh`). Only the request as first sent: a redirect hop or a resend after a 429
   * is paced.
   */
  unpaced?: boolean;
  /**
   * The caller's cancellation (HttpClient.forCall): once it aborts, nothing more is sent
   * for this exchange, a wait for the budget ends, and a request in flight is aborted.
   */
  signal?: AbortSignal;
}

export interface Answer {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** Set by the redirect layer: the hop that answered, when the answer passed through it. */
  url?: URL;
  method?: string;
  /** Set by the cache layer: keeps the answer, once the caller has used it (cache.ts). */
  keep?: () => void;
}

/** What answers an exchange: the wire at the bottom, or a layer wrapped around the next. */
export type ExchangeHandler = (x: Exchange) => Promise<Answer>;
export type Layer = (next: ExchangeHandler) => ExchangeHandler;

/** `layers[0]` is outermost: it sees the exchange first and the answer last. */
export function compose(layers: readonly Layer[], send: ExchangeHandler): ExchangeHandler {
  return layers.reduceRight<ExchangeHandler>((next, layer) => layer(next), send);
}

/** The methods that may be sent twice without changing anything on the server. */
export function isIdempotentRead(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** What an exchange ends with once its caller has cancelled it (Exchange.signal). */
export function cancelled(): InterruptedError {
  return new InterruptedError('The request was cancelled by its caller; nothing more is sent for it.');
}

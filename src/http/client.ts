// PLACEHOLDER: replaced by the HTTP core (see the interface below).
import type { IO } from '../io.js';
import type { Token } from '../auth/token.js';
import type { StateStore } from '../config/state.js';

export interface HttpClientOptions {
  baseUrl: URL;
  token: Token;
  userAgent: string;
  timeoutMs: number;
  maxWaitMs: number;
  wait: boolean;
  verbose: boolean;
  state: StateStore;
  io: IO;
}

export class HttpClient {
  constructor(readonly options: HttpClientOptions) {}
  async close(): Promise<void> {}
}

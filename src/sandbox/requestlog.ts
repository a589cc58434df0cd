// What tests ask the sandbox afterwards: which requests reached /v1, with what status and
// which token. Bounded, so a long-running sandbox does not grow without end.

import { stringifyJson, type JsonValue } from './json.js';

export interface LoggedRequest {
  method: string;
  path: string;
  /** The raw query string, without "?"; "" when there is none. */
  query: string;
  status: number;
  /** The name of the token that authenticated the request; null when none did. */
  token: string | null;
  ip: string;
  at: string;
  /** A POST's body as parsed JSON; null otherwise or when it was not JSON. */
  body: JsonValue;
}

export const MAX_LOGGED = 10_000;

export class RequestLog {
  private entries: LoggedRequest[] = [];

  add(entry: LoggedRequest): void {
    this.entries.push(entry);
    if (this.entries.length > MAX_LOGGED * 1.5) this.entries = this.entries.slice(-MAX_LOGGED);
  }

  clear(): void {
    this.entries = [];
  }

  toJson(): string {
    const list = this.entries.length > MAX_LOGGED ? this.entries.slice(-MAX_LOGGED) : this.entries;
    return `[${list
      .map((e) =>
        stringifyJson({ method: e.method, path: e.path, query: e.query, status: e.status, token: e.token, ip: e.ip, at: e.at, body: e.body }),
      )
      .join(',')}]`;
  }
}

// What tests ask the sandbox afterwards: which requests reached /v1, with what status and
// which token. Bounded in entries and in bytes, so a long-running sandbox does not grow
// without end.

import { stringifyJson, type JsonValue } from './exact-json.js';

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

const MAX_LOGGED = 10_000;
/** The most the log holds, as JSON text: the oldest entries go first past it. */
export const MAX_LOG_BYTES = 16 * 1024 * 1024;
/** A body larger than this (as JSON) is not kept, only its size. */
export const MAX_LOGGED_BODY_BYTES = 64 * 1024;

/**
 * Entries are kept as their JSON text, not as parsed values: a parsed body takes several
 * times its size in memory (300 POSTs of 650 KB took a log of parsed bodies to 1 GB), and
 * text is what GET /_sandbox/requests sends anyway.
 */
export class RequestLog {
  private entries: string[] = [];
  private first = 0;
  private bytes = 0;

  add(entry: LoggedRequest): void {
    let body = stringifyJson(entry.body);
    if (body.length > MAX_LOGGED_BODY_BYTES) body = JSON.stringify(`(a body of ${body.length} characters, not kept)`);
    const { method, path, query, status, token, ip, at } = entry;
    const head = stringifyJson({ method, path, query, status, token, ip, at });
    const text = `${head.slice(0, -1)},"body":${body}}`;
    this.entries.push(text);
    this.bytes += text.length;
    while (this.entries.length - this.first > MAX_LOGGED || (this.bytes > MAX_LOG_BYTES && this.entries.length - this.first > 1)) {
      this.bytes -= this.entries[this.first]!.length;
      this.first++;
    }
    // Drop the removed slots now and then, not on every add.
    if (this.first > 1024 && this.first * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.first);
      this.first = 0;
    }
  }

  clear(): void {
    this.entries = [];
    this.first = 0;
    this.bytes = 0;
  }

  toJson(): string {
    return `[${this.entries.slice(this.first).join(',')}]`;
  }
}

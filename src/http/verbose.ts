// The --verbose layer: each exchange on the wire, as curl -v shows it, on stderr. It sits
// just above the wire, below the token layer, so that it shows every request as sent
// (each hop, each resend; never an answer from the cache) with the token redacted.

import { redact } from '../auth/token.js';
import { Secrets } from '../io.js';
import { sanitize } from '../output/sanitize.js';
import { statusText } from './status.js';
import type { Exchange, Layer } from './layers.js';

export interface VerboseOptions {
  write(text: string): void;
  /** The token, shown redacted wherever it appears in a request header. */
  secret: string;
  now(): number;
}

export function verboseLog(o: VerboseOptions): Layer {
  // The sink masks its run's secrets too; this layer does not depend on what it was told.
  const own = new Secrets();
  own.add(o.secret);
  const write = (lines: string[]) => {
    // A hostile server could echo the token (in any case) or send control sequences in its
    // headers: masked by the one rule of the sink (io.ts), then sanitize() strips the rest.
    o.write(`${lines.map((l) => sanitize(own.scrub(l.replace(/\t/g, ' ')))).join('\n')}\n`);
  };
  return (next) => async (x) => {
    write(requestLines(x, o.secret));
    const started = o.now();
    const res = await next(x);
    const lines = [`< ${res.status} ${statusText(res.status)} (${Math.round(o.now() - started)} ms)`.replace('  ', ' ')];
    for (const [name, value] of Object.entries(res.headers)) lines.push(`< ${name}: ${value}`);
    write(lines);
    return res;
  };
}

function requestLines(x: Exchange, secret: string): string[] {
  const lines = [`> ${x.method} ${x.url.href}`];
  for (const [name, value] of Object.entries(x.headers)) {
    lines.push(`> ${name}: ${name === 'authorization' ? `Bearer ${redact(secret)}` : value}`);
  }
  if (x.body !== undefined) lines.push(`> (body: ${typeof x.body === 'string' ? Buffer.byteLength(x.body) : x.body.byteLength} bytes)`);
  return lines;
}

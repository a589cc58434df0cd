// JSON that keeps every value exactly as the API sent it. JSON.parse turns
// 12345678901234567890 into 12345678901234567000 and 1e400 into Infinity; a client that
// prints what it received must not. Such numbers are kept as JsonNumber (their source
// text) and written back raw. Everything else is plain JS values, as JSON.parse gives.

import { BIDI_CONTROLS, CONTROL_CHARS } from './sanitize.js';

/** A number whose value a JS number cannot hold exactly; `text` is its JSON source text. */
export class JsonNumber {
  constructor(readonly text: string) {}

  /** For arithmetic and comparisons; may be inexact, which is why `text` is kept. */
  valueOf(): number {
    return Number(this.text);
  }

  toString(): string {
    return this.text;
  }

  /** Only for code that uses JSON.stringify by mistake: a number rather than {"text": …}. */
  toJSON(): number {
    return Number(this.text);
  }
}

export function isJsonNumber(v: unknown): v is JsonNumber {
  return v instanceof JsonNumber;
}

// Only a number with 16 or more digits, or a three-digit exponent (overflow, underflow,
// subnormals), can change value in JSON.parse: 15 significant decimal digits always
// survive a double. Only number tokens are looked at: a number begins the document or
// follows ":", "[" or ",", while IDs and hex SHAs sit inside strings, after a quote. Text
// inside a string that looks like such a token is a false alarm, which only costs the
// slower parser.
const MAYBE_LOSSY = /(?:^|[:[,])\s*-?[0-9][0-9.]{15}|(?:^|[:[,])\s*-?[0-9][0-9.]*[eE][+-]?[0-9]{3}/;

/** Whether `text` may hold a number that JSON.parse would change (parseJson's fast path). */
export function mayBeLossy(text: string): boolean {
  return MAYBE_LOSSY.test(text);
}

/**
 * How deeply arrays and objects may nest in a document hostctl reads. Every walk over a
 * value (the printers, the JSON-LD stripper, --fields) recurses, and 10,000 levels would
 * overflow the stack; no API answer comes near this.
 */
export const MAX_JSON_DEPTH = 512;

/** A document nested deeper than MAX_JSON_DEPTH. */
export class JsonTooDeepError extends SyntaxError {
  constructor() {
    super(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
}

/**
 * Parses JSON text; throws SyntaxError when it is not valid JSON, JsonTooDeepError (a
 * SyntaxError) when it nests deeper than MAX_JSON_DEPTH.
 */
export function parseJson(text: string): unknown {
  checkDepth(text);
  if (!mayBeLossy(text)) return JSON.parse(text);
  return new LosslessParser(text).parseDocument();
}

function countOf(text: string, ch: string, atMost: number): number {
  let n = 0;
  for (let i = text.indexOf(ch); i !== -1 && n <= atMost; i = text.indexOf(ch, i + 1)) n++;
  return n;
}

/** Throws JsonTooDeepError when brackets outside strings nest deeper than MAX_JSON_DEPTH. */
function checkDepth(text: string): void {
  // Few brackets at all cannot nest deeply: most documents stop here, after a fast search.
  const opens = countOf(text, '[', MAX_JSON_DEPTH);
  if (opens + countOf(text, '{', MAX_JSON_DEPTH - opens) <= MAX_JSON_DEPTH) return;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i === -1) return;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
}

/** The index of the quote that closes the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  let i = start;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i === -1) return -1;
    let backslashes = 0;
    for (let j = i - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const LITERAL = /true|false|null/y;

class LosslessParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    const value = this.value(0);
    this.skipSpace();
    if (this.pos !== this.text.length) this.fail('Unexpected data after the JSON value');
    return value;
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.pos}`);
  }

  private skipSpace(): void {
    WHITESPACE.lastIndex = this.pos;
    WHITESPACE.exec(this.text);
    this.pos = WHITESPACE.lastIndex;
  }

  private token(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) return undefined;
    this.pos = re.lastIndex;
    return m[0];
  }

  private expect(ch: string): void {
    this.skipSpace();
    if (this.text[this.pos] !== ch) this.fail(`Expected '${ch}'`);
    this.pos++;
  }

  private value(depth: number): unknown {
    if (depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
    this.skipSpace();
    const ch = this.text[this.pos];
    if (ch === '{') return this.object(depth);
    if (ch === '[') return this.array(depth);
    if (ch === '"') return this.string();
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
      const num = this.token(NUMBER);
      if (num === undefined) this.fail('Invalid number');
      return numberFromText(num);
    }
    const lit = this.token(LITERAL);
    if (lit === 'true') return true;
    if (lit === 'false') return false;
    if (lit === 'null') return null;
    return this.fail(ch === undefined ? 'Unexpected end of JSON input' : 'Unexpected token');
  }

  // Found with indexOf, not one regular expression over the whole token: a regex with a
  // repeated alternation overflows its stack on a string of a few megabytes.
  private string(): string {
    const end = stringEnd(this.text, this.pos);
    if (end === -1) this.fail('Unterminated string');
    const tok = this.text.slice(this.pos, end + 1);
    let value: unknown;
    try {
      // Escapes and raw control characters are JSON.parse's to check.
      value = JSON.parse(tok);
    } catch {
      this.fail('Invalid string');
    }
    this.pos = end + 1;
    return value as string;
  }

  private object(depth: number): Record<string, unknown> {
    this.pos++;
    const out: Record<string, unknown> = {};
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('Expected a property name');
      const key = this.string();
      this.expect(':');
      setMember(out, key, this.value(depth + 1));
      this.skipSpace();
      const next = this.text[this.pos++];
      if (next === '}') return out;
      if (next !== ',') this.fail("Expected ',' or '}'");
    }
  }

  private array(depth: number): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.skipSpace();
      const next = this.text[this.pos++];
      if (next === ']') return out;
      if (next !== ',') this.fail("Expected ',' or ']'");
    }
  }
}

/**
 * A plain number when it holds the text's exact value, else a JsonNumber. An integer that
 * JS would write with an exponent (1e+21) is kept too: a consumer reading an integer type
 * would reject the exponent form.
 */
function numberFromText(text: string): number | JsonNumber {
  const n = Number(text);
  const shown = String(n);
  if (Number.isFinite(n) && sameDecimal(text, shown) && !(shown.includes('e') && /^-?[0-9]+$/.test(text))) return n;
  return new JsonNumber(text);
}

/** Whether two decimal texts (JSON or JS number syntax) denote the same value. */
function sameDecimal(a: string, b: string): boolean {
  const x = decimalParts(a);
  const y = decimalParts(b);
  if (x.digits === '' || y.digits === '') return x.digits === y.digits;
  return x.negative === y.negative && x.digits === y.digits && x.exponent === y.exponent;
}

/** Sign, significant digits and the exponent of the first one: 1234.5 → 12345, 3. */
function decimalParts(text: string): { negative: boolean; digits: string; exponent: number } {
  const m = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  if (!m) return { negative: false, digits: text, exponent: 0 };
  const int = m[2] ?? '';
  const all = int + (m[3] ?? '');
  const lead = all.length - all.replace(/^0+/, '').length;
  const digits = all.slice(lead).replace(/0+$/, '');
  return { negative: m[1] === '-', digits, exponent: int.length - lead + Number(m[4] ?? 0) };
}

/** Sets an own property, even one named "__proto__", as JSON.parse does. */
export function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

// JSON.stringify leaves DEL, C1 controls, bidi controls and the line separators raw (C0 it
// escapes itself). They are valid in JSON strings, but act on a terminal when the JSON is
// shown there.
const TERMINAL_ACTIVE = new RegExp(`[${CONTROL_CHARS}${BIDI_CONTROLS}\\u2028\\u2029]`, 'g');

// The same, less C0, for a whole text JSON.stringify wrote: it escapes C0 inside strings,
// so a raw one there is its own indentation's line break.
const ACTIVE_AFTER_STRINGIFY = new RegExp(`[\\u007f-\\u009f${BIDI_CONTROLS}\\u2028\\u2029]`, 'g');

const escapeActive = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

function quote(s: string): string {
  return JSON.stringify(s).replace(TERMINAL_ACTIVE, escapeActive);
}

/**
 * Whether JSON.stringify writes `value` exactly as write() below does: data as JSON.parse
 * makes it (strings, booleans, null, numbers but -0, arrays without holes, plain objects
 * without toJSON), nothing else. The characters escaped above only ever appear raw inside
 * strings, so one replace over the whole text then escapes what quote() would.
 */
function plainData(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!(i in value) || !plainData(value[i])) return false;
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
      for (const key of Object.keys(value)) if (!plainData((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

/**
 * JSON text for `value`, like JSON.stringify(value, null, indent) but writing JsonNumber
 * raw, -0 as -0, bigint as an integer, and escaping the characters above. Plain data (a
 * list's output, the common case) goes through JSON.stringify itself: a fifth of the time
 * of writing it piece by piece in a fresh process.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  const gap = ' '.repeat(Math.max(0, Math.min(10, Math.floor(indent))));
  if (plainData(value)) return JSON.stringify(value, null, gap).replace(ACTIVE_AFTER_STRINGIFY, escapeActive);
  return write(value, '', gap) ?? 'null';
}

function write(value: unknown, margin: string, gap: string): string | undefined {
  if (value instanceof JsonNumber) return value.text;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      if (!Number.isFinite(value)) return 'null';
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  const inner = margin + gap;
  const open = gap ? `\n${inner}` : '';
  const sep = gap ? `,\n${inner}` : ',';
  const close = gap ? `\n${margin}` : '';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    // Array.from, not map: a hole is visited (as undefined, written null, as JSON.stringify does).
    const parts = Array.from(value, (v: unknown) => write(v, inner, gap) ?? 'null');
    return `[${open}${parts.join(sep)}${close}]`;
  }
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const v = write((value as Record<string, unknown>)[key], inner, gap);
    if (v !== undefined) parts.push(`${quote(key)}:${gap ? ' ' : ''}${v}`);
  }
  if (parts.length === 0) return '{}';
  return `{${open}${parts.join(sep)}${close}}`;
}

/**
 * `value` without JSON-LD members (names beginning with "@"), at every depth. A value that
 * has none, as most APIs send, is returned as it is: copying every object of a 100,000
 * object walk was a fifth of the output layer's time, and garbage that raised peak memory.
 */
export function stripJsonLd(value: unknown): unknown {
  return hasJsonLd(value, 0) ? strip(value) : value;
}

function hasJsonLd(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return false;
  // Deeper than any parsed document nests: copy (strip() keeps such a value's structure).
  if (depth > MAX_JSON_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (hasJsonLd(v, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (key.charCodeAt(0) === 0x40 || hasJsonLd((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!key.startsWith('@')) setMember(out, key, strip(v));
  }
  return out;
}

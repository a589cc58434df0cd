// Objects are kept "exactly as sent": JSON.parse would turn 12345678901234567890 into
// 12345678901234567000 and 1.0 into 1, so bodies and the state file go through this small
// parser, which keeps every number whose text would not survive a round trip as its text.

import { isRecord } from '../json/narrow.js';

export class RawNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | number | string | RawNumber | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export class JsonSyntaxError extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// A JSON string token: quotes, escapes, no raw control characters.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WHITESPACE = /[ \t\n\r]*/y;

export function parseJson(text: string): JsonValue {
  let pos = 0;

  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at position ${pos}`);
  };
  const skip = (): void => {
    WHITESPACE.lastIndex = pos;
    WHITESPACE.exec(text);
    pos = WHITESPACE.lastIndex;
  };
  const literal = (word: string, value: JsonValue): JsonValue => {
    if (!text.startsWith(word, pos)) fail('unexpected token');
    pos += word.length;
    return value;
  };
  const string = (): string => {
    STRING.lastIndex = pos;
    const m = STRING.exec(text);
    if (!m) return fail('invalid string');
    pos = STRING.lastIndex;
    // The token is valid JSON, so the built-in parser decodes its escapes exactly.
    return JSON.parse(m[0]) as string;
  };
  const number = (): number | RawNumber => {
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (!m) return fail('invalid number');
    pos = NUMBER.lastIndex;
    const n = Number(m[0]);
    return JSON.stringify(n) === m[0] ? n : new RawNumber(m[0]);
  };
  const value = (depth: number): JsonValue => {
    if (depth > 200) fail('nesting too deep');
    skip();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const obj: JsonObject = {};
      skip();
      if (text[pos] === '}') {
        pos++;
        return obj;
      }
      for (;;) {
        skip();
        if (text[pos] !== '"') fail('expected a property name');
        const key = string();
        skip();
        if (text[pos] !== ':') fail('expected ":"');
        pos++;
        setProperty(obj, key, value(depth + 1));
        skip();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return obj;
        }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      pos++;
      const arr: JsonValue[] = [];
      skip();
      if (text[pos] === ']') {
        pos++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        skip();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return arr;
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true', true);
    if (c === 'f') return literal('false', false);
    if (c === 'n') return literal('null', null);
    return number();
  };

  const result = value(0);
  skip();
  if (pos !== text.length) fail('unexpected data after the value');
  return result;
}

/** Sets own properties only: a "__proto__" key in a body must not replace the prototype. */
export function setProperty(obj: JsonObject, key: string, v: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[key] = v;
}

export function stringifyJson(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (v instanceof RawNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map((x) => stringifyJson(x)).join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(v)) parts.push(`${JSON.stringify(key)}:${stringifyJson(v[key])}`);
  return `{${parts.join(',')}}`;
}

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return isRecord(v);
}

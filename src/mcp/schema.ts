// The tools' arguments checked against their own input schemas, the ones tools/list
// advertises: one place decides what a tool takes, so that the check and the schema an
// agent reads cannot drift apart. Only the subset of JSON Schema the tools use is read
// (type, enum, minLength, minimum, maximum, items, minItems, maxItems, properties,
// required, additionalProperties); a keyword outside it constrains nothing.

import { isRecord } from '../json/narrow.js';

export type JsonSchema = Readonly<Record<string, unknown>>;

/** Where a value fails its schema (`ids`, 2), and how. */
export interface SchemaProblem {
  at: readonly (string | number)[];
  /** missing: a required property absent; unknown: a property the schema does not name. */
  kind: 'missing' | 'unknown' | 'invalid';
  /** What is wrong, to follow the place's name: `must be a string`. */
  text: string;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

function fitsType(type: string, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isRecord(v);
    case 'null':
      return v === null;
    default:
      return true;
  }
}

function orList(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

const subschema = (v: unknown): JsonSchema | undefined => (isRecord(v) ? v : undefined);

/** The first place where `value` fails `schema`, or undefined where it fits. */
export function schemaProblem(schema: JsonSchema, value: unknown, at: readonly (string | number)[] = []): SchemaProblem | undefined {
  const invalid = (text: string): SchemaProblem => ({ at, kind: 'invalid', text });
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : [];
  if (types.length > 0 && !types.some((t) => fitsType(t, value))) return invalid(`must be ${orList(types.map((t) => TYPE_NAMES[t] ?? t))}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return invalid(`must be one of ${schema.enum.map(String).join(', ')}`);
  if (typeof value === 'string' && typeof schema.minLength === 'number' && value.length < schema.minLength) {
    return invalid(schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return invalid(`must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) return invalid(`must be at most ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return invalid(`needs at least ${schema.minItems}`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return invalid(`takes at most ${schema.maxItems}`);
    const items = subschema(schema.items);
    if (items) {
      for (const [i, v] of value.entries()) {
        const problem = schemaProblem(items, v, [...at, i]);
        if (problem) return problem;
      }
    }
  }
  if (isRecord(value)) {
    const properties = subschema(schema.properties) ?? {};
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
    for (const name of required) if (value[name] === undefined) return { at: [...at, name], kind: 'missing', text: 'is needed' };
    for (const [name, v] of Object.entries(value)) {
      const own = Object.hasOwn(properties, name) ? subschema(properties[name]) : undefined;
      const rest = schema.additionalProperties;
      if (!own && rest === false) return { at: [...at, name], kind: 'unknown', text: 'is not taken' };
      const problem = own ? schemaProblem(own, v, [...at, name]) : subschema(rest) ? schemaProblem(subschema(rest)!, v, [...at, name]) : undefined;
      if (problem) return problem;
    }
  }
  return undefined;
}

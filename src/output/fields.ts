// `--fields a,b,team.name`: the properties kept in every format. A dotted name reaches into
// a nested object (and into each element of a nested array); a property whose own name
// contains a dot wins over the path.

import { setMember } from './json.js';
import { isRecord } from '../json/narrow.js';

function hasOwn(obj: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The value at `field` in `item` (undefined when absent); for table and tsv cells. */
export function fieldValue(item: unknown, field: string): unknown {
  if (Array.isArray(item)) {
    const values = item.map((el: unknown) => fieldValue(el, field)).filter((v) => v !== undefined);
    return values.length > 0 ? values : undefined;
  }
  if (!isRecord(item)) return undefined;
  if (hasOwn(item, field)) return item[field];
  const dot = field.indexOf('.');
  if (dot <= 0) return undefined;
  const head = field.slice(0, dot);
  return hasOwn(item, head) ? fieldValue(item[head], field.slice(dot + 1)) : undefined;
}

/**
 * `item` with only `fields`, in the order given; for JSON output. Values that are not
 * objects have no properties to choose from and are returned as they are.
 */
export function pickFields(item: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(item)) return item.map((el: unknown) => pickFields(el, fields));
  return isRecord(item) ? pickFrom(item, fields) : item;
}

function pickFrom(obj: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const nested = new Map<string, string[]>();
  for (const field of fields) {
    if (hasOwn(obj, field)) {
      setMember(out, field, obj[field]);
      continue;
    }
    const dot = field.indexOf('.');
    const head = field.slice(0, dot);
    // Asking for "team" and "team.name" gives the whole team.
    if (dot <= 0 || !hasOwn(obj, head) || fields.includes(head)) continue;
    let rest = nested.get(head);
    if (!rest) {
      rest = [];
      nested.set(head, rest);
      // Keeps the order of --fields: the slot is made now, filled below.
      setMember(out, head, undefined);
    }
    rest.push(field.slice(dot + 1));
  }
  for (const [head, rest] of nested) {
    const sub = pickNested(obj[head], rest);
    if (sub === undefined) delete out[head];
    else setMember(out, head, sub);
  }
  return out;
}

/** Inside an object a path only reaches objects: "team.name" of a string team is absent. */
function pickNested(value: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((el: unknown) => (isRecord(el) ? pickFrom(el, fields) : undefined));
  return isRecord(value) ? pickFrom(value, fields) : undefined;
}

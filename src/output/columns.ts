// Which columns a table or tsv shows, and the plain text of one cell. Shared by table.ts
// and tsv.ts, so that both formats agree on what a row is.

import { fieldValue, isRecord } from './fields.js';
import { JsonNumber, stringifyJson } from './json.js';

export interface ColumnChoice {
  /** Always shown: --fields, or publicId and the resource's default columns present. */
  readonly fixed: readonly string[];
  /** Other scalar fields, in the order first seen: the table adds them while they fit. */
  readonly optional: readonly string[];
}

export function isScalar(v: unknown): boolean {
  return v === null || v instanceof JsonNumber || (typeof v !== 'object' && typeof v !== 'function');
}

export function chooseColumns(rows: readonly unknown[], defaults: readonly string[], fields?: readonly string[]): ColumnChoice {
  if (fields && fields.length > 0) return { fixed: fields, optional: [] };
  const seen = new Map<string, boolean>();
  for (const row of rows) {
    if (!isRecord(row)) continue;
    for (const [key, value] of Object.entries(row)) {
      seen.set(key, (seen.get(key) ?? true) && isScalar(value));
    }
  }
  const fixed = ['publicId', ...defaults.filter((c) => c !== 'publicId')].filter((c) => seen.has(c));
  const scalars = [...seen].filter(([key, scalar]) => scalar && !fixed.includes(key)).map(([key]) => key);
  // Objects with nothing but nested values still get columns, as compact JSON.
  const optional = scalars.length > 0 || fixed.length > 0 ? scalars : [...seen.keys()];
  return { fixed, optional };
}

/** The columns tsv writes: the fixed ones, or for unknown objects every optional one. */
export function tsvColumns(choice: ColumnChoice): readonly string[] {
  return choice.fixed.length > 0 ? choice.fixed : choice.optional;
}

/** A cell's value: the field of an object. */
export function cellValue(row: unknown, column: string): unknown {
  return isRecord(row) ? fieldValue(row, column) : undefined;
}

/** Plain text of a value: nested values as compact JSON, null and absent as empty. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (isScalar(value)) return String(value);
  return stringifyJson(value);
}

/**
 * True when some row is not an object (`hostctl api` can return strings, numbers, arrays):
 * then there are no columns, and each value is printed alone on its line.
 */
export function valuesOnly(rows: readonly unknown[]): boolean {
  return rows.some((row) => !isRecord(row));
}

// Which columns a table or tsv shows, and the plain text of one cell. Shared by table.ts,
// tsv.ts and detail.ts, so that the formats agree on what a row is and what a reference is.

import { fieldValue } from './fields.js';
import { isRecord } from '../json/narrow.js';
import { JsonNumber, stringifyJson } from './json.js';

export interface ColumnChoice {
  /** Always shown: --fields, or publicId and the resource's default columns. */
  readonly fixed: readonly string[];
  /** Other scalar fields, in the order first seen: the table adds them while they fit. */
  readonly optional: readonly string[];
}

/** Public ID -> name, from what hostctl has seen before (the state's ID cache). */
export type NameLookup = (id: string) => string | undefined;

export function isScalar(v: unknown): boolean {
  return v === null || v instanceof JsonNumber || (typeof v !== 'object' && typeof v !== 'function');
}

/**
 * The public ID of a reference: an object carrying a string `publicId`, as servers that
 * nest references send them (`{"publicId": "te-…", "name": "…"}`). A bare ID string is a
 * reference too, but only its position says so, so it is left to the caller.
 */
export function referenceId(v: unknown): string | undefined {
  return isRecord(v) && typeof v.publicId === 'string' ? v.publicId : undefined;
}

/** A value a column can show on one line: a scalar, or a reference. */
function isCellValue(v: unknown): boolean {
  return isScalar(v) || referenceId(v) !== undefined;
}

/**
 * The table's columns, in priority order. With `fields`, exactly those. Otherwise publicId,
 * then the resource's declared columns that some row has, then the other one-line fields
 * in the order first seen (the table drops these first when narrow).
 */
export function chooseColumns(rows: readonly unknown[], defaults: readonly string[], fields?: readonly string[]): ColumnChoice {
  if (fields && fields.length > 0) return { fixed: fields, optional: [] };
  const seen = new Map<string, boolean>();
  for (const row of rows) {
    if (!isRecord(row)) continue;
    for (const key of Object.keys(row)) {
      seen.set(key, (seen.get(key) ?? true) && isCellValue(row[key]));
    }
  }
  const fixed = ['publicId', ...defaults.filter((c) => c !== 'publicId')].filter((c) => seen.has(c));
  const cells = [...seen].filter(([key, one]) => one && !fixed.includes(key)).map(([key]) => key);
  // Objects with nothing but nested values still get columns, as compact JSON.
  const optional = cells.length > 0 || fixed.length > 0 ? cells : [...seen.keys()];
  return { fixed, optional };
}

/**
 * The columns tsv writes, fixed by the caller so that `cut -fN` means the same field
 * whatever the data: --fields; else every given column, present or not (for a resource,
 * publicId and its declared columns: see commands/resource/printer.ts).
 * Only output that belongs to no resource (`hostctl api`) takes its columns from the
 * first rows, which then hold for the rest of the output.
 */
export function tsvColumns(rows: readonly unknown[], defaults: readonly string[], fields?: readonly string[]): readonly string[] {
  if (fields && fields.length > 0) return fields;
  if (defaults.length > 0) return defaults;
  const choice = chooseColumns(rows, [], undefined);
  return choice.fixed.length > 0 ? [...choice.fixed, ...choice.optional] : choice.optional;
}

/** A cell's value: the field of an object. */
export function cellValue(row: unknown, column: string): unknown {
  return isRecord(row) ? fieldValue(row, column) : undefined;
}

/** Plain text of a value: references as their public ID, other nested values as compact JSON, null and absent as empty. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  // String(-0) is "0": a -0 the server sent stays -0, as the json output writes it.
  if (isScalar(value)) return Object.is(value, -0) ? '-0' : String(value);
  const ref = referenceId(value);
  if (ref !== undefined) return ref;
  return stringifyJson(value);
}

/** The name a reference carries, if any (`{"publicId", "name"}`), else the one seen before. */
export function referenceName(value: unknown, names: NameLookup | undefined, nameFields: readonly string[]): string | undefined {
  if (isRecord(value)) {
    for (const f of nameFields) {
      const v = value[f];
      if (typeof v === 'string' && v !== '') return v;
    }
    const id = referenceId(value);
    return id !== undefined ? names?.(id) : undefined;
  }
  return typeof value === 'string' ? names?.(value) : undefined;
}

/** "Acme (te-1)" for a reference with a known name, the ID alone without one. */
export function referenceText(id: string, name: string | undefined): string {
  return name !== undefined && name !== id ? `${name} (${id})` : id;
}

// A commit SHA or similar digest: tables show the first 7, as git does.
const LONG_HEX = /^[0-9a-f]{12,64}$/i;

export function isLongHex(text: string): boolean {
  return LONG_HEX.test(text) && /[0-9]/.test(text);
}

/**
 * True when some row is not an object (`hostctl api` can return strings, numbers, arrays):
 * then there are no columns, and each value is printed alone on its line.
 */
export function valuesOnly(rows: readonly unknown[]): boolean {
  return rows.some((row) => !isRecord(row));
}

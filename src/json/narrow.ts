// Narrowing of JSON as parsed (`unknown`) to the shapes code relies on: API answers, the
// state and cache files, the sandbox's request bodies. A leaf (it imports nothing), so
// that any layer, the sandbox included, can use it.

/**
 * A JSON object as a parser makes it: a plain object (not null, not an array, not a class
 * instance such as output/json.ts's JsonNumber or the sandbox's RawNumber, which stand for
 * numbers).
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A finite number, or undefined. */
export function finiteNumber(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The strings of an array, in order; anything else is dropped (not an array: none). */
export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** An object's `publicId`, when it is an object with a string one. */
export function publicIdOf(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  const id = item.publicId;
  return typeof id === 'string' ? id : undefined;
}

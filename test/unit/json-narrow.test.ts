import { describe, expect, it } from 'vitest';
import { finiteNumber, isRecord, publicIdOf, stringList } from '../../src/json/narrow.js';
import { JsonNumber, parseJson } from '../../src/output/json.js';
import { RawNumber, parseJson as parseSandboxJson } from '../../src/sandbox/exact-json.js';

describe('json/narrow', () => {
  it('isRecord takes objects only', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord({ a: 1 })).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
    for (const v of [null, undefined, [], 'x', 1, true]) expect(isRecord(v), String(v)).toBe(false);
  });

  it('isRecord does not take the number wrappers of either JSON parser for objects', () => {
    expect(isRecord(new JsonNumber('12345678901234567890'))).toBe(false);
    expect(isRecord(new RawNumber('1.0'))).toBe(false);
    expect(isRecord(new Date(0))).toBe(false);
    const parsed = parseJson('{"big": 12345678901234567890, "o": {"__proto__": 1}}');
    expect(isRecord(parsed)).toBe(true);
    expect(isRecord((parsed as Record<string, unknown>).big)).toBe(false);
    expect(isRecord((parsed as Record<string, unknown>).o)).toBe(true);
    expect(isRecord(parseSandboxJson('{"n": 1.0}'))).toBe(true);
  });

  it('finiteNumber drops what is not a finite number', () => {
    expect(finiteNumber(3)).toBe(3);
    for (const v of [NaN, Infinity, '3', null, undefined]) expect(finiteNumber(v), String(v)).toBeUndefined();
  });

  it('stringList keeps the strings of an array, in order', () => {
    expect(stringList(['a', 1, 'b', null])).toEqual(['a', 'b']);
    expect(stringList('a')).toEqual([]);
    expect(stringList({ 0: 'a' })).toEqual([]);
  });

  it('publicIdOf reads a string publicId of an object', () => {
    expect(publicIdOf({ publicId: 'ap-1' })).toBe('ap-1');
    for (const v of [{ publicId: 1 }, { id: 'ap-1' }, ['ap-1'], 'ap-1', null]) expect(publicIdOf(v)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { JsonNumber, JsonTooDeepError, isJsonNumber, mayBeLossy, parseJson, stringifyJson, stripJsonLd } from '../../src/output/json.js';

/** `inner` inside `levels` levels of nesting, objects and arrays in turn: {"a":[{"a":…}]}. */
function nest(levels: number, inner: string): string {
  let text = inner;
  for (let i = 0; i < levels; i++) text = i % 2 ? `[${text}]` : `{"a":${text}}`;
  return text;
}

describe('parseJson', () => {
  it('keeps integers beyond 2^53 exactly as sent', () => {
    const text = '{"id":12345678901234567890,"n":-9007199254740993}';
    const value = parseJson(text) as Record<string, unknown>;
    expect(value.id).toEqual(new JsonNumber('12345678901234567890'));
    expect(value.n).toEqual(new JsonNumber('-9007199254740993'));
    expect(stringifyJson(value)).toBe(text);
  });

  it('keeps decimals with more precision than a double', () => {
    const text = '[1.0000000000000000001,0.12345678901234567890123]';
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('keeps numbers a double cannot hold at all (overflow, underflow)', () => {
    const text = '[1e400,-1E+999,1e-400]';
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('keeps a large integer an integer rather than writing it with an exponent', () => {
    expect(stringifyJson(parseJson('[100000000000000000000000]'))).toBe('[100000000000000000000000]');
  });

  it('gives plain numbers where a double holds the value, also on the slow path', () => {
    const value = parseJson('{"a":1234567890123456,"b":1.5,"c":1.0,"d":"a string with 12345678901234567890 in it","e":-0}');
    expect(value).toEqual({ a: 1234567890123456, b: 1.5, c: 1, d: 'a string with 12345678901234567890 in it', e: -0 });
    expect(Object.is((value as { e: number }).e, -0)).toBe(true);
  });

  it('gives the plain number for any text of an exact value: trailing and inner zeros, a long exponent, a leading 9', () => {
    // Beside an exact number, so that the lossless parser reads them.
    const value = parseJson('[12345678901234567890,1.010,1.500,0.000,-2.50E-3,1.5e300,9.5,-0.0]') as unknown[];
    expect(value).toEqual([new JsonNumber('12345678901234567890'), 1.01, 1.5, 0, -0.0025, 1.5e300, 9.5, -0]);
    expect(value.slice(1).map((v) => typeof v)).toEqual(Array(7).fill('number'));
    expect(stringifyJson(value)).toBe('[12345678901234567890,1.01,1.5,0,-0.0025,1.5e+300,9.5,-0]');
  });

  it('reads every JSON form the same as JSON.parse on both paths', () => {
    const doc = '{"s":"\\u00e9\\n\\"q\\"\\\\ \\ud83d\\ude00","t":true,"f":false,"z":null,"a":[],"o":{},"n":[0,-1,2.5e-3,1E2]}';
    expect(parseJson(doc)).toEqual(JSON.parse(doc));
    // The same document beside a number JSON.parse would round takes the lossless parser
    // (a long digit run inside a string would not: it follows a quote).
    const slow = `[${doc}, 12345678901234567890]`;
    expect(mayBeLossy(slow)).toBe(true);
    expect(parseJson(slow)).toEqual([JSON.parse(doc), new JsonNumber('12345678901234567890')]);
  });

  it('makes "__proto__" an own member, as JSON.parse does, and never a prototype', () => {
    const value = parseJson('{"__proto__":{"polluted":12345678901234567890}}') as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(stringifyJson(value)).toBe('{"__proto__":{"polluted":12345678901234567890}}');
  });

  it.each(['', '{', '[1,]', '{"a":1,}', '01', '1.', '-', '"\u0001"', 'nul', '[1] x', '{"a" 1}', '[12345678901234567890', '{12345678901234567890:1}', '[1;2]', '{"a":1;"b":2}'])(
    'throws SyntaxError on invalid JSON %j',
    (text) => {
      expect(() => parseJson(text)).toThrow(SyntaxError);
      // The same mistake where the lossless parser reads it.
      expect(() => parseJson(`[12345678901234567890, ${text}]`)).toThrow(SyntaxError);
    },
  );

  it('refuses absurdly deep nesting on the lossless path with a SyntaxError, not a stack overflow', () => {
    const deep = `${'['.repeat(100_000)}12345678901234567890${']'.repeat(100_000)}`;
    expect(() => parseJson(deep)).toThrow(SyntaxError);
  });

  it('reads 512 levels of nesting and refuses 513, arrays and objects alike, on both paths', () => {
    for (const inner of ['1', '12345678901234567890']) {
      // 512 levels and more than 512 brackets in all, so that every bracket is counted.
      const text = `[{},${nest(511, inner)}]`;
      expect(stringifyJson(parseJson(text))).toBe(text);
      expect(() => parseJson(`[{},${nest(512, inner)}]`)).toThrow(JsonTooDeepError);
      expect(() => parseJson(nest(513, inner))).toThrow(JsonTooDeepError);
      expect(() => parseJson(`["a",${nest(513, inner)}]`)).toThrow(JsonTooDeepError);
    }
    expect(() => parseJson(nest(513, '{}'))).toThrow(new SyntaxError('JSON nested more than 512 levels deep'));
  });

  it('counts only brackets that nest: many siblings are shallow, brackets inside strings are text', () => {
    const siblings = `[${'[1],{"a":2},'.repeat(600)}12345678901234567890]`;
    expect(stringifyJson(parseJson(siblings))).toBe(siblings);
    expect(parseJson(siblings.replace('12345678901234567890', '0'))).toEqual(JSON.parse(siblings.replace('12345678901234567890', '0')));
    // An escaped quote does not end a string; an escaped backslash before the quote does.
    const inStrings = `["${'['.repeat(600)}\\"${'{'.repeat(600)}","C:\\\\",1]`;
    expect(parseJson(inStrings)).toEqual(JSON.parse(inStrings));
    const exact = inStrings.replace(',1]', ',12345678901234567890]');
    expect(stringifyJson(parseJson(exact))).toBe(exact);
  });

  it('refuses a string left open as invalid, not as too deep, however many brackets follow', () => {
    for (const text of [`["abc${'['.repeat(600)}`, `[12345678901234567890,"abc${'['.repeat(600)}`]) {
      expect(() => parseJson(text)).toThrow(SyntaxError);
      expect(() => parseJson(text)).not.toThrow(JsonTooDeepError);
    }
  });

  it.each([
    ['[12345678901234567890] x', 'Unexpected data after the JSON value at position 23'],
    ['"",12345678901234567890', 'Unexpected data after the JSON value at position 2'],
    ['[12345678901234567890,', 'Unexpected end of JSON input at position 22'],
    ['[12345678901234567890,.5]', 'Unexpected token at position 22'],
    ['[12345678901234567890,-]', 'Invalid number at position 22'],
    ['[12345678901234567890,"abc', 'Unterminated string at position 22'],
    ['[12345678901234567890,"\u0001"]', 'Invalid string at position 22'],
    ['[12345678901234567890,{1:2}]', 'Expected a property name at position 23'],
    ['[12345678901234567890,{"a" 1}]', "Expected ':' at position 27"],
    ['{"a":12345678901234567890 "b":1}', "Expected ',' or '}' at position 27"],
    ['[12345678901234567890 1]', "Expected ',' or ']' at position 23"],
  ])('names the mistake in %j and where it is, as JSON.parse does: %s', (text, message) => {
    expect(() => parseJson(text)).toThrow(new SyntaxError(message));
  });

  it('gives members as JSON.parse does: own, enumerable, writable and configurable', () => {
    const text = '{"a":{"__proto__":1,"b":[2]},"n":12345678901234567890}';
    const value = parseJson(text) as { a: object };
    const expected = JSON.parse(text) as { a: object };
    expect(Object.getOwnPropertyDescriptors(value.a)).toEqual(Object.getOwnPropertyDescriptors(expected.a));
    expect(Object.getOwnPropertyDescriptor(value, 'n')).toEqual({ value: new JsonNumber('12345678901234567890'), enumerable: true, writable: true, configurable: true });
  });
});

describe('stringifyJson', () => {
  it('writes what JSON.stringify writes for ordinary values, compact and indented', () => {
    const value = { a: [1, 'two', { three: null }], b: {}, c: [], d: true, e: 'é\n"', f: -1.5e-7, g: undefined, h: [undefined] };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
    expect(stringifyJson(value, 2)).toBe(JSON.stringify(value, null, 2));
    expect(stringifyJson('x')).toBe('"x"');
    expect(stringifyJson(null)).toBe('null');
    expect(stringifyJson(undefined)).toBe('null');
    expect(stringifyJson(new Date(0))).toBe('"1970-01-01T00:00:00.000Z"');
    expect(stringifyJson(Number.NaN)).toBe('null');
  });

  it('escapes DEL, C1 and bidi controls, and leaves the JSON exact', () => {
    const s = 'a\u007f\u0085\u009b\u202a\u202e\u2066\u2069\u200e\u2028b\u001b';
    const text = stringifyJson({ s });
    expect(text).toBe('{"s":"a\\u007f\\u0085\\u009b\\u202a\\u202e\\u2066\\u2069\\u200e\\u2028b\\u001b"}');
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect((parseJson(text) as { s: string }).s).toBe(s);
    // Every one of them, also where the text is written piece by piece (beside an exact number).
    expect(stringifyJson([s, new JsonNumber('1')])).toBe(`[${text.slice(5, -1)},1]`);
  });

  it('writes plain data (through JSON.stringify) as it writes the same data beside an exact number (piece by piece)', () => {
    const plain = { 'k\u202e': ['a\u0085b', { n: 1.5, z: 0, inf: Infinity, deep: [[], {}, null, true, false, '\u2028'] }], e: {} };
    const proto: unknown = JSON.parse('{"__proto__": {"x": "\u2066"}, "y": [1, 2]}');
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { s: '\u007f' });
    for (const indent of [0, 2, 11]) {
      for (const v of [plain, proto, bare]) {
        const fast = stringifyJson(v, indent);
        const slow = stringifyJson([v, new JsonNumber('1')], indent);
        const gap = ' '.repeat(Math.min(indent, 10));
        expect(slow).toBe(gap ? `[\n${gap}${fast.replaceAll('\n', `\n${gap}`)},\n${gap}1\n]` : `[${fast},1]`);
        expect(fast).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028]/);
      }
    }
    expect(stringifyJson(plain)).toBe('{"k\\u202e":["a\\u0085b",{"n":1.5,"z":0,"inf":null,"deep":[[],{},null,true,false,"\\u2028"]}],"e":{}}');
    expect(stringifyJson(proto)).toBe('{"__proto__":{"x":"\\u2066"},"y":[1,2]}');
  });

  it('writes a hole in an array as null, as JSON.stringify does, never as an empty slot (which is not JSON)', () => {
    const sparse: unknown[] = [1];
    sparse[2] = 'three';
    expect(stringifyJson(sparse)).toBe('[1,null,"three"]');
    expect(stringifyJson(sparse, 2)).toBe(JSON.stringify(sparse, null, 2));
    expect(stringifyJson([new Array(2), new JsonNumber('12345678901234567890')])).toBe('[[null,null],12345678901234567890]');
  });

  it('writes -0 and bigint exactly', () => {
    expect(stringifyJson([-0, 10n ** 20n])).toBe('[-0,100000000000000000000]');
    // -0 in data that is otherwise plain (JSON.stringify would write 0).
    expect(stringifyJson(-0)).toBe('-0');
    expect(stringifyJson({ a: [-0, 0, 1] }, 2)).toBe('{\n  "a": [\n    -0,\n    0,\n    1\n  ]\n}');
  });

  it('gives a number, not an object, if JSON.stringify meets a JsonNumber', () => {
    expect(JSON.stringify({ n: new JsonNumber('12345678901234567890') })).toBe('{"n":12345678901234567000}');
    expect(isJsonNumber(new JsonNumber('1'))).toBe(true);
    expect(Number(new JsonNumber('2.5'))).toBe(2.5);
  });
});

describe('stripJsonLd', () => {
  it('returns a value with no JSON-LD member as it is, without copying it', () => {
    const value = { publicId: 'ap-1', team: { publicId: 'te-1', tags: ['a', { name: 'b' }] }, big: new JsonNumber('12345678901234567890') };
    expect(stripJsonLd(value)).toBe(value);
    const deep = { a: [{ b: { '@id': '/x', c: 1 } }] };
    expect(stripJsonLd(deep)).toEqual({ a: [{ b: { c: 1 } }] });
    expect(deep.a[0]?.b['@id']).toBe('/x');
  });

  it('drops members whose names begin with "@" at every depth and keeps the rest', () => {
    const value = {
      '@context': '/v1/contexts/App',
      '@id': '/v1/apps/ap-1',
      publicId: 'ap-1',
      email: 'a@b.test',
      team: { '@type': 'Team', publicId: 'te-1' },
      list: [{ '@id': 'x', n: new JsonNumber('12345678901234567890') }, 'keep@', 3],
    };
    expect(stripJsonLd(value)).toEqual({
      publicId: 'ap-1',
      email: 'a@b.test',
      team: { publicId: 'te-1' },
      list: [{ n: new JsonNumber('12345678901234567890') }, 'keep@', 3],
    });
    expect(stripJsonLd('@scalar')).toBe('@scalar');
  });

  it('drops them deeper than any parsed document nests too, and keeps null members', () => {
    const build = (levels: number, bottom: Record<string, unknown>): Record<string, unknown> => {
      let value = bottom;
      for (let i = 0; i < levels; i++) value = { a: value, n: null };
      return value;
    };
    expect(stripJsonLd(build(600, { '@id': '/x', keep: 1 }))).toEqual(build(600, { keep: 1 }));
    expect(stripJsonLd({ '@id': '/x', n: null, list: [null] })).toEqual({ n: null, list: [null] });
  });
});

describe('which texts take the exact-number path', () => {
  it('only those with a number token that may change, not IDs or hex SHAs in strings', () => {
    expect(mayBeLossy('[{"publicId":"ap-1234567890123456","commit":"ce58857075056c5ba1a26de298c1c44cf374d4f8","n":123456789012345}]')).toBe(false);
    expect(mayBeLossy('{"x":1.5,"y":-0.25e10,"when":"2024-05-01T12:00:00.000000Z"}')).toBe(false);
    expect(mayBeLossy('{"bytes":12345678901234567890}')).toBe(true);
    expect(mayBeLossy('[1, -1234567890.123456]')).toBe(true);
    expect(mayBeLossy('{"tiny": 1e-400}')).toBe(true);
    expect(mayBeLossy('12345678901234567890')).toBe(true);
    expect(mayBeLossy('[\n  1.0000000000000000001\n]')).toBe(true);
  });

  it('takes it for a three-digit exponent wherever the number stands, with or without a sign, after any digits', () => {
    for (const text of ['1e400', '[1e400]', '{"x":12e400}', '{"x": 2.5E-400}']) {
      expect(mayBeLossy(text)).toBe(true);
      expect(stringifyJson(parseJson(text))).toBe(text.replace(' ', ''));
    }
  });

  it('parses exactly either way', () => {
    const text = '{"commit":"ce58857075056c5ba1a26de298c1c44cf374d4f8","big":12345678901234567890,"n":1}';
    const v = parseJson(text) as Record<string, unknown>;
    expect(String(v.big)).toBe('12345678901234567890');
    expect(v.commit).toBe('ce58857075056c5ba1a26de298c1c44cf374d4f8');
  });
});

// Property-based tests of the output layer (issue 8): random strings, control characters
// and full Unicode included, and random nested objects go in; table and tsv output never
// carries a byte a terminal would act on, and JSON output parses back to exactly the input.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson, stripJsonLd } from '../../src/output/json.js';
import { displayWidth } from '../../src/output/table.js';
import { NOW, print } from './output-support.js';

/** Characters that attack terminals, and ones that are hard to measure. */
const nasty = fc.constantFrom(
  '\u001b', '\u001b[', '\u001b]0;', '\u0007', '\u001b\\', '\u009b', '\u009d', '\u009c', '\u0085', '\u0000', '\u007f', '\b', '\r', '\n', '\t', '\\',
  '\u202a', '\u202e', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c', '\u2028',
  '[31m', ';', '漢', '字', '🚀', '👩‍💻', '🇫🇷', 'é', 'e\u0301', '\ufeff', '\ud800', 'a', ' ',
);
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: nasty, maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.constant('\u001b]0;pwned\u0007'),
  fc.constantFrom('2024-04-28T12:00:00Z', '2024-05-01T11:59:30.123+02:00'),
  // Names Object.prototype has: a lookup keyed by API text must not find them.
  fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'),
);
/** Number texts a double may not hold: big integers, long fractions, huge exponents. */
const numberText = fc
  .tuple(
    fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
    fc.option(fc.stringMatching(/^[0-9]{1,25}$/)),
    fc.option(fc.integer({ min: -400, max: 400 })),
  )
  .map(([int, frac, exp]) => `${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `e${exp}`}`);
/** A decimal text (JSON's or JS's number syntax) reduced to its value: sign, significant digits, exponent; 0 for zero. */
function decimal(text: string): string {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const fraction = m[3] ?? '';
  const digits = `${m[2]}${fraction}`.replace(/^0+/, '');
  const significant = digits.replace(/0+$/, '');
  if (significant === '') return '0';
  return `${m[1]}${significant}e${Number(m[4] ?? 0) - fraction.length + digits.length - significant.length}`;
}
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), numberText.map((t) => parseJson(t)));
const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const key = fc.oneof(text, fc.constantFrom('publicId', 'name', 'status', 'updatedAt', '@id', '@context', '__proto__', 'team', 'a.b'));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5, noNullPrototype: true }),
  ),
}));
/** Objects shaped like API resources, with hostile text where names and statuses go. */
const resource = fc.record(
  { publicId: text, name: text, status: text, updatedAt: text, team: value, extra: value },
  { requiredKeys: ['publicId'], noNullPrototype: true },
);
const rows = fc.array(fc.oneof({ weight: 4, arbitrary: resource }, { weight: 1, arbitrary: value }), { maxLength: 8 });

// Everything a terminal acts on. Tables and tsv may write \n between lines; tsv also \t.
const UNSAFE_EXCEPT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_EXCEPT_TAB_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const SGR = /\u001b\[\d+m/g;

const RUNS = { numRuns: 300 };

describe('output properties', () => {
  it('JSON: parseJson(stringifyJson(v)) is exactly v, compact and indented', () => {
    fc.assert(
      fc.property(value, fc.constantFrom(0, 2), (v, indent) => {
        expect(parseJson(stringifyJson(v, indent))).toEqual(v);
      }),
      RUNS,
    );
  });

  it('JSON: a number is written back as the decimal it was read as, and an integer as an integer', () => {
    fc.assert(
      fc.property(numberText, (t) => {
        const out = stringifyJson(parseJson(t));
        expect(decimal(out)).toBe(decimal(t));
        if (/^-?[0-9]+$/.test(t)) expect(out).toMatch(/^-?[0-9]+$/);
      }),
      RUNS,
    );
  });

  it('json and ndjson printers: exact values minus @ members, no raw control or bidi character', async () => {
    await fc.assert(
      fc.asyncProperty(rows, async (items) => {
        const json = await print(items, { format: 'json' });
        expect(json).not.toMatch(UNSAFE_EXCEPT_NEWLINE);
        expect(parseJson(json)).toEqual(items.map(stripJsonLd));
        const ndjson = await print(items, { format: 'ndjson' });
        const lines = ndjson.split('\n').slice(0, -1);
        expect(lines).toHaveLength(items.length);
        expect(lines.map((l) => parseJson(l))).toEqual(items.map(stripJsonLd));
      }),
      RUNS,
    );
  });

  it('tsv: no control, C1 or bidi character but its own tabs and newlines; one line per row', async () => {
    await fc.assert(
      fc.asyncProperty(rows, fc.option(fc.array(key, { minLength: 1, maxLength: 4 })), async (items, fields) => {
        const out = await print(items, { format: 'tsv', columns: ['name', 'status', 'team'], fields: fields ?? undefined });
        expect(out).not.toMatch(UNSAFE_EXCEPT_TAB_NEWLINE);
        expect(out.split('\n').length - 1).toBe(items.length);
      }),
      RUNS,
    );
  });

  it('table: no control, C1 or bidi character but newlines (and colour codes when on); lines fit the width', async () => {
    await fc.assert(
      fc.asyncProperty(rows, fc.integer({ min: 20, max: 160 }), fc.boolean(), async (items, width, color) => {
        const out = await print(items, { format: 'table', columns: ['name', 'status'], width, color, now: () => NOW });
        const plain = color ? out.replace(SGR, '') : out;
        if (!color) expect(out).not.toContain('\u001b');
        expect(plain).not.toMatch(UNSAFE_EXCEPT_NEWLINE);
        for (const line of plain.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(width);
      }),
      RUNS,
    );
  });
});

/** The inverse of tsv's escaping: \\t, \\n, \\r and \\\\ back to what they stand for. */
function unescapeTsv(cell: string): string {
  return cell.replace(/\\([\\tnr])/g, (_m, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c);
}

/** Text a terminal would not act on, but for tabs and line breaks, and backslashes that look like escapes. */
const tsvSafe = fc.string({ unit: fc.constantFrom('\t', '\n', '\r', '\\', 't', 'n', 'r', 'a', ' ', '漢', '🚀', 'é'), maxLength: 40 });
const plainText = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '-', '漢', '字', '🚀', 'é', 'Z'), maxLength: 30 });

describe('output properties: lossless tsv and aligned tables', () => {
  it('tsv: escaping is reversible, so text with tabs, newlines and backslashes comes back exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(tsvSafe, tsvSafe), { minLength: 1, maxLength: 5 }), async (pairs) => {
        const items = pairs.map(([publicId, name]) => ({ publicId, name }));
        const out = await print(items, { format: 'tsv', columns: ['publicId', 'name'] });
        const lines = out.split('\n').slice(0, -1);
        expect(lines).toHaveLength(items.length);
        expect(lines.map((l) => l.split('\t').map(unescapeTsv))).toEqual(pairs);
      }),
      RUNS,
    );
  });

  it('table: with a short last column, every row ends at the same terminal column (CJK and emoji counted two wide)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(plainText, text), { minLength: 1, maxLength: 6 }), fc.integer({ min: 20, max: 160 }), async (pairs, width) => {
        const items = pairs.map(([publicId, name]) => ({ publicId, name, status: 'ok' }));
        const out = await print(items, { format: 'table', fields: ['publicId', 'name', 'status'], width, now: () => NOW });
        const rows = out.split('\n').slice(1, -1);
        expect(rows).toHaveLength(items.length);
        for (const row of rows) expect(row.endsWith('ok'), row).toBe(true);
        expect(new Set(rows.map((row) => displayWidth(row))).size, rows.join('\n')).toBe(1);
      }),
      RUNS,
    );
  });
});

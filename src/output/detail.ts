// One object on a terminal (`get` of one ID): a key/value view like `gh repo view` or
// `kubectl describe`. Every field is shown; nested objects become dotted keys, references
// "name (ID)", times "3 days ago (2026-11-20 14:02 UTC)", and long values wrap rather than
// being cut. Loaded only for that view, like table.ts.

import { Chalk } from 'chalk';
import { isScalar, referenceId, referenceName, referenceText, cellText, type NameLookup } from './columns.js';
import { isRecord } from '../json/narrow.js';
import { displayWidth, oneLine } from './table.js';
import { parseIsoTime, relativeTime } from './time.js';

export interface DetailOptions {
  width: number;
  color: boolean;
  now: number;
  names?: NameLookup;
  nameFields: readonly string[];
}

/** Keys wider than this share of the terminal are not allowed to push the values off it. */
const MAX_KEY_SHARE = 0.4;

/** "2026-11-20 14:02 UTC". */
function absoluteTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function valueText(value: unknown, key: string, opts: DetailOptions): string {
  if (typeof value === 'string') {
    const ms = parseIsoTime(value);
    if (ms !== undefined) return `${relativeTime(ms, opts.now)} (${absoluteTime(ms)})`;
    if (key !== 'publicId' && !key.endsWith('.publicId')) {
      const name = opts.names?.(value);
      if (name !== undefined) return referenceText(value, name);
    }
    return value;
  }
  return cellText(value);
}

/** The rows of the view: [dotted key, text], in the object's order. */
export function detailRows(obj: Record<string, unknown>, opts: DetailOptions): [string, string][] {
  const rows: [string, string][] = [];
  const visit = (value: unknown, key: string): void => {
    const ref = key ? referenceId(value) : undefined;
    if (ref !== undefined && isRecord(value)) {
      const name = referenceName(value, opts.names, opts.nameFields);
      rows.push([key, referenceText(ref, name)]);
      const shownName = opts.nameFields.find((f) => value[f] === name);
      for (const [k, v] of Object.entries(value)) if (k !== 'publicId' && k !== shownName) visit(v, `${key}.${k}`);
      return;
    }
    if (isRecord(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0 && key) rows.push([key, '{}']);
      for (const [k, v] of entries) visit(v, key ? `${key}.${k}` : k);
      return;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) rows.push([key, '[]']);
      else if (value.every(isScalar)) rows.push([key, value.map((v) => valueText(v, key, opts)).join(', ')]);
      else value.forEach((v: unknown, i) => visit(v, `${key}.${i}`));
      return;
    }
    rows.push([key, valueText(value, key, opts)]);
  };
  visit(obj, '');
  return rows;
}

/**
 * `text` in lines of at most `width` columns, broken at spaces where it can be. The spaces
 * after a word do not count: the line breaks there, so they are not printed.
 */
export function wrap(text: string, width: number): string[] {
  const w = Math.max(width, 1);
  const lines: string[] = [];
  for (const para of text.split(/\r\n|\r|\n/)) {
    let line = '';
    for (const word of oneLine(para).split(/(?<= )/)) {
      if (displayWidth((line + word).trimEnd()) <= w) {
        line += word;
        continue;
      }
      if (line) lines.push(line.trimEnd());
      line = '';
      let rest = word;
      while (displayWidth(rest.trimEnd()) > w) {
        let cut = '';
        for (const ch of rest) {
          if (displayWidth(cut + ch) > w) break;
          cut += ch;
        }
        if (!cut) cut = [...rest][0] ?? '';
        lines.push(cut);
        rest = rest.slice(cut.length);
      }
      line = rest;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

export function renderDetail(obj: Record<string, unknown>, opts: DetailOptions): string {
  const chalk = new Chalk({ level: opts.color ? 1 : 0 });
  const rows = detailRows(obj, opts).map(([k, v]) => [oneLine(k), v] as const);
  if (rows.length === 0) return '';
  const keyWidth = Math.min(Math.max(...rows.map(([k]) => displayWidth(k) + 1)), Math.max(8, Math.floor(opts.width * MAX_KEY_SHARE)));
  const valueWidth = Math.max(opts.width - keyWidth - 2, 20);
  let out = '';
  for (const [key, value] of rows) {
    const label = `${key}:`;
    const lines = wrap(value, valueWidth);
    if (displayWidth(label) > keyWidth) {
      // A key too long for the column gets a line of its own, and its value the next.
      out += `${chalk.bold(label)}\n`;
      for (const l of lines) out += `${' '.repeat(keyWidth + 2)}${l}\n`;
      continue;
    }
    const pad = ' '.repeat(keyWidth - displayWidth(label) + 2);
    out += `${`${chalk.bold(label)}${pad}${lines[0] ?? ''}`.trimEnd()}\n`;
    for (const l of lines.slice(1)) out += `${' '.repeat(keyWidth + 2)}${l}\n`;
  }
  return out;
}

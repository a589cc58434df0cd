// tsv, the default when stdout is not a terminal: no header, one line per object, one
// tab between cells. The columns never depend on the terminal's width, so a script's
// `cut -f2` means the same thing everywhere.

import { cellText, cellValue, tsvColumns } from './columns.js';
import { isRecord } from '../json/narrow.js';
import { sanitize } from './sanitize.js';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A cell: controls removed first (a terminal sequence's own backslash goes with it), then
 * tab, newline, carriage return and backslash escaped.
 */
function tsvCell(text: string): string {
  return sanitize(text, { keepBreaks: true }).replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] ?? '');
}

/**
 * tsv text for a stream of pages: the columns are fixed by the first call (see
 * tsvColumns), so every line has the same cells in the same places.
 */
export function tsvWriter(defaults: readonly string[], fields?: readonly string[]): (rows: readonly unknown[]) => string {
  let columns: readonly string[] | undefined;
  return (rows) => {
    let out = '';
    for (const row of rows) {
      if (!isRecord(row)) {
        out += `${tsvCell(cellText(row))}\n`;
        continue;
      }
      columns ??= tsvColumns(rows.filter(isRecord), defaults, fields);
      let line = '';
      for (let i = 0; i < columns.length; i++) line += `${i > 0 ? '\t' : ''}${tsvCell(cellText(cellValue(row, columns[i] ?? '')))}`;
      out += `${line}\n`;
    }
    return out;
  };
}

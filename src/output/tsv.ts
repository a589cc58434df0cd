// tsv, the default when stdout is not a terminal: no header, one line per object, one
// tab between cells. The columns never depend on the terminal's width, so a script's
// `cut -f2` means the same thing everywhere.

import { cellText, cellValue, chooseColumns, tsvColumns, valuesOnly } from './columns.js';
import { sanitize } from './sanitize.js';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A cell: controls removed first (a terminal sequence's own backslash goes with it), then
 * tab, newline, carriage return and backslash escaped.
 */
export function tsvCell(text: string): string {
  return sanitize(text, { keepBreaks: true }).replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] ?? '');
}

export function renderTsv(rows: readonly unknown[], defaults: readonly string[], fields?: readonly string[]): string {
  if (rows.length === 0) return '';
  if (valuesOnly(rows)) return rows.map((row) => `${tsvCell(cellText(row))}\n`).join('');
  const columns = tsvColumns(chooseColumns(rows, defaults, fields));
  let out = '';
  for (const row of rows) out += `${columns.map((c) => tsvCell(cellText(cellValue(row, c)))).join('\t')}\n`;
  return out;
}

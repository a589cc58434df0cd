// What changed between two versions of the API's reference (`hostctl docs diff`). The
// reference itself, kept and fetched, is the core's (src/core/operations.ts).

import type { Operation } from './operations.js';

export interface DiffRow {
  change: 'added' | 'removed' | 'changed';
  operationId: string | null;
  method: string;
  path: string;
  /** For `changed`: what, as `path: /a -> /b; +query status; …`. */
  details: string;
}

function keyOf(op: Operation): string {
  return op.operationId ?? `${op.method} ${op.path}`;
}

function setDiff(label: string, before: readonly string[], after: readonly string[]): string[] {
  const added = after.filter((x) => !before.includes(x));
  const removed = before.filter((x) => !after.includes(x));
  if (added.length === 0 && removed.length === 0) return [];
  return [`${label} ${[...added.map((x) => `+${x}`), ...removed.map((x) => `-${x}`)].join(', ')}`];
}

const paramText = (op: Operation) => op.parameters.map((p) => `${p.name} (${p.in}${p.required ? ', required' : ''})`);

/**
 * What changed between two versions of the reference: operations added, removed, and
 * changed in method, path, parameters or response media types. An operation is the same
 * one across versions by its operationId, or by method and path where it has none.
 */
export function diffReferences(before: readonly Operation[], after: readonly Operation[]): DiffRow[] {
  const old = new Map(before.map((op) => [keyOf(op), op]));
  const now = new Map(after.map((op) => [keyOf(op), op]));
  const row = (change: DiffRow['change'], op: Operation, details = ''): DiffRow => ({ change, operationId: op.operationId, method: op.method, path: op.path, details });
  const rows: DiffRow[] = [];
  for (const [key, op] of now) {
    const was = old.get(key);
    if (!was) {
      rows.push(row('added', op));
      continue;
    }
    const details = [
      ...(was.method !== op.method ? [`method ${was.method} -> ${op.method}`] : []),
      ...(was.path !== op.path ? [`path ${was.path} -> ${op.path}`] : []),
      ...setDiff('parameters', paramText(was), paramText(op)),
      ...setDiff('responses', was.responses, op.responses),
    ];
    if (details.length > 0) rows.push(row('changed', op, details.join('; ')));
  }
  for (const [key, op] of old) if (!now.has(key)) rows.push(row('removed', op));
  return rows;
}

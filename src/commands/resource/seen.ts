// What a list or get saw, kept in the state for completion and for showing references
// by name later with no request.

import type { Context } from '../../context.js';
import { NAME_FIELDS } from '../../resources.js';
import { isRecord, publicIdOf } from '../../json/narrow.js';
import { MAX_IDS, MAX_NAMES } from '../../config/state.js';

function nameOf(item: Record<string, unknown>): string | undefined {
  for (const f of NAME_FIELDS) {
    const v = item[f];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/**
 * Public IDs and names seen in this run, for completion and for showing references by
 * name later with no request. Written to the state once, at the end.
 */
export class Seen {
  private readonly ids = new Map<string, string[]>();
  private readonly names = new Map<string, string>();
  private readonly fields = new Map<string, Set<string>>();

  constructor(private readonly ctx: Context) {}

  add(resource: string, items: readonly unknown[]): void {
    let list = this.ids.get(resource);
    if (!list) this.ids.set(resource, (list = []));
    let fields = this.fields.get(resource);
    if (!fields) this.fields.set(resource, (fields = new Set()));
    for (const item of items) {
      if (!isRecord(item)) continue;
      if (fields.size < 200) for (const key of Object.keys(item)) if (!key.startsWith('@')) fields.add(key);
      const id = publicIdOf(item);
      if (id === undefined) continue;
      // Newest first, as the state keeps them; only the first MAX_IDS are kept there.
      if (list.length < MAX_IDS) list.push(id);
      // The state keeps MAX_NAMES per base URL; a walk of 100,000 objects must not hold more.
      if (this.names.size >= MAX_NAMES) continue;
      const name = nameOf(item);
      if (name !== undefined) this.names.set(id, name);
      // A nested reference may carry its name: {"team": {"publicId": "te-1", "name": "Acme"}}.
      for (const value of Object.values(item)) {
        const ref = publicIdOf(value);
        const refName = ref !== undefined && isRecord(value) ? nameOf(value) : undefined;
        if (ref !== undefined && refName !== undefined) this.names.set(ref, refName);
      }
    }
  }

  save(): void {
    const base = this.ctx.baseUrl();
    const state = this.ctx.state();
    for (const [resource, ids] of this.ids) state.rememberIds(base, resource, ids);
    for (const [resource, fields] of this.fields) if (fields.size > 0) state.rememberFields(base, resource, [...fields]);
    if (this.names.size > 0) state.rememberNames(base, this.names);
  }
}

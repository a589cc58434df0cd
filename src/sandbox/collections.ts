// The collections and who may see what. "A token acts as the person who created it and
// sees what that person sees": here a person sees the objects of the teams they belong
// to, the organisation's owner sees everything, and an object that leads to no team
// (planted or created without one) is seen by everyone.
//
// The objects added after the seed (created with POST, planted by the admin endpoint) are
// bounded in number and in size, as the request log is: past either bound the oldest added
// go, down to nine tenths of it (one pass over the collections for many inserts, not one
// per insert), so that a sandbox left running under a script's POSTs keeps a flat memory
// and list pages of a bounded size. Seeded objects are never dropped.

import { randomBytes } from 'node:crypto';
import { PREFIXES, type SeedData } from './data.js';
import { stringifyJson, type JsonObject } from './exact-json.js';

export interface Item {
  readonly id: string;
  readonly value: JsonObject;
  /** The object's plain JSON text, serialised once: objects never change after insertion. */
  readonly json: string;
}

/** Who is asking: every team (the owner) or a set of team IDs. */
export interface Viewer {
  readonly all: boolean;
  readonly teams: ReadonlySet<string>;
}

/** Fields that lead from an object towards the team that owns it, per resource. */
const OWNER_LINKS: Readonly<Record<string, readonly (readonly [field: string, target: string])[]>> = {
  apps: [['team', 'teams']],
  'payment-methods': [['team', 'teams']],
  environments: [['app', 'apps']],
  deployments: [
    ['environment', 'environments'],
    ['app', 'apps'],
  ],
  domains: [
    ['environment', 'environments'],
    ['app', 'apps'],
  ],
};

class Collection {
  items: Item[] = [];
  readonly index = new Map<string, number>();
}

export interface AddedBounds {
  /** The most objects added after the seed that are kept. */
  readonly objects: number;
  /** The most they hold together, as JSON text (UTF-16 code units, as the request log counts). */
  readonly chars: number;
}

/** As the request log's (requestlog.ts): 10,000 entries, 16 MiB. */
const ADDED_BOUNDS: AddedBounds = { objects: 10_000, chars: 16 * 1024 * 1024 };

export class Store {
  private readonly collections = new Map<string, Collection>();
  /** Team IDs owning each object, or null when it leads to no team; cleared on every insert. */
  private owners = new Map<string, readonly string[] | null>();
  /** The objects added after the seed, oldest first (a Map keeps insertion order), with their size. */
  private readonly added = new Map<string, number>();
  private addedChars = 0;

  /**
   * `seeded` tells the seed's objects from those a state file kept of earlier runs, which
   * count as added (without it, all of `data` is the seed).
   */
  constructor(
    resources: readonly string[],
    data: SeedData,
    seeded: (resource: string, id: string) => boolean = () => true,
    private readonly bounds: AddedBounds = ADDED_BOUNDS,
  ) {
    for (const name of resources) this.collections.set(name, new Collection());
    for (const [name, objects] of Object.entries(data)) {
      for (const obj of objects) {
        const item = this.put(name, obj);
        if (!seeded(name, item.id)) this.track(name, item);
      }
    }
  }

  has(resource: string): boolean {
    return this.collections.has(resource);
  }

  resourceNames(): string[] {
    return [...this.collections.keys()];
  }

  all(resource: string): readonly Item[] {
    return this.collections.get(resource)?.items ?? [];
  }

  get(resource: string, id: string): Item | undefined {
    const c = this.collections.get(resource);
    const i = c?.index.get(id);
    return i === undefined ? undefined : c?.items[i];
  }

  /**
   * Inserts the object as given, replacing one with the same publicId in place; it counts
   * as added (newest), and the oldest added go while the bounds are passed.
   */
  upsert(resource: string, obj: JsonObject): Item {
    const item = this.put(resource, obj);
    this.track(resource, item);
    return item;
  }

  private track(resource: string, item: Item): void {
    const key = `${resource}\u0000${item.id}`;
    this.addedChars -= this.added.get(key) ?? 0;
    this.added.delete(key);
    this.added.set(key, item.json.length);
    this.addedChars += item.json.length;
    if (this.added.size <= this.bounds.objects && this.addedChars <= this.bounds.chars) return;
    const gone = new Map<string, Set<string>>();
    // The object just added stays, whatever its size: the body bound (413) caps it.
    while (this.added.size > 1 && (this.added.size > this.bounds.objects * 0.9 || this.addedChars > this.bounds.chars * 0.9)) {
      const [oldest, chars] = this.added.entries().next().value ?? ['', 0];
      this.added.delete(oldest);
      this.addedChars -= chars;
      const at = oldest.indexOf('\u0000');
      const name = oldest.slice(0, at);
      gone.set(name, (gone.get(name) ?? new Set()).add(oldest.slice(at + 1)));
    }
    for (const [name, ids] of gone) {
      const c = this.collections.get(name);
      if (!c) continue;
      c.items = c.items.filter((i) => !ids.has(i.id));
      c.index.clear();
      c.items.forEach((i, at) => c.index.set(i.id, at));
    }
    this.owners = new Map();
  }

  private put(resource: string, obj: JsonObject): Item {
    const c = this.collections.get(resource);
    if (!c) throw new Error(`unknown resource ${resource}`);
    if (typeof obj.publicId !== 'string' || obj.publicId === '') obj.publicId = this.newId(resource);
    const id = obj.publicId;
    const item: Item = { id, value: obj, json: stringifyJson(obj) };
    const at = c.index.get(id);
    if (at === undefined) {
      c.index.set(id, c.items.length);
      c.items.push(item);
    } else {
      c.items[at] = item;
    }
    this.owners = new Map();
    return item;
  }

  newId(resource: string): string {
    const prefix = PREFIXES[resource] ?? `${resource.slice(0, 2)}-`;
    for (;;) {
      const id = `${prefix}${randomBytes(8).toString('hex').slice(0, 10)}`;
      if (!this.get(resource, id)) return id;
    }
  }

  viewerFor(personId: string | null): Viewer {
    const person = personId ? this.get('people', personId)?.value : undefined;
    if (!person) return { all: false, teams: new Set() };
    if (person.role === 'owner') return { all: true, teams: new Set() };
    const teams = new Set<string>();
    if (typeof person.team === 'string') teams.add(person.team);
    if (Array.isArray(person.teams)) for (const t of person.teams) if (typeof t === 'string') teams.add(t);
    return { all: false, teams };
  }

  canSee(viewer: Viewer, resource: string, item: Item): boolean {
    if (viewer.all) return true;
    const owners = this.ownersOf(resource, item, 0);
    return owners === null || owners.some((t) => viewer.teams.has(t));
  }

  visible(viewer: Viewer, resource: string): Item[] {
    const items = this.all(resource);
    return viewer.all ? [...items] : items.filter((item) => this.canSee(viewer, resource, item));
  }

  private ownersOf(resource: string, item: Item, depth: number): readonly string[] | null {
    const key = `${resource}\u0000${item.id}`;
    const cached = this.owners.get(key);
    if (cached !== undefined) return cached;
    const found = this.resolveOwners(resource, item, depth);
    this.owners.set(key, found);
    return found;
  }

  private resolveOwners(resource: string, item: Item, depth: number): readonly string[] | null {
    const v = item.value;
    if (resource === 'teams') return [item.id];
    if (resource === 'people') {
      const teams = new Set<string>();
      if (typeof v.team === 'string') teams.add(v.team);
      if (Array.isArray(v.teams)) for (const t of v.teams) if (typeof t === 'string') teams.add(t);
      return teams.size > 0 ? [...teams] : null;
    }
    // Relations of planted objects can be anything; a depth bound stops a cycle.
    if (depth > 5) return null;
    for (const [field, target] of OWNER_LINKS[resource] ?? []) {
      const ref = v[field];
      if (typeof ref !== 'string') continue;
      if (target === 'teams') return [ref];
      const parent = this.get(target, ref);
      if (parent) return this.ownersOf(target, parent, depth + 1);
    }
    return null;
  }
}

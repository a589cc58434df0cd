// The collections and who may see what. "A token acts as the person who created it and
// sees what that person sees": here a person sees the objects of the teams they belong
// to, the organisation's owner sees everything, and an object that leads to no team
// (planted or created without one) is seen by everyone.

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
  readonly items: Item[] = [];
  readonly index = new Map<string, number>();
}

export class Store {
  private readonly collections = new Map<string, Collection>();
  /** Team IDs owning each object, or null when it leads to no team; cleared on every insert. */
  private owners = new Map<string, readonly string[] | null>();

  constructor(resources: readonly string[], data: SeedData) {
    for (const name of resources) this.collections.set(name, new Collection());
    for (const [name, objects] of Object.entries(data)) {
      for (const obj of objects) this.upsert(name, obj);
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

  /** Inserts the object as given, replacing one with the same publicId in place. */
  upsert(resource: string, obj: JsonObject): Item {
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

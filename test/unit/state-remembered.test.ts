// What the state file remembers for completion (src/config/state.ts: IDs, field names and
// names per base URL) and its bounds: a run reads back at once what it remembered, within
// MAX_IDS, MAX_NAMES and 200 fields; a save writes only what is new; what is read from the
// file is kept only when of the plain shape and length, anything else dropped; and the file
// written is never larger than MAX_STATE_BYTES, the lists cut (newest kept) and the rejected
// marks never.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_IDS, MAX_NAMES, MAX_STATE_BYTES, StateStore } from '../../src/config/state.js';

const BASE = 'http://127.0.0.1:1/v1';
const url = (): URL => new URL(BASE);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function stateFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-statebounds-'));
  dirs.push(dir);
  return join(dir, 'state.json');
}

/** A state file holding `data`, as another hostctl (or a hand) left it. */
function fileWith(data: unknown): string {
  const path = stateFile();
  writeFileSync(path, JSON.stringify(data));
  return path;
}

interface Saved {
  rejected: Record<string, unknown>;
  ids: Record<string, Record<string, string[]>>;
  names: Record<string, Record<string, string>>;
  fields: Record<string, Record<string, string[]>>;
}
const saved = (path: string): Saved => JSON.parse(readFileSync(path, 'utf8')) as Saved;

const range = (n: number, make: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => make(i));

describe('what a run remembers, it reads back at once, within the bounds', () => {
  it('an empty state knows no IDs, no fields and no names', () => {
    const store = new StateStore(stateFile());
    expect(store.knownIds(url(), 'apps')).toEqual([]);
    expect(store.knownFields(url(), 'apps')).toEqual([]);
    expect(store.knownNames(url())).toEqual({});
  });

  it('IDs: exactly those seen, newest first, at most MAX_IDS per resource', () => {
    const store = new StateStore(stateFile());
    store.rememberIds(url(), 'apps', ['ap-1', 'ap-2']);
    expect(store.knownIds(url(), 'apps')).toEqual(['ap-1', 'ap-2']);
    const many = range(MAX_IDS + 1, (i) => `ap-n${i}`);
    store.rememberIds(url(), 'apps', many);
    expect(store.knownIds(url(), 'apps')).toEqual(many.slice(0, MAX_IDS));
  });

  it('fields: exactly those seen, a new one added to those known, at most 200 per resource', () => {
    const store = new StateStore(stateFile());
    store.rememberFields(url(), 'apps', ['id', 'name']);
    expect(store.knownFields(url(), 'apps')).toEqual(['id', 'name']);
    store.rememberFields(url(), 'apps', ['id', 'status']);
    expect(store.knownFields(url(), 'apps')).toEqual(['id', 'name', 'status']);
    store.rememberFields(url(), 'apps', range(300, (i) => `f${i}`));
    const known = store.knownFields(url(), 'apps');
    expect(known).toHaveLength(200);
    expect(known.slice(0, 4)).toEqual(['id', 'name', 'status', 'f0']);
  });

  it('names: a new one among known ones is added; at most MAX_NAMES, the oldest go first', () => {
    const store = new StateStore(stateFile());
    store.rememberNames(url(), new Map([['ap-a', 'A']]));
    store.rememberNames(url(), new Map([['ap-a', 'A'], ['ap-b', 'B']]));
    expect(store.knownNames(url())).toEqual({ 'ap-a': 'A', 'ap-b': 'B' });
    store.rememberNames(url(), new Map(range(MAX_NAMES, (i) => `ap-n${i}`).map((id) => [id, id.toUpperCase()])));
    const known = store.knownNames(url());
    expect(Object.keys(known)).toHaveLength(MAX_NAMES);
    expect(known).not.toHaveProperty('ap-a');
    expect(known).not.toHaveProperty('ap-b');
    expect(known['ap-n0']).toBe('AP-N0');
  });

  it('names: an ID seen again under a new name counts as newest, so it is not the first to go when the map is full', () => {
    const store = new StateStore(stateFile());
    store.rememberNames(url(), new Map(range(10, (i) => `ap-${i}`).map((id) => [id, `old ${id}`])));
    store.rememberNames(url(), new Map([['ap-0', 'renamed']]));
    store.rememberNames(url(), new Map(range(MAX_NAMES - 9, (i) => `ap-n${i}`).map((id) => [id, `new ${id}`])));
    const known = store.knownNames(url());
    expect(Object.keys(known)).toHaveLength(MAX_NAMES);
    expect(known['ap-0']).toBe('renamed');
    expect(known).not.toHaveProperty('ap-1');
  });
});

describe('rememberIds saves what is new', () => {
  /** Remembers `seen` onto a file that knows `known`; another process then writes ap-9: the save shows whether there was a change. */
  function savedAfter(known: string[], seen: string[]): string[] | undefined {
    const path = fileWith({ ids: { [BASE]: { apps: known } } });
    const store = new StateStore(path);
    store.rememberIds(url(), 'apps', seen);
    writeFileSync(path, JSON.stringify({ ids: { [BASE]: { apps: ['ap-9'] } } }));
    expect(store.save()).toBe(true);
    return saved(path).ids[BASE]?.apps;
  }

  it('a list that only begins like the newest IDs is new', () => {
    expect(savedAfter(['ap-1', 'ap-2'], ['ap-1', 'ap-3'])).toEqual(['ap-1', 'ap-3', 'ap-9']);
  });

  it('a list that repeats an ID is new even when a file left it in that order: it is saved once', () => {
    expect(savedAfter(['ap-1', 'ap-1'], ['ap-1', 'ap-1'])).toEqual(['ap-1', 'ap-9']);
  });
});

describe('what is read from the state file: within bounds, anything else dropped', () => {
  it('rejected marks: only those with a numeric time; the status kept, 401 when missing', () => {
    const store = new StateStore(
      fileWith({ rejected: { 'fp-text': 'x', 'fp-no-at': { status: 403 }, 'fp-text-at': { at: '1', status: 403 }, 'fp-403': { at: 1, status: 403 }, 'fp-bare': { at: 2 } } }),
    );
    expect(store.rejected('fp-text')).toBeUndefined();
    expect(store.rejected('fp-no-at')).toBeUndefined();
    expect(store.rejected('fp-text-at')).toBeUndefined();
    expect(store.rejected('fp-403')).toEqual({ at: 1, status: 403 });
    expect(store.rejected('fp-bare')).toEqual({ at: 2, status: 401 });
  });

  it('IDs: only of the plain shape (a letter or digit first, at most 128 characters), at most MAX_IDS, the newest', () => {
    const plain = ['ap-1', 'A_b-9', 'x'.repeat(128)];
    const odd = ['bad id', '-ap', '_ap', 'ap/1', 'x'.repeat(129), ''];
    expect(new StateStore(fileWith({ ids: { [BASE]: { apps: [...odd, ...plain, 7, null] } } })).knownIds(url(), 'apps')).toEqual(plain);
    const many = range(MAX_IDS + 1, (i) => `ap-${i}`);
    expect(new StateStore(fileWith({ ids: { [BASE]: { apps: many } } })).knownIds(url(), 'apps')).toEqual(many.slice(0, MAX_IDS));
  });

  it('field names: of 1 to 100 characters', () => {
    const store = new StateStore(fileWith({ fields: { [BASE]: { apps: ['', 'f'.repeat(100), 'g'.repeat(101), 'name'] } } }));
    expect(store.knownFields(url(), 'apps')).toEqual(['f'.repeat(100), 'name']);
  });

  it('names: text names of plain IDs, cut to 200 characters, at most MAX_NAMES, the newest', () => {
    const store = new StateStore(fileWith({ names: { [BASE]: { 'ap-1': 'One', 'bad id': 'Bad', 'ap-2': 7, 'ap-3': null, 'ap-4': 'n'.repeat(250) } } }));
    expect(store.knownNames(url())).toEqual({ 'ap-1': 'One', 'ap-4': 'n'.repeat(200) });
    const many = range(MAX_NAMES + 1, (i) => `ap-${i}`);
    const known = new StateStore(fileWith({ names: { [BASE]: Object.fromEntries(many.map((id) => [id, id])) } })).knownNames(url());
    expect(Object.keys(known)).toEqual(many.slice(1));
  });

  it('names: a base URL whose names are not an object has none', () => {
    expect(new StateStore(fileWith({ names: { [BASE]: 'ap-1' } })).knownNames(url())).toEqual({});
    expect(new StateStore(fileWith({ names: { [BASE]: ['ap-1'] } })).knownNames(url())).toEqual({});
  });

  it('IDs and fields that are not lists in objects are dropped at the next write', () => {
    const other = 'https://api.example.invalid/v1';
    const path = fileWith({
      ids: { [BASE]: { apps: ['ap-1'], hosts: 'ho-1', dbs: { 0: 'db-1' } }, [other]: 'ap-2' },
      fields: { [BASE]: { apps: ['id'], hosts: 'name' }, [other]: ['name'] },
    });
    const store = new StateStore(path);
    store.rememberIds(url(), 'apps', ['ap-0']);
    expect(store.save()).toBe(true);
    const file = saved(path);
    expect(file.ids).toEqual({ [BASE]: { apps: ['ap-0', 'ap-1'] } });
    expect(file.fields).toEqual({ [BASE]: { apps: ['id'] } });
  });
});

describe('StateStore.save', () => {
  it('with nothing to save, succeeds and writes nothing', () => {
    const path = stateFile();
    const store = new StateStore(path);
    expect(store.knownIds(url(), 'apps')).toEqual([]);
    expect(store.save()).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it('returns false, and leaves the file as it was, when the state file cannot be read', () => {
    const path = stateFile();
    const store = new StateStore(path);
    store.rememberIds(url(), 'apps', ['ap-1']);
    const damaged = '{"rejected":{"fp":{"at":1,';
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, damaged);
    expect(store.save()).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(damaged);
  });
});

describe('the state file is never written larger than MAX_STATE_BYTES', () => {
  const ids = range(64, (i) => `ap-${String(i).padStart(3, '0')}`);
  const fields = range(64, (i) => `field${i}`);
  const names = Object.fromEntries(ids.map((id) => [id, `name of ${id}`]));

  /** The state as hostctl writes it, made `bytes` long (its newline included) by a rejected mark's key. */
  function stateOf(bytes: number): Saved {
    const state = (pad: number): Saved => ({
      rejected: { ['f'.repeat(pad)]: { at: 1, status: 401 } },
      ids: { [BASE]: { apps: ids } },
      names: { [BASE]: names },
      fields: { [BASE]: { apps: fields } },
    });
    const size = Buffer.byteLength(JSON.stringify(state(1))) + 1;
    return state(1 + bytes - size);
  }

  /** Saves `state` by remembering its newest ID onto a file that lacks it; returns the file's bytes. */
  function saveOf(state: Saved): Buffer {
    const apps = state.ids[BASE]!.apps!;
    const path = fileWith({ ...state, ids: { [BASE]: { apps: apps.slice(1) } } });
    const store = new StateStore(path);
    store.rememberIds(url(), 'apps', [apps[0]!]);
    expect(store.save()).toBe(true);
    return readFileSync(path);
  }

  it('a state of exactly MAX_STATE_BYTES is written whole', () => {
    const state = stateOf(MAX_STATE_BYTES);
    const bytes = saveOf(state);
    expect(bytes.length).toBe(MAX_STATE_BYTES);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(state);
  });

  it('a state one byte larger has every list cut to its newest half; the rejected marks are kept', () => {
    const state = stateOf(MAX_STATE_BYTES + 1);
    const bytes = saveOf(state);
    expect(bytes.length).toBeLessThanOrEqual(MAX_STATE_BYTES);
    const file = JSON.parse(bytes.toString('utf8')) as Saved;
    expect(file.rejected).toEqual(state.rejected);
    expect(file.ids).toEqual({ [BASE]: { apps: ids.slice(0, 32) } });
    expect(file.fields).toEqual({ [BASE]: { apps: fields.slice(0, 32) } });
    expect(file.names).toEqual({ [BASE]: Object.fromEntries(Object.entries(names).slice(32)) });
  });

  it('rejected marks larger than MAX_STATE_BYTES on their own are kept, the lists emptied, and the save ends', () => {
    const state = stateOf(MAX_STATE_BYTES + 100_000);
    const path = fileWith({ ...state, ids: {} });
    const store = new StateStore(path);
    store.rememberIds(url(), 'apps', ids);
    expect(store.save()).toBe(true);
    const file = saved(path);
    expect(file.rejected).toEqual(state.rejected);
    expect(file.ids).toEqual({ [BASE]: { apps: [] } });
    expect(file.fields).toEqual({ [BASE]: { apps: [] } });
    expect(file.names).toEqual({ [BASE]: {} });
    expect(statSync(path).size).toBeGreaterThan(MAX_STATE_BYTES);
    expect(new StateStore(path).rejected(Object.keys(state.rejected)[0]!)).toEqual({ at: 1, status: 401 });
  });
});

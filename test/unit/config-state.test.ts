// The state file is saved under a lock on every run that changed it: a run that learnt
// nothing new must not count as a change (each save is a lock, a write and a rename).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StateStore } from '../../src/config/state.js';

const BASE = 'http://127.0.0.1:1/v1';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function stateFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-state-'));
  dirs.push(dir);
  return join(dir, 'state.json');
}

/** Writes another process's state in between: a store that has changes replays them onto it. */
function overwrite(path: string, ids: string[]): void {
  writeFileSync(path, JSON.stringify({ ids: { [BASE]: { apps: ids } } }));
}

const savedIds = (path: string): unknown => (JSON.parse(readFileSync(path, 'utf8')) as { ids: Record<string, { apps: string[] }> }).ids[BASE]?.apps;

describe('StateStore.rememberIds', () => {
  it('changes nothing when the same IDs are already the newest, in the same order', () => {
    const path = stateFile();
    const first = new StateStore(path);
    first.rememberIds(new URL(BASE), 'apps', ['ap-1', 'ap-2']);
    expect(first.save()).toBe(true);

    const again = new StateStore(path);
    again.rememberIds(new URL(BASE), 'apps', ['ap-1', 'ap-2']);
    overwrite(path, ['ap-9']);
    again.save();
    expect(savedIds(path)).toEqual(['ap-9']);
  });

  it('saves IDs that are new, or newly at the front', () => {
    for (const seen of [['ap-3'], ['ap-2', 'ap-1'], ['ap-1', 'ap-1']]) {
      const path = stateFile();
      const first = new StateStore(path);
      first.rememberIds(new URL(BASE), 'apps', ['ap-1', 'ap-2']);
      first.save();
      const again = new StateStore(path);
      again.rememberIds(new URL(BASE), 'apps', seen);
      overwrite(path, ['ap-9']);
      again.save();
      expect(savedIds(path), seen.join(' ')).toEqual([...new Set([...seen, 'ap-9'])]);
    }
  });
});

describe('an older state file', () => {
  it("keeps its marks and IDs; its rate state (now in the budget file) is ignored and dropped at the next write", () => {
    const path = stateFile();
    const old = { rateLimits: { fp: { limit: 20, remaining: 3, resetAt: 1, seenAt: 1 } }, rejected: { bad: { at: 1, status: 401 } }, ids: { [BASE]: { apps: ['ap-1'] } } };
    writeFileSync(path, JSON.stringify(old));
    const store = new StateStore(path);
    expect(store.rejected('bad')).toEqual({ at: 1, status: 401 });
    store.rememberIds(new URL(BASE), 'apps', ['ap-2']);
    expect(store.save()).toBe(true);
    const saved = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(saved).not.toHaveProperty('rateLimits');
    expect(saved.rejected).toEqual(old.rejected);
    expect(savedIds(path)).toEqual(['ap-2', 'ap-1']);
  });
});

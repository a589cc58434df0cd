// The rejected-token marks of the state store (src/config/state.ts): a state file that
// exists but cannot be read refuses every unmarked token, with the reason and the next
// step; a mark that state.json cannot take goes to the first fallback place that is a
// private directory of this user's, is read back only from files of this user's, and is
// lifted everywhere by clearRejected; the file is read once per run, within the bounds
// of its reader. (The lists' bounds on the way in and out: state-remembered.test.ts. The
// lock: state-store.test.ts.) The tests run as root, where a file of mode 000 is still
// readable: the "permission denied" refusal is config-permission-denied.test.ts's (openSync stubbed) and
// test/e2e/trust-dirs.test.ts's.

import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_STATE_BYTES, StateStore } from '../../src/config/state.js';
import { AuthError } from '../../src/errors.js';
import { withoutUserIds } from '../support/no-user-ids.js';

const BASE = 'http://127.0.0.1:1/v1';
const posix = process.platform !== 'win32';
const AS_ROOT = process.getuid?.() === 0;
/** A user ID that is not this one's (nobody). */
const OTHER = 65534;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function world(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-marks-'));
  dirs.push(dir);
  return dir;
}

/** A state.json that can be neither read nor written (ENOTDIR): its directory is a regular file. */
function blockedState(dir: string): string {
  const file = join(dir, 'not-a-directory');
  writeFileSync(file, '');
  return join(file, 'state.json');
}

function marksIn(dir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dir, 'rejected.json'), 'utf8')) as Record<string, unknown>;
}

/** The AuthError rejected() throws for `fingerprint`; fails the test for anything else. */
function refusal(store: StateStore, fingerprint: string): AuthError {
  let mark: unknown;
  try {
    mark = store.rejected(fingerprint);
  } catch (err) {
    if (err instanceof AuthError) return err;
    throw err;
  }
  throw new Error(`rejected(${fingerprint}) answered ${JSON.stringify(mark)}`);
}

const moveAway = (path: string): string =>
  `Move it away (mv ${path} ${path}.damaged); hostctl then forgets which tokens were rejected, so check yours with "hostctl auth status --check" once.`;

/** What this process holds open (Linux: the links in /proc/self/fd). */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(join('/proc/self/fd', fd))];
    } catch {
      return []; // the descriptor readdir itself used, closed meanwhile
    }
  });
}

describe('a state file that exists but cannot be read', () => {
  it('refuses every unmarked token (exit 4), naming the file and why, and says how to move it away', () => {
    const dir = world();
    const cases: [string, (path: string) => void][] = [
      ['it is not valid JSON', (p) => writeFileSync(p, '{"rejected":{"9f2c41d0aa":{"at":1764000000000,"sta')],
      ['it is not a JSON object', (p) => writeFileSync(p, '[{"rejected":{}}]')],
      ['it is not a JSON object', (p) => writeFileSync(p, '401')],
      ['it is a directory', (p) => mkdirSync(p)],
    ];
    cases.forEach(([why, make], i) => {
      const path = join(dir, `state-${i}.json`);
      make(path);
      const err = refusal(new StateStore(path), 'fp-any');
      expect(err.exitCode).toBe(4);
      expect(err.message).toBe(
        `hostctl cannot read its state file ${path} (${why}), which records the tokens the API rejected, so it will not send a token that may be one of them.`,
      );
      expect(err.hint).toBe(moveAway(path));
    });
  });

  it('one that cannot be opened is named by its error code (ENOTDIR: its directory is a file)', () => {
    const path = blockedState(world());
    const err = refusal(new StateStore(path), 'fp-any');
    expect(err.message).toContain(`${path} (ENOTDIR),`);
    expect(err.hint).toBe(moveAway(path));
  });

  it.runIf(process.platform === 'linux')('one that opens but fails to read is named by its error code (EIO)', () => {
    // /proc/self/mem opens, and reading it from offset 0 fails with EIO.
    const err = refusal(new StateStore('/proc/self/mem'), 'fp-any');
    expect(err.message).toContain('/proc/self/mem (EIO),');
    expect(err.hint).toBe(moveAway('/proc/self/mem'));
  });

  it('a token marked in a fallback place is still answered with its mark', () => {
    const dir = world();
    const state = join(dir, 'state.json');
    writeFileSync(state, '{"rejected":');
    const fallback = join(dir, 'fallback');
    mkdirSync(fallback, { mode: 0o700 });
    writeFileSync(join(fallback, 'rejected.json'), JSON.stringify({ 'fp-marked': { at: 5, status: 403 } }), { mode: 0o600 });
    expect(new StateStore(state, [fallback]).rejected('fp-marked')).toEqual({ at: 5, status: 403 });
    expect(refusal(new StateStore(state, [fallback]), 'fp-other').message).toContain('(it is not valid JSON)');
  });
});

describe('reading the state file', () => {
  it('an unmarked token has no mark; a mark is read back as written, sandbox only when said', () => {
    const dir = world();
    const state = join(dir, 'state.json');
    const store = new StateStore(state, [join(dir, 'fallback')]);
    store.markRejected('fp-plain', 401);
    store.markRejected('fp-sandbox', 403, true);
    expect(store.recorded('fp-plain')).toBe(true);
    const again = new StateStore(state, [join(dir, 'fallback')]);
    expect(again.rejected('fp-none')).toBeUndefined();
    expect(again.rejected('fp-plain')).toEqual({ at: expect.any(Number) as number, status: 401 });
    expect(again.rejected('fp-sandbox')).toEqual({ at: expect.any(Number) as number, status: 403, sandbox: true });
  });

  it('what a run changes is seen by its later reads before any save', () => {
    const state = join(world(), 'state.json');
    writeFileSync(state, JSON.stringify({ rejected: { 'fp-old': { at: 1, status: 401 } } }));
    const store = new StateStore(state);
    store.rememberIds(new URL(BASE), 'apps', ['ap-1']);
    store.clearRejected('fp-old');
    expect(store.knownIds(new URL(BASE), 'apps')).toEqual(['ap-1']);
    expect(store.rejected('fp-old')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('leaves no descriptor open on the file, read or not', () => {
    const dir = world();
    const good = join(dir, 'state.json');
    writeFileSync(good, JSON.stringify({ ids: { [BASE]: { apps: ['ap-1'] } } }));
    const damaged = join(dir, 'damaged.json');
    writeFileSync(damaged, '{');
    const big = join(dir, 'big.json');
    writeFileSync(big, JSON.stringify({ ids: { [BASE]: { apps: ['ap-1'] } } }));
    for (let i = 0; i < 3; i++) {
      new StateStore(good).knownIds(new URL(BASE), 'apps');
      new StateStore(damaged).knownIds(new URL(BASE), 'apps');
      new StateStore(big, [], 4).knownIds(new URL(BASE), 'apps');
      new StateStore(dir).knownIds(new URL(BASE), 'apps');
    }
    expect(openFiles().filter((target) => target.startsWith(dir))).toEqual([]);
  });

  it('a reader with a byte limit (completion) reads a file up to it, and a larger one as empty', () => {
    const path = join(world(), 'state.json');
    writeFileSync(path, JSON.stringify({ ids: { [BASE]: { apps: ['ap-1', 'ap-2'] } } }));
    const size = statSync(path).size;
    expect(new StateStore(path, [], size).knownIds(new URL(BASE), 'apps')).toEqual(['ap-1', 'ap-2']);
    expect(new StateStore(path, [], size - 1).knownIds(new URL(BASE), 'apps')).toEqual([]);
  });

  it('offers only IDs of the plain shape: a letter or digit first, then letters, digits, - and _, 128 at most', () => {
    const path = join(world(), 'state.json');
    const ids = ['ap-1', '-ap-2', '_ap-3', 'ap-4!', 'ap 5', `a${'b'.repeat(127)}`, `a${'b'.repeat(128)}`, 'ap-6'];
    writeFileSync(path, JSON.stringify({ ids: { [BASE]: { apps: ids } } }));
    expect(new StateStore(path).knownIds(new URL(BASE), 'apps')).toEqual(['ap-1', `a${'b'.repeat(127)}`, 'ap-6']);
  });

  it('a file over MAX_STATE_BYTES (an older hostctl\'s) is rewritten within bounds at the next save, its marks kept; one of exactly MAX_STATE_BYTES is left as it is', () => {
    const dir = world();
    const sized = (path: string, bytes: number): string => {
      const head = JSON.stringify({ rejected: { 'fp-old': { at: 1, status: 401 } }, padding: '' });
      const text = `${head.slice(0, -2)}${'x'.repeat(bytes - Buffer.byteLength(head))}"}`;
      writeFileSync(path, text);
      expect(statSync(path).size).toBe(bytes);
      return text;
    };
    const over = join(dir, 'over.json');
    sized(over, MAX_STATE_BYTES + 1);
    const store = new StateStore(over);
    expect(store.rejected('fp-old')).toEqual({ at: 1, status: 401 });
    expect(store.save()).toBe(true);
    expect(statSync(over).size).toBeLessThanOrEqual(MAX_STATE_BYTES);
    expect(new StateStore(over).rejected('fp-old')).toEqual({ at: 1, status: 401 });

    const exact = join(dir, 'exact.json');
    const text = sized(exact, MAX_STATE_BYTES);
    const kept = new StateStore(exact);
    expect(kept.rejected('fp-old')).toEqual({ at: 1, status: 401 });
    expect(kept.save()).toBe(true);
    expect(readFileSync(exact, 'utf8')).toBe(text);
  });

  it('a damaged file over MAX_STATE_BYTES is not queued for rewriting: nothing to save, and it is kept', () => {
    const path = join(world(), 'state.json');
    const damaged = `{"rejected":{"fp-old":{"at":1,"status":401}},"padding":"${'x'.repeat(MAX_STATE_BYTES)}`;
    writeFileSync(path, damaged);
    const store = new StateStore(path);
    expect(store.knownIds(new URL(BASE), 'apps')).toEqual([]);
    expect(store.save()).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(damaged);
  });

  it('the fallback marks are read once per run: a mark seen stays seen when its file goes meanwhile', () => {
    const dir = world();
    const fallback = join(dir, 'fallback');
    mkdirSync(fallback, { mode: 0o700 });
    writeFileSync(join(fallback, 'rejected.json'), JSON.stringify({ 'fp-a': { at: 2, status: 401 } }), { mode: 0o600 });
    const store = new StateStore(join(dir, 'state.json'), [fallback]);
    expect(store.rejected('fp-a')).toEqual({ at: 2, status: 401 });
    rmSync(join(fallback, 'rejected.json'));
    expect(store.rejected('fp-a')).toEqual({ at: 2, status: 401 });
  });
});

describe('markRejected when state.json cannot be written', () => {
  it('puts the mark in a fallback directory that already exists, and makes it 0700', () => {
    const dir = world();
    const state = blockedState(dir);
    const fallback = join(dir, 'fallback');
    mkdirSync(fallback);
    chmodSync(fallback, 0o755);
    const store = new StateStore(state, [fallback]);
    store.markRejected('fp-new', 401);
    expect(store.recorded('fp-new')).toBe(true);
    expect(marksIn(fallback)).toEqual({ 'fp-new': { at: expect.any(Number) as number, status: 401 } });
    if (posix) expect(statSync(fallback).mode & 0o777).toBe(0o700);
    expect(new StateStore(state, [fallback]).rejected('fp-new')).toMatchObject({ status: 401 });
  });

  it('with no fallback place given, records the mark nowhere, and says so', () => {
    const store = new StateStore(blockedState(world()));
    store.markRejected('fp-new', 401);
    expect(store.recorded('fp-new')).toBe(false);
  });

  it.runIf(posix)('passes over a fallback place that is not a private directory of this user\'s (another user\'s, a symlink) for the next', () => {
    const dir = world();
    const state = blockedState(dir);
    // As root, a directory made here is given away; as anyone else, the system's /tmp is root's.
    let theirs = '/tmp';
    if (AS_ROOT) {
      theirs = join(dir, 'theirs');
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, OTHER, OTHER);
    }
    const target = join(dir, 'target');
    mkdirSync(target, { mode: 0o700 });
    const link = join(dir, 'link');
    symlinkSync(target, link);
    const mine = join(dir, 'mine');
    const store = new StateStore(state, [theirs, link, mine]);
    store.markRejected('fp-new', 401);
    expect(store.recorded('fp-new')).toBe(true);
    expect(Object.keys(marksIn(mine))).toEqual(['fp-new']);
    if (AS_ROOT) expect(readdirSync(theirs)).toEqual([]);
    expect(readdirSync(target)).toEqual([]);
  });

  it('on a platform without user IDs (Windows), the fallback place takes the mark and answers it, and an unmarked token is still refused', () => {
    const dir = world();
    const state = blockedState(dir);
    const fallback = join(dir, 'fallback');
    withoutUserIds(() => {
      const store = new StateStore(state, [fallback]);
      store.markRejected('fp-new', 401);
      expect(store.recorded('fp-new')).toBe(true);
      const again = new StateStore(state, [fallback]);
      expect(again.rejected('fp-new')).toMatchObject({ status: 401 });
      const err = refusal(again, 'fp-other');
      expect(err.message).toContain(`${state} (ENOTDIR),`);
      expect(err.hint).toBe(moveAway(state));
    });
  });
});

describe('the marks of the fallback places', () => {
  it.runIf(posix)('are read only from a regular file of this user\'s: not another user\'s, not a symlink', () => {
    const dir = world();
    const fallback = join(dir, 'fallback');
    mkdirSync(fallback, { mode: 0o700 });
    const elsewhere = join(dir, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ 'fp-linked': { at: 3, status: 401 } }), { mode: 0o600 });
    symlinkSync(elsewhere, join(fallback, 'rejected.json'));
    const stores = [fallback];
    if (AS_ROOT) {
      const theirs = join(dir, 'theirs');
      mkdirSync(theirs, { mode: 0o700 });
      writeFileSync(join(theirs, 'rejected.json'), JSON.stringify({ 'fp-planted': { at: 4, status: 401 } }), { mode: 0o600 });
      chownSync(join(theirs, 'rejected.json'), OTHER, OTHER);
      stores.push(theirs);
    }
    const store = new StateStore(join(dir, 'state.json'), stores);
    expect(store.rejected('fp-linked')).toBeUndefined();
    expect(store.rejected('fp-planted')).toBeUndefined();
  });

  it('on a platform without user IDs (Windows), are read from every fallback place', () => {
    const dir = world();
    const fallback = join(dir, 'fallback');
    mkdirSync(fallback, { mode: 0o700 });
    writeFileSync(join(fallback, 'rejected.json'), JSON.stringify({ 'fp-a': { at: 2, status: 401 } }), { mode: 0o600 });
    withoutUserIds(() => {
      expect(new StateStore(join(dir, 'state.json'), [fallback]).rejected('fp-a')).toEqual({ at: 2, status: 401 });
    });
  });
});

describe('clearRejected', () => {
  it('lifts a mark from state.json, in this run and the next, and keeps the others', () => {
    const state = join(world(), 'state.json');
    writeFileSync(state, JSON.stringify({ rejected: { 'fp-a': { at: 1, status: 401 }, 'fp-b': { at: 2, status: 403 } } }));
    const store = new StateStore(state);
    store.clearRejected('fp-a');
    expect(store.rejected('fp-a')).toBeUndefined();
    expect(store.save()).toBe(true);
    const again = new StateStore(state);
    expect(again.rejected('fp-a')).toBeUndefined();
    expect(again.rejected('fp-b')).toEqual({ at: 2, status: 403 });
  });

  it('lifts a mark from every fallback place, keeps the other marks there, and writes no file where there was none', () => {
    const dir = world();
    const place = (name: string, marks?: Record<string, unknown>): string => {
      const p = join(dir, name);
      if (marks) {
        mkdirSync(p, { mode: 0o700 });
        writeFileSync(join(p, 'rejected.json'), `${JSON.stringify(marks)}\n`, { mode: 0o600 });
      }
      return p;
    };
    const first = place('first', { 'fp-a': { at: 1, status: 401 }, 'fp-b': { at: 2, status: 401 } });
    const none = place('none');
    const other = place('other', { 'fp-c': { at: 3, status: 403 } });
    const last = place('last', { 'fp-a': { at: 4, status: 401 } });
    const otherText = readFileSync(join(other, 'rejected.json'), 'utf8');
    const places = [first, none, other, last];
    const state = join(dir, 'state.json');

    new StateStore(state, places).clearRejected('fp-a');

    const again = new StateStore(state, places);
    expect(again.rejected('fp-a')).toBeUndefined();
    expect(again.rejected('fp-b')).toEqual({ at: 2, status: 401 });
    expect(again.rejected('fp-c')).toEqual({ at: 3, status: 403 });
    expect(marksIn(first)).toEqual({ 'fp-b': { at: 2, status: 401 } });
    expect(marksIn(last)).toEqual({});
    expect(existsSync(none)).toBe(false);
    expect(readFileSync(join(other, 'rejected.json'), 'utf8')).toBe(otherText);
  });
});

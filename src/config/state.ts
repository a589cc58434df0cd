// The state file: the rejected-token marks, keyed by token fingerprint (never the token),
// and the public IDs, names and fields seen, for completion. Losing it loses nothing that
// matters, so a damaged file is treated as empty. The rate state is not here but in the
// token's budget file (src/http/budget.ts), written with the budget on every answer; a
// `rateLimits` left by an older hostctl is ignored and dropped at the next write.

import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, withLockSync, writeFileAtomic, type LockPolicy } from './atomic.js';
import { finiteNumber, isRecord, stringList } from '../json/narrow.js';

export interface RejectedMark {
  at: number;
  status: number;
  /** The server that rejected it was a hostctl sandbox (src/auth/advice.ts). */
  sandbox?: true;
}

interface StateData {
  rejected: Record<string, RejectedMark>;
  /**
   * base URL -> resource name -> public IDs, newest first. By base URL, not profile: two
   * profiles on one platform share IDs, and a sandbox's IDs are never offered for another.
   */
  ids: Record<string, Record<string, string[]>>;
  /** base URL -> public ID -> name, for references and completion (no request needed). */
  names: Record<string, Record<string, string>>;
  /** base URL -> resource name -> field names seen, for completing --fields. */
  fields: Record<string, Record<string, string[]>>;
}

/** How many IDs per resource and base URL are kept for completion. */
export const MAX_IDS = 500;
/** How many names per base URL are kept. */
export const MAX_NAMES = 5000;
/** How many field names per resource and base URL are kept. */
export const MAX_FIELDS = 200;

/** State is optional: a save that cannot have the lock within 2 s writes without it. */
const STATE_LOCK: LockPolicy = { staleMs: 5_000, waitMs: 2_000, unavailable: 'proceed' };

/** The file a rejected mark falls back to, in each of the fallback directories. */
const FALLBACK_FILE = 'rejected.json';

/**
 * `dir`, made if missing, when it is a real directory of this user's that no one else can
 * write to (a shared temporary directory could hold one planted by someone else); else
 * undefined. Made or kept at mode 0700.
 */
function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) return undefined;
    if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
    return dir;
  } catch {
    return undefined;
  }
}

function readMarks(file: string): Record<string, RejectedMark> {
  return normalize({ rejected: readJsonFile(file) }).rejected;
}

export class StateStore {
  private data: StateData | undefined;
  private dirty = new Set<(d: StateData, fresh: StateData) => void>();
  private fallbackMarks?: Record<string, RejectedMark>;
  /** Fingerprints whose rejected mark could be written nowhere. */
  private readonly unrecorded = new Set<string>();

  /**
   * `fallbackDirs`: where a rejected mark goes (and is read from) when `path` cannot be
   * written; see rejectedFallbackDirs.
   */
  constructor(
    readonly path: string,
    private readonly fallbackDirs: readonly string[] = [],
  ) {}

  private load(): StateData {
    if (!this.data) this.data = normalize(readJsonFile(this.path));
    return this.data;
  }

  rejected(fingerprint: string): RejectedMark | undefined {
    return this.load().rejected[fingerprint] ?? this.loadFallbackMarks()[fingerprint];
  }

  /** False when the mark for `fingerprint` could not be written anywhere. */
  recorded(fingerprint: string): boolean {
    return !this.unrecorded.has(fingerprint);
  }

  /**
   * Marks a token as rejected, and saves at once, so that even an interrupted run leaves
   * the mark behind. When the state file cannot be written, the mark goes to the first
   * private fallback directory that can take it; recorded() says whether any could.
   */
  markRejected(fingerprint: string, status: number, sandbox = false): void {
    const mark: RejectedMark = { at: Date.now(), status, ...(sandbox ? { sandbox: true as const } : {}) };
    this.change((d) => {
      d.rejected[fingerprint] = mark;
    });
    if (this.save()) return;
    for (const dir of this.fallbackDirs) {
      if (privateDir(dir) === undefined) continue;
      const file = join(dir, FALLBACK_FILE);
      try {
        const marks = { ...readMarks(file), [fingerprint]: mark };
        writeFileAtomic(file, `${JSON.stringify(marks)}\n`, 0o600);
        this.fallbackMarks = undefined;
        return;
      } catch {
        // The next place, then.
      }
    }
    this.unrecorded.add(fingerprint);
  }

  clearRejected(fingerprint: string): void {
    this.change((d) => {
      delete d.rejected[fingerprint];
    });
    for (const dir of this.fallbackDirs) {
      const file = join(dir, FALLBACK_FILE);
      const marks = readMarks(file);
      if (!(fingerprint in marks)) continue;
      delete marks[fingerprint];
      try {
        writeFileAtomic(file, `${JSON.stringify(marks)}\n`, 0o600);
      } catch {
        // Left as it was: the token stays refused, which is the safe side.
      }
    }
    this.fallbackMarks = undefined;
  }

  /** The marks in the fallback files that belong to this user. */
  private loadFallbackMarks(): Record<string, RejectedMark> {
    if (this.fallbackMarks) return this.fallbackMarks;
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    const all: Record<string, RejectedMark> = {};
    for (const dir of this.fallbackDirs) {
      const file = join(dir, FALLBACK_FILE);
      try {
        const st = lstatSync(file);
        if (!st.isFile() || (uid !== undefined && st.uid !== uid)) continue;
      } catch {
        continue;
      }
      Object.assign(all, readMarks(file));
    }
    return (this.fallbackMarks = all);
  }

  knownIds(base: string, resource: string): string[] {
    return this.load().ids[base]?.[resource] ?? [];
  }

  rememberIds(base: string, resource: string, ids: readonly string[]): void {
    if (ids.length === 0) return;
    // Already the newest, in this order (a repeated list): nothing to save.
    const known = this.knownIds(base, resource);
    if (new Set(ids).size === ids.length && ids.every((id, i) => known[i] === id)) return;
    this.change((d) => {
      const byResource = (d.ids[base] ??= {});
      const merged = [...new Set([...ids, ...(byResource[resource] ?? [])])];
      byResource[resource] = merged.slice(0, MAX_IDS);
    });
  }

  /** The names seen for public IDs on this base URL. */
  knownNames(base: string): Readonly<Record<string, string>> {
    return this.load().names[base] ?? {};
  }

  knownFields(base: string, resource: string): string[] {
    return this.load().fields[base]?.[resource] ?? [];
  }

  rememberFields(base: string, resource: string, fields: readonly string[]): void {
    const known = new Set(this.knownFields(base, resource));
    if (fields.every((f) => known.has(f))) return;
    this.change((d) => {
      const byResource = (d.fields[base] ??= {});
      byResource[resource] = [...new Set([...(byResource[resource] ?? []), ...fields])].slice(0, MAX_FIELDS);
    });
  }

  rememberNames(base: string, names: ReadonlyMap<string, string>): void {
    const known = this.knownNames(base);
    if ([...names].every(([id, name]) => known[id] === name)) return;
    this.change((d) => {
      // Newest last, so that the oldest go first when the map is full.
      const merged = Object.entries(d.names[base] ?? {}).filter(([id]) => !names.has(id));
      merged.push(...names);
      d.names[base] = Object.fromEntries(merged.slice(-MAX_NAMES));
    });
  }

  /**
   * Applies a change now (so later reads in this run see it) and remembers it, so that
   * save() can replay it onto the file as it is then: another process may have written
   * in between, and its changes are kept.
   */
  private change(fn: (d: StateData) => void): void {
    fn(this.load());
    this.dirty.add((_d, fresh) => fn(fresh));
  }

  /**
   * Writes pending changes, merged onto the current file, under a lock: without it, two
   * processes saving at once both read the old file and the second rename drops the
   * first's changes, a rejected mark included. Never throws: state is optional. Returns
   * false when the file could not be written.
   */
  save(): boolean {
    if (this.dirty.size === 0) return true;
    try {
      withLockSync(`${this.path}.lock`, STATE_LOCK, () => {
        const fresh = normalize(readJsonFile(this.path));
        for (const apply of this.dirty) apply(this.load(), fresh);
        writeFileAtomic(this.path, `${JSON.stringify(fresh)}\n`);
        this.data = fresh;
        this.dirty.clear();
      });
      return true;
    } catch {
      // A read-only or full disk must not fail the command the user asked for (a rejected
      // mark has its own fallback: markRejected).
      return false;
    }
  }
}

function normalize(raw: unknown): StateData {
  const d: StateData = { rejected: {}, ids: {}, names: {}, fields: {} };
  if (!isRecord(raw)) return d;
  if (isRecord(raw.rejected)) {
    for (const [k, v] of Object.entries(raw.rejected)) {
      if (isRecord(v) && typeof v.at === 'number') d.rejected[k] = { at: v.at, status: finiteNumber(v.status) ?? 401, ...(v.sandbox === true ? { sandbox: true as const } : {}) };
    }
  }
  d.ids = stringLists(raw.ids, MAX_IDS);
  d.fields = stringLists(raw.fields, MAX_FIELDS);
  if (isRecord(raw.names)) {
    for (const [base, byId] of Object.entries(raw.names)) {
      if (!isRecord(byId)) continue;
      const out: Record<string, string> = {};
      for (const [id, name] of Object.entries(byId)) if (typeof name === 'string') out[id] = name;
      d.names[base] = out;
    }
  }
  return d;
}

/** key -> resource -> strings, anything else dropped. */
function stringLists(raw: unknown, max: number): Record<string, Record<string, string[]>> {
  const d: Record<string, Record<string, string[]>> = {};
  if (!isRecord(raw)) return d;
  for (const [key, byRes] of Object.entries(raw)) {
    if (!isRecord(byRes)) continue;
    const out: Record<string, string[]> = {};
    for (const [res, list] of Object.entries(byRes)) {
      if (Array.isArray(list)) out[res] = stringList(list).slice(0, max);
    }
    d[key] = out;
  }
  return d;
}


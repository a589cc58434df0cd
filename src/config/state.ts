// The state file: the rejected-token marks, keyed by token fingerprint (never the token),
// and the public IDs, names and fields seen, for completion. The marks are what keeps a
// rejected token from being sent again, so a state file that exists but cannot be read
// (root's, after `sudo -E hostctl …`; damaged) fails closed: no token is sent that may be
// marked in it (rejected() throws), and the file is never replaced. What the API says is
// bounded here, on the way in and out: IDs of the plain shape and length, so many per
// resource and base URL, names cut, and the whole file at most MAX_STATE_BYTES whatever
// the server sends. The rate state is not here but in the
// token's budget file (src/http/budget.ts), written with the budget on every answer; a
// `rateLimits` left by an older hostctl is ignored and dropped at the next write.

import { chmodSync, closeSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuthError, HostctlError } from '../errors.js';
import { readJsonFile, withLockSync, writeFileAtomic, type LockPolicy } from './atomic.js';
import { finiteNumber, isRecord, stringList } from '../json/narrow.js';
import { baseUrlKey } from './url.js';
import { shellQuote } from './trust.js';

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
const MAX_FIELDS = 200;

/** An ID worth remembering: the plain shape of public IDs, and a sane length. */
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** A name is cut to this many characters (completion shows it as a description). */
const MAX_NAME_CHARS = 200;
/** A field name longer than this is not remembered. */
const MAX_FIELD_CHARS = 100;
/** The state file is never written larger than this; the lists are cut until it fits. */
export const MAX_STATE_BYTES = 1024 * 1024;

/**
 * No save writes without the lock: it waits past the age at which a lock left by a killed
 * process counts as stale (5 s), and then gives up (save() returns false; a rejected mark
 * then goes to a fallback place).
 */
const STATE_LOCK: LockPolicy = {
  staleMs: 5_000,
  waitMs: 6_000,
  unavailable: (lock) => new HostctlError(`The state lock ${lock} stays held.`),
};

/** What reading the state file found: its data, or why it could not be read. */
interface StateRead {
  data: StateData;
  /** Set when the file exists but could not be read or parsed. */
  problem?: string;
  /** Bytes of the file (0 when missing). */
  bytes: number;
}

/** Reads the state file; a missing one is empty, one that exists but cannot be read says why. */
function readState(path: string, maxBytes = Infinity): StateRead {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { data: normalize(undefined), bytes: 0 };
    return { data: normalize(undefined), bytes: 0, problem: code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? 'unreadable') };
  }
  try {
    const bytes = fstatSync(fd).size;
    // A reader that only wants IDs (completion) skips a file no hostctl would write.
    if (bytes > maxBytes) return { data: normalize(undefined), bytes };
    const text = readFileSync(fd, 'utf8');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return { data: normalize(undefined), bytes, problem: 'it is not valid JSON' };
    }
    if (!isRecord(raw)) return { data: normalize(undefined), bytes, problem: 'it is not a JSON object' };
    return { data: normalize(raw), bytes };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { data: normalize(undefined), bytes: 0, problem: code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable') };
  } finally {
    closeSync(fd);
  }
}

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
  /** Why the file could not be read, when it exists and could not. */
  private problem?: string;

  /**
   * `fallbackDirs`: where a rejected mark goes (and is read from) when `path` cannot be
   * written; see rejectedFallbackDirs. `maxReadBytes`: a larger file is read as empty
   * (for completion, which must answer at once whatever the file holds).
   */
  constructor(
    readonly path: string,
    private readonly fallbackDirs: readonly string[] = [],
    private readonly maxReadBytes = Infinity,
  ) {}

  private load(): StateData {
    if (!this.data) {
      const read = readState(this.path, this.maxReadBytes);
      this.data = read.data;
      this.problem = read.problem;
      // A file larger than hostctl writes now (an older one's) is rewritten within bounds.
      if (read.problem === undefined && read.bytes > MAX_STATE_BYTES) this.dirty.add(() => undefined);
    }
    return this.data;
  }

  /**
   * The mark of a token the API rejected. When the state file exists but cannot be read,
   * any token may be marked in it: unless a fallback place marks it, this throws (exit 4)
   * rather than let the token be sent.
   */
  rejected(fingerprint: string): RejectedMark | undefined {
    const mark = this.load().rejected[fingerprint] ?? this.loadFallbackMarks()[fingerprint];
    if (mark || this.problem === undefined) return mark;
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    throw new AuthError(
      `hostctl cannot read its state file ${this.path} (${this.problem}), which records the tokens the API rejected, so it will not send a token that may be one of them.`,
      this.problem === 'permission denied' && uid !== undefined
        ? `Give the file back to yourself (it was likely written by "sudo -E hostctl"): sudo chown ${uid} ${shellQuote(this.path)}`
        : `Move it away (mv ${shellQuote(this.path)} ${shellQuote(`${this.path}.damaged`)}); hostctl then forgets which tokens were rejected, so check yours with "hostctl auth status --check" once.`,
    );
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

  // Every reader and writer of what is remembered per base URL (IDs, names, fields) goes
  // through key(): it takes the base URL itself, so that no caller can file things under
  // another name (a profile's) where the others do not look.
  private key(baseUrl: URL): string | undefined {
    return baseUrlKey(baseUrl);
  }

  knownIds(baseUrl: URL, resource: string): string[] {
    const base = this.key(baseUrl);
    return base === undefined ? [] : (this.load().ids[base]?.[resource] ?? []);
  }

  rememberIds(baseUrl: URL, resource: string, ids: readonly string[]): void {
    const base = this.key(baseUrl);
    if (base === undefined || ids.length === 0) return;
    // Already the newest, in this order (a repeated list): nothing to save.
    const known = this.knownIds(baseUrl, resource);
    if (new Set(ids).size === ids.length && ids.every((id, i) => known[i] === id)) return;
    this.change((d) => {
      const byResource = (d.ids[base] ??= {});
      const merged = [...new Set([...ids, ...(byResource[resource] ?? [])])];
      byResource[resource] = merged.slice(0, MAX_IDS);
    });
  }

  /** The names seen for public IDs on this base URL. */
  knownNames(baseUrl: URL): Readonly<Record<string, string>> {
    const base = this.key(baseUrl);
    return base === undefined ? {} : (this.load().names[base] ?? {});
  }

  knownFields(baseUrl: URL, resource: string): string[] {
    const base = this.key(baseUrl);
    return base === undefined ? [] : (this.load().fields[base]?.[resource] ?? []);
  }

  rememberFields(baseUrl: URL, resource: string, fields: readonly string[]): void {
    const base = this.key(baseUrl);
    if (base === undefined) return;
    const known = new Set(this.knownFields(baseUrl, resource));
    if (fields.every((f) => known.has(f))) return;
    this.change((d) => {
      const byResource = (d.fields[base] ??= {});
      byResource[resource] = [...new Set([...(byResource[resource] ?? []), ...fields])].slice(0, MAX_FIELDS);
    });
  }

  rememberNames(baseUrl: URL, names: ReadonlyMap<string, string>): void {
    const base = this.key(baseUrl);
    if (base === undefined) return;
    const known = this.knownNames(baseUrl);
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
        const read = readState(this.path);
        // Never replace a file that could not be read: it may hold rejected marks.
        if (read.problem !== undefined) throw new HostctlError(`The state file cannot be read (${read.problem}).`);
        const fresh = read.data;
        for (const apply of this.dirty) apply(this.load(), fresh);
        const bounded = bound(fresh);
        writeFileAtomic(this.path, `${JSON.stringify(bounded)}\n`);
        this.data = bounded;
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
  d.ids = stringLists(raw.ids, MAX_IDS, (id) => PLAIN_ID.test(id));
  d.fields = stringLists(raw.fields, MAX_FIELDS, (f) => f.length > 0 && f.length <= MAX_FIELD_CHARS);
  if (isRecord(raw.names)) {
    for (const [base, byId] of Object.entries(raw.names)) {
      if (!isRecord(byId)) continue;
      const out: Record<string, string> = {};
      for (const [id, name] of Object.entries(byId)) if (typeof name === 'string' && PLAIN_ID.test(id)) out[id] = name.slice(0, MAX_NAME_CHARS);
      d.names[base] = Object.fromEntries(Object.entries(out).slice(-MAX_NAMES));
    }
  }
  return d;
}

/** key -> resource -> strings that pass `keep`, anything else dropped. */
function stringLists(raw: unknown, max: number, keep: (s: string) => boolean): Record<string, Record<string, string[]>> {
  const d: Record<string, Record<string, string[]>> = {};
  if (!isRecord(raw)) return d;
  for (const [key, byRes] of Object.entries(raw)) {
    if (!isRecord(byRes)) continue;
    const out: Record<string, string[]> = {};
    for (const [res, list] of Object.entries(byRes)) {
      if (Array.isArray(list)) out[res] = stringList(list).filter(keep).slice(0, max);
    }
    d[key] = out;
  }
  return d;
}

/**
 * The state as it may be written: each entry within its bounds (normalize), and the whole
 * within MAX_STATE_BYTES, cutting every list (oldest first) until it fits. The rejected
 * marks are never cut.
 */
function bound(d: StateData): StateData {
  let out = normalize(d);
  let keep = 1;
  while (Buffer.byteLength(JSON.stringify(out)) + 1 > MAX_STATE_BYTES && keep > 0.001) {
    keep /= 2;
    out = cut(out, keep);
  }
  return out;
}

function cut(d: StateData, share: number): StateData {
  const lists = (byKey: Record<string, Record<string, string[]>>) =>
    Object.fromEntries(Object.entries(byKey).map(([k, byRes]) => [k, Object.fromEntries(Object.entries(byRes).map(([r, l]) => [r, l.slice(0, Math.floor(l.length * share))]))]));
  const names = Object.fromEntries(
    Object.entries(d.names).map(([base, byId]) => {
      const entries = Object.entries(byId);
      return [base, Object.fromEntries(entries.slice(entries.length - Math.floor(entries.length * share)))];
    }),
  );
  return { rejected: d.rejected, ids: lists(d.ids), names, fields: lists(d.fields) };
}

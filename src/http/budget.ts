// One request budget for every hostctl process on the machine. Before a request is sent,
// the process reserves a slot in a per-token sliding window kept in the state dir (one
// small file per token fingerprint, never the token) under a lock; each response's
// X-RateLimit-* headers correct it: they teach the window's length and count requests
// sent from elsewhere with the same token. Parallel commands then wait for a slot instead
// of collecting 429s. The same file keeps the token's last rate state (what `-R` and
// `hostctl rate-limit` show), updated in the correction's locked write: the state file is
// then written only when a run learnt something else.
//
// The decisions are pure functions of the budget's content and a clock (unit-tested on an
// injected clock); a BudgetStore keeps the content (FileBudgetStore: the file under its
// lock; a fleet's shared store: RedisBudgetStore in src/http/redis.ts), and Budget is one
// process's use of a store.

import { join, dirname } from 'node:path';
import { readdirSync } from 'node:fs';
import { readJsonFile, updateJsonFileSync, type LockPolicy } from '../config/atomic.js';
import { MAX_HORIZON_MS, nextRate, parseRateHeaders, retryDelayMs, UNIX_TIME_THRESHOLD, type RateState, type RateStore } from './ratelimit.js';
import { finiteNumber, isRecord } from '../json/narrow.js';
import { cancelled, type Answer, type Layer } from './layers.js';

/** What the last response said, and when its request was reserved. */
export interface ServerView {
  remaining: number;
  resetAt?: number;
  /** When the request this answers was reserved (epoch ms). */
  sentAt: number;
  /** When the answer arrived. */
  at: number;
  /**
   * Requests in the server's window at the answer that were not sent from this machine,
   * counted when the answer arrived (undefined while the window's length is unknown):
   * counting them later would need the sends of two windows back.
   */
  foreign?: number;
}

/**
 * A request sent while the budget had no fresh view of the server's window: until its
 * answer (or `lapses`, should its process die), the others wait for what it teaches.
 */
export interface Probe {
  /** The caller that sent it (Budget.caller()): one request, not its process, whose other requests wait for it like any other. */
  id: string;
  lapses: number;
}

/**
 * One request sent with this token from this machine: when its slot was reserved, and
 * the latest time the server can have counted it (the reservation until the answer
 * arrives, then the answer's arrival). A slot frees a window after the latter: on a busy
 * machine a request may reach the server long after its reservation.
 */
export type Send = [reservedAt: number, countedBy: number];

export interface BudgetData {
  /** Ascending by reservation; at most what a decision can need (prune()). */
  sends: Send[];
  /**
   * Interactive commands waiting for a slot, by waiter ID: when the entry lapses (the
   * waiter's wake-up, plus WAITER_GRACE_MS). While one is pending, batch commands leave
   * it the next free slot.
   */
  waiters?: Record<string, number>;
  limit?: number;
  /** The window's length, learned from the responses; unknown until one is seen. */
  windowMs?: number;
  view?: ServerView;
  /** After a 429: nothing is sent before this. */
  blockedUntil?: number;
  /** The token's last rate state, as the answers (and a 429's wait) left it: ratelimit.ts. */
  rate?: RateState;
  /** When the last answer arrived (with or without rate headers); a 429 forgets it. */
  answeredAt?: number;
  probe?: Probe;
}

/**
 * Slack added to every predicted free slot. A slot's freeing is predicted from the
 * answer's arrival, which is never before the server counted the request, so this covers
 * only clock granularity; each millisecond here costs one per window in a long loop.
 */
export const SLOT_MARGIN_MS = 10;
/** Reservations older than this are dropped from the file whatever the window. */
const KEEP_MS = MAX_HORIZON_MS;
/** Reservations kept while the server has not said its limit. */
const MAX_SENDS_UNLIMITED = 100;
/**
 * How long a probe holds the others back at most. An answer usually comes within a
 * second; should the probing process die (or its answer be slow), one more request goes
 * without a fresh view after this, no worse than before probes.
 */
export const PROBE_LAPSE_MS = 2_000;
/** A command waiting for a probe's answer looks again this often. */
export const PROBE_STEP_MS = 25;
/** How long an answer stays a fresh view of the window while its length is unknown: the platform's window. */
const FRESH_DEFAULT_MS = 60_000;

/** `probe`: sent to learn the server's window, while the others wait for its answer. */
export type Decision = { ok: true; probe?: true } | { ok: false; waitMs: number; deferred?: true };

/**
 * Who asks for a slot. `interactive`: a person at a terminal, who gets the next free slot
 * before batch commands (scripts, CI, loops) that were waiting longer.
 */
export type Priority = 'interactive' | 'batch';

/**
 * How long an interactive waiter's claim outlives its expected wake-up: its timer may fire
 * late on a busy machine; a waiter that died (Ctrl-C) holds batch commands up this long.
 */
export const WAITER_GRACE_MS = 1_000;
/** A batch command that defers to an interactive waiter looks again this often. */
export const DEFER_STEP_MS = 100;
const MAX_WAITERS = 64;

/** Requests in the server's window that were not sent from this machine. */
function foreign(d: BudgetData, now: number): number {
  const v = d.view;
  if (!v || v.foreign === undefined || d.windowMs === undefined || now >= v.at + d.windowMs) return 0;
  return v.foreign;
}


/** When each of this machine's requests counted after `since` is counted by, ascending. */
function counted(d: BudgetData, since: number): number[] {
  return d.sends
    .map(([, countedBy]) => countedBy)
    .filter((t) => t > since)
    .sort((a, b) => a - b);
}

/**
 * What the server's count at an answer arriving `at` leaves to other machines, given this
 * machine's sends: those reserved by `at` and counted within the window before it.
 */
function foreignAt(d: BudgetData, limit: number | undefined, windowMs: number | undefined, remaining: number, at: number): number | undefined {
  if (limit === undefined || windowMs === undefined) return undefined;
  const from = at - windowMs - SLOT_MARGIN_MS;
  let ours = 0;
  for (const [reservedAt, countedBy] of d.sends) if (reservedAt <= at && countedBy > from) ours++;
  return Math.max(0, limit - remaining - ours);
}

/**
 * Whether the budget knows the server's window as of recently: an answer came within a
 * window (the platform's minute while the length is unknown). Without one, requests from
 * other clients with the token may have spent it, and only an answer tells.
 */
function freshView(d: BudgetData, now: number): boolean {
  return d.answeredAt !== undefined && now < d.answeredAt + (d.windowMs ?? FRESH_DEFAULT_MS);
}

/** Interactive waiters still pending at `now`, but `self`: how many, and the last to lapse. */
export function pendingWaiters(d: BudgetData, now: number, self?: string): { count: number; until: number } {
  let count = 0;
  let until = now;
  for (const [id, lapses] of Object.entries(d.waiters ?? {})) {
    if (id === self || lapses <= now) continue;
    count++;
    until = Math.max(until, lapses);
  }
  return { count, until };
}

/**
 * Whether a request may be sent now, or how long to wait before asking again. A batch
 * command leaves as many free slots as there are interactive waiters pending (rechecking
 * every DEFER_STEP_MS: the waiter takes its slot as soon as its timer fires); an
 * interactive one takes any free slot.
 */
export function decide(d: BudgetData, now: number, priority: Priority = 'batch', self?: string): Decision {
  const verdict = slots(d, now);
  if (!('free' in verdict)) return verdict;
  if (priority === 'batch') {
    const pending = pendingWaiters(d, now, self);
    if (pending.count > 0 && verdict.free !== undefined && verdict.free <= pending.count) {
      return { ok: false, waitMs: Math.max(1, Math.min(DEFER_STEP_MS, pending.until - now)), deferred: true };
    }
  }
  if (!freshView(d, now)) {
    // One request goes first to learn the window; the others wait for its answer.
    const p = d.probe;
    if (p && p.id !== self && p.lapses > now) return { ok: false, waitMs: Math.max(1, Math.min(PROBE_STEP_MS, p.lapses - now)), deferred: true };
    return { ok: true, probe: true };
  }
  return { ok: true };
}

/** The window alone: how many slots are free now (undefined: some, how many unknown), or how long until one is. */
function slots(d: BudgetData, now: number): { free: number | undefined } | { ok: false; waitMs: number } {
  if (d.blockedUntil !== undefined && d.blockedUntil > now) return { ok: false, waitMs: d.blockedUntil - now };
  const { limit, windowMs, view } = d;
  if (limit !== undefined && windowMs !== undefined) {
    // The window's length is known: the local log is exact for this machine, and the
    // last view adds what other machines spent.
    const inWindow = counted(d, now - windowMs - SLOT_MARGIN_MS);
    const used = inWindow.length + foreign(d, now);
    if (used < limit) return { free: limit - used };
    const i = used - limit;
    const free = i < inWindow.length ? inWindow[i]! + windowMs + SLOT_MARGIN_MS : (view?.at ?? now) + windowMs;
    return { ok: false, waitMs: Math.max(1, free - now) };
  }
  if (view && view.resetAt !== undefined && view.resetAt > now) {
    // Only the server's last word: its remaining, less what was sent since.
    const since = d.sends.filter(([reservedAt]) => reservedAt > view.sentAt).length;
    if (view.remaining - since > 0) return { free: view.remaining - since };
    return { ok: false, waitMs: view.resetAt - now };
  }
  return { free: undefined };
}


/** How many slots are free now, when the budget knows (the window's count, or the last view's remaining less what was sent since). */
export function freeSlots(d: BudgetData, now: number): number | undefined {
  const room = slots(d, now);
  return 'free' in room ? room.free : undefined;
}

/** An interactive waiter's claim on the next free slot, until `lapses`. */
export function register(d: BudgetData, id: string, lapses: number, now: number): BudgetData {
  const live = Object.entries(d.waiters ?? {}).filter(([other, t]) => other !== id && t > now);
  const waiters = Object.fromEntries([...live.slice(-(MAX_WAITERS - 1)), [id, lapses]]);
  return { ...d, waiters };
}

/** The waiter `id` no longer waits (it got its slot, or gave up). */
export function withdraw(d: BudgetData, id: string, now: number): BudgetData {
  if (!d.waiters) return d;
  const live = Object.entries(d.waiters).filter(([other, t]) => other !== id && t > now);
  const { waiters: _gone, ...rest } = d;
  return live.length > 0 ? { ...rest, waiters: Object.fromEntries(live) } : rest;
}

/**
 * The sends a decision at `now` or later can need: every process parses and rewrites this
 * file on each request, so it carries no more. With a known window, slots() counts the
 * sends still in it (counted by a window back), and needs only the `limit` last to free:
 * with more, the window is full until the `limit`-th last frees. foreign() needs none (a
 * view carries its count). With the window unknown, slots() counts the sends after the
 * view's request against its remaining, at most the limit; they are the last by reservation.
 */
export function prune(sends: readonly Send[], now: number, windowMs: number | undefined, limit: number | undefined): Send[] {
  const since = now - (windowMs === undefined ? KEEP_MS : windowMs + SLOT_MARGIN_MS);
  const kept = sends.filter(([, t]) => t > since && t <= now + KEEP_MS);
  const cap = limit ?? MAX_SENDS_UNLIMITED;
  if (kept.length <= cap) return kept;
  if (windowMs === undefined) return kept.slice(-cap);
  return kept
    .sort((a, b) => a[1] - b[1])
    .slice(-cap)
    .sort((a, b) => a[0] - b[0]);
}

/** Records a reservation at `now`; a probe (decide()'s) holds the others back until its answer. */
export function reserve(d: BudgetData, now: number, probe?: string): BudgetData {
  const sends = prune([...d.sends, [now, now] as Send], now, d.windowMs, d.limit).sort((a, b) => a[0] - b[0]);
  let view = d.view;
  // Without a known window, a reset that has passed frees at least one slot; the next
  // answer tells how many. Until then the others wait.
  if (d.windowMs === undefined && view?.resetAt !== undefined && view.resetAt <= now) {
    view = { ...view, remaining: 0, resetAt: now + 1_000, sentAt: now };
  }
  const out: BudgetData = { ...d, sends, view };
  if (probe !== undefined) out.probe = { id: probe, lapses: now + PROBE_LAPSE_MS };
  return out;
}

/** A probe that got no answer to learn from (a 401, a network failure): the others need not wait for it. */
export function unprobe(d: BudgetData, id: string): BudgetData {
  if (d.probe?.id !== id) return d;
  const { probe: _done, ...rest } = d;
  return rest;
}

/**
 * A reservation of `who` at `sentAt` whose request never went out (its call was cancelled
 * while the slot was being reserved): the slot is free again, and a probe's hold lifted.
 * Only a reservation no answer has touched is one never sent.
 */
export function unreserve(d: BudgetData, sentAt: number, who: string): BudgetData {
  const i = d.sends.findIndex(([reservedAt, countedBy]) => reservedAt === sentAt && countedBy === sentAt);
  const rest = unprobe(d, who);
  return i === -1 ? rest : { ...rest, sends: [...d.sends.slice(0, i), ...d.sends.slice(i + 1)] };
}

/** Corrects the budget with an answer's X-RateLimit-* headers (not a 401's: they count failures). */
export function observe(d: BudgetData, headers: Record<string, string>, sentAt: number, now: number): BudgetData {
  const h = parseRateHeaders(headers, now);
  // Whatever the headers say, the server counted this request by now; and the view is
  // fresh, so whoever waited for a probe may go.
  const { probe: _learnt, ...rest } = d;
  const out: BudgetData = { ...rest, answeredAt: Math.max(d.answeredAt ?? now, now), sends: d.sends.map((s): Send => (s[0] === sentAt ? [s[0], Math.max(s[1], now)] : s)) };
  const rate = nextRate(d.rate, h, now);
  if (rate) out.rate = rate;
  if (h.remaining === undefined && h.limit === undefined) return out;
  if (h.limit !== undefined && h.limit > 0) out.limit = h.limit;
  const limit = out.limit;
  if (h.remaining !== undefined && limit !== undefined && h.resetAt !== undefined && h.remaining === limit - 1) {
    // This request is alone in the server's window, so the window frees its slot at
    // Reset: that is the window's length, counted from the answer (whole-second Resets
    // round it up: safe), the same point from which a slot's freeing is predicted.
    const learned = h.resetAt - now;
    if (learned > 0 && learned <= MAX_HORIZON_MS) out.windowMs = out.windowMs === undefined ? learned : Math.min(out.windowMs, learned);
  }
  // An older answer arriving late does not overwrite a newer view.
  if (h.remaining !== undefined && (d.view === undefined || sentAt >= d.view.sentAt)) {
    out.view = { remaining: h.remaining, resetAt: h.resetAt, sentAt, at: now, foreign: foreignAt(out, limit, out.windowMs, h.remaining, now) };
  }
  return out;
}

/**
 * A 429: the budget was wrong. Nothing goes out before `retryMs`, and the window is taken
 * a tenth longer (a lone request teaches it again); forgetting it instead would leave only
 * the server's whole-second Reset to pace by, a slot at a time.
 */
export function on429(d: BudgetData, sentAt: number, retryMs: number, now: number, headers: Record<string, string> = {}): BudgetData {
  // A refused request is not counted by the server.
  const i = d.sends.findIndex(([reservedAt]) => reservedAt === sentAt);
  const sends = i === -1 ? d.sends : [...d.sends.slice(0, i), ...d.sends.slice(i + 1)];
  const windowMs = d.windowMs === undefined ? undefined : Math.min(MAX_HORIZON_MS, Math.round(d.windowMs * 1.1));
  // The rate state takes the 429's headers like any answer's; the wait (ratelimit.ts) then marks the window spent.
  const rate = nextRate(d.rate, parseRateHeaders(headers, now), now) ?? d.rate;
  // The view is gone: after the block, one request probes the window again.
  const { probe: _refused, answeredAt: _stale, ...rest } = d;
  return { ...rest, sends, windowMs, blockedUntil: Math.max(d.blockedUntil ?? 0, now + retryMs), view: undefined, rate };
}

function normalizeRate(raw: unknown): RateState | undefined {
  if (!isRecord(raw) || typeof raw.seenAt !== 'number') return undefined;
  return { seenAt: raw.seenAt, limit: finiteNumber(raw.limit), remaining: finiteNumber(raw.remaining), resetAt: finiteNumber(raw.resetAt) };
}

function isSend(v: unknown): v is Send {
  return Array.isArray(v) && v.length === 2 && finiteNumber(v[0]) !== undefined && finiteNumber(v[1]) !== undefined && (v[1] as number) >= (v[0] as number);
}

/**
 * The file's content, checked: a damaged file is an empty budget. `now` is the store's
 * clock. A clock that stepped back since the budget was written (a Redis failover, an NTP
 * step) would count its requests and blocks as that much further off: the budget is moved
 * onto the clock as it is now, its latest request and answer now, so that no wait is longer
 * than the server's own figures made it (the window, a Retry-After, a Reset).
 */
export function normalizeBudget(raw: unknown, now = Date.now()): BudgetData {
  const back = steppedBack(raw, now);
  return back === 0 ? checkedBudget(raw, now) : shiftBudget(checkedBudget(raw, now + back), -back);
}

/** How far the budget's latest past event (a reservation, an answer) lies after `now`: 0 unless the clock stepped back. */
function steppedBack(raw: unknown, now: number): number {
  if (!isRecord(raw)) return 0;
  let latest = now;
  // Further back than the horizon the budget holds nothing worth moving (checkedBudget drops it).
  const see = (v: unknown) => {
    const t = finiteNumber(v);
    if (t !== undefined && t > latest && t - now <= KEEP_MS) latest = t;
  };
  if (Array.isArray(raw.sends)) for (const s of raw.sends) if (isSend(s)) see(s[1]);
  if (isRecord(raw.view)) see(raw.view.at);
  see(raw.answeredAt);
  if (isRecord(raw.rate)) see(raw.rate.seenAt);
  return latest - now > SLOT_MARGIN_MS ? latest - now : 0;
}

/** The budget with every time in it moved by `ms`. */
function shiftBudget(d: BudgetData, ms: number): BudgetData {
  const t = (v: number) => v + ms;
  const opt = (v: number | undefined) => (v === undefined ? undefined : v + ms);
  const out: BudgetData = { ...d, sends: d.sends.map(([a, b]): Send => [t(a), t(b)]) };
  if (d.waiters) out.waiters = Object.fromEntries(Object.entries(d.waiters).map(([id, lapses]) => [id, t(lapses)]));
  if (d.view) out.view = { ...d.view, sentAt: t(d.view.sentAt), at: t(d.view.at), resetAt: opt(d.view.resetAt) };
  if (d.blockedUntil !== undefined) out.blockedUntil = t(d.blockedUntil);
  if (d.rate) out.rate = { ...d.rate, seenAt: t(d.rate.seenAt), resetAt: opt(d.rate.resetAt) };
  if (d.answeredAt !== undefined) out.answeredAt = t(d.answeredAt);
  if (d.probe) out.probe = { ...d.probe, lapses: t(d.probe.lapses) };
  return out;
}

function checkedBudget(raw: unknown, now: number): BudgetData {
  if (!isRecord(raw)) return { sends: [] };
  const sends = Array.isArray(raw.sends) ? raw.sends.filter(isSend).sort((a, b) => a[0] - b[0]) : [];
  const d: BudgetData = { sends, limit: finiteNumber(raw.limit), windowMs: finiteNumber(raw.windowMs), blockedUntil: finiteNumber(raw.blockedUntil) };
  const v = raw.view;
  if (isRecord(v)) {
    const remaining = finiteNumber(v.remaining);
    const sentAt = finiteNumber(v.sentAt);
    const at = finiteNumber(v.at);
    if (remaining !== undefined && sentAt !== undefined && at !== undefined) d.view = { remaining, sentAt, at, resetAt: finiteNumber(v.resetAt), foreign: finiteNumber(v.foreign) };
  }
  const answeredAt = finiteNumber(raw.answeredAt);
  if (answeredAt !== undefined && answeredAt - now <= MAX_HORIZON_MS) d.answeredAt = answeredAt;
  if (isRecord(raw.probe) && typeof raw.probe.id === 'string') {
    const lapses = finiteNumber(raw.probe.lapses);
    if (lapses !== undefined && lapses - now <= PROBE_LAPSE_MS) d.probe = { id: raw.probe.id, lapses };
  }
  if (isRecord(raw.waiters)) {
    const waiters = Object.entries(raw.waiters).filter((e): e is [string, number] => finiteNumber(e[1]) !== undefined && (e[1] as number) - now <= MAX_HORIZON_MS);
    if (waiters.length > 0) d.waiters = Object.fromEntries(waiters.slice(-MAX_WAITERS));
  }
  const rate = normalizeRate(raw.rate);
  if (rate) d.rate = rate;
  if (d.windowMs !== undefined && (d.windowMs <= 0 || d.windowMs > MAX_HORIZON_MS)) d.windowMs = undefined;
  if (d.blockedUntil !== undefined && d.blockedUntil - now > MAX_HORIZON_MS) d.blockedUntil = undefined;
  return d;
}

/**
 * Where one token's budget is kept: the file under its lock (FileBudgetStore), or a store
 * that machines share (RedisBudgetStore, src/http/redis.ts). One atomic read-modify-write
 * (`fn` may run again if the store retries it) on the store's clock; the rules are this
 * module's pure functions, whatever the store.
 */
export interface BudgetStore {
  /**
   * Runs `fn` on the budget as stored and writes what it returns (`data` undefined:
   * nothing), atomically; `fallback` when the store cannot be used (a command is never
   * failed by the budget's bookkeeping).
   */
  update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): Promise<T>;
  /** The budget as stored now, without a lock (for display). */
  read(): Promise<BudgetData>;
  /** The store's clock (a shared store's, so that machines with skewed clocks agree). */
  now(): number;
  /** How far the store's clock is ahead of this machine's (a shared store's; none: 0). */
  skewMs?(): number;
}

/** The budget is shared but optional: a lock not had within 2 s is gone without. */
const BUDGET_LOCK: LockPolicy = { staleMs: 5_000, waitMs: 2_000, unavailable: 'proceed' };

/** The budget file of one token, beside the state file: the machine's own store. */
export class FileBudgetStore implements BudgetStore {
  readonly path: string;
  constructor(
    stateFile: string,
    fingerprint: string,
    readonly now: () => number = Date.now,
  ) {
    this.path = join(dirname(stateFile), 'budget', `${fingerprint.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64)}.json`);
  }

  // The lock is held for one synchronous read-modify-write: no other update of this
  // process interleaves with it, and the lock is never held across an await.
  async update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): Promise<T> {
    try {
      return updateJsonFileSync(this.path, BUDGET_LOCK, (raw) => {
        const now = this.now();
        const { data, result } = fn(normalizeBudget(raw, now), now);
        return { content: data, result };
      });
    } catch {
      // A read-only or full disk must not fail the command: it goes unbudgeted.
      return fallback;
    }
  }

  async read(): Promise<BudgetData> {
    return normalizeBudget(readJsonFile(this.path), this.now());
  }
}

export type Reservation = { sentAt: number; probe?: true } | { waitMs: number; deferred?: true };

/**
 * One process's use of a token's budget, in whichever store: its reservations, the answers
 * that correct them, its claims as an interactive waiter. Each update goes to the store at
 * once: the others read every reservation and answer as soon as it is made.
 */
export class Budget implements RateStore {
  /** This process's name: the prefix of its callers'. */
  readonly id = `${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
  private callers = 0;
  /** The budget as this process last saw it in the store. */
  private last: BudgetData | undefined;

  constructor(
    readonly store: BudgetStore,
    private readonly priority: Priority = 'batch',
  ) {}

  private async update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): Promise<T> {
    return this.store.update((d, now) => {
      const out = fn(d, now);
      this.last = out.data ?? d;
      return out;
    }, fallback);
  }

  /**
   * A name for one request's reservation, its probe and its claim as a waiter. Requests of
   * one process that run at once (an MCP server's calls, a library's callers) are callers
   * of their own: under one name, each would take the others' probe for its own and send
   * without waiting for its answer.
   */
  caller(): string {
    return `${this.id}.${(++this.callers).toString(36)}`;
  }

  /** The budget as this process last saw it in the store, without asking the store (poll intervals, notes). */
  seen(): BudgetData {
    return this.last ?? { sends: [] };
  }

  /** The budget as it is now in the store. */
  read(): Promise<BudgetData> {
    return this.store.read();
  }

  /**
   * Reserves a slot now and returns its time, or says how long to wait first (`deferred`:
   * only because an interactive command or a probe goes first). An interactive caller
   * that must wait registers as a waiter until it gets its slot. `probe`: the others wait
   * for this request's answer (observe() or unprobe()). `force`: reserved whatever the
   * window holds (`rate-limit`'s own request). `who`: the caller (caller()).
   */
  tryReserve(force = false, who: string = this.id): Promise<Reservation> {
    return this.update<Reservation>(
      (d, now) => {
        const decision = force ? ({ ok: true } as const) : decide(d, now, this.priority, who);
        if (decision.ok) {
          const probe = 'probe' in decision && decision.probe === true;
          const data = reserve(withdraw(d, who, now), now, probe ? who : undefined);
          return { data, result: probe ? { sentAt: now, probe } : { sentAt: now } };
        }
        const result = decision.deferred ? { waitMs: decision.waitMs, deferred: true as const } : { waitMs: decision.waitMs };
        if (this.priority === 'batch') return { result };
        return { data: register(d, who, now + decision.waitMs + WAITER_GRACE_MS, now), result };
      },
      { sentAt: this.store.now() },
    );
  }

  /** Gives up waiting (--no-wait, --max-wait, Ctrl-C): batch commands need not defer any more. */
  withdraw(who: string = this.id): Promise<void> {
    return this.update((d, now) => ({ data: d.waiters?.[who] === undefined ? undefined : withdraw(d, who, now), result: undefined }), undefined);
  }

  /** Corrects the budget with an answer. */
  observe(answer: Record<string, string>, sentAt: number): Promise<void> {
    const headers = this.onStoreClock(answer);
    return this.update((d, now) => ({ data: observe(d, headers, sentAt, now), result: undefined }), undefined);
  }

  /** A reservation given back unsent: its call was cancelled while the slot was being reserved. */
  release(sentAt: number, who: string = this.id): Promise<void> {
    return this.update((d) => ({ data: unreserve(d, sentAt, who), result: undefined }), undefined);
  }

  /** A probe that got no answer to learn from: the others need not wait for it. */
  unprobe(who: string = this.id): Promise<void> {
    return this.update((d) => ({ data: d.probe?.id === who ? unprobe(d, who) : undefined, result: undefined }), undefined);
  }

  on429(sentAt: number, retryMs: number, answer?: Record<string, string>): Promise<void> {
    const headers = answer && this.onStoreClock(answer);
    return this.update((d, now) => ({ data: on429(d, sentAt, retryMs, now, headers), result: undefined }), undefined);
  }

  /**
   * The answer's headers with a Reset given as a Unix time (a wall-clock time: this
   * machine's, as far as it can tell) moved onto a shared store's clock, as a Reset in
   * seconds is by the rules reading it on that clock.
   */
  private onStoreClock(headers: Record<string, string>): Record<string, string> {
    const skew = this.store.skewMs?.() ?? 0;
    const reset = Number(headers['x-ratelimit-reset']?.split(',')[0]);
    if (skew === 0 || !(reset > UNIX_TIME_THRESHOLD)) return headers;
    return { ...headers, 'x-ratelimit-reset': String(reset + skew / 1000) };
  }

  /**
   * The token's last rate state (no lock: for display and as a starting point), on this
   * machine's clock: a shared store keeps it on its own, whose offset must not show in a
   * reset figure.
   */
  async rate(): Promise<RateState | undefined> {
    return onClock((await this.read()).rate, -(this.store.skewMs?.() ?? 0));
  }

  /** `fn` gets and returns the rate state on this machine's clock (rate()'s); the store keeps it on its own. */
  updateRate(fn: (prev: RateState | undefined) => RateState): Promise<void> {
    return this.update((d) => {
      const skew = this.store.skewMs?.() ?? 0;
      return { data: { ...d, rate: onClock(fn(onClock(d.rate, -skew)), skew) }, result: undefined };
    }, undefined);
  }
}

/** A rate state with its times moved by `ms` (from a store's clock to this machine's, or back). */
function onClock<R extends RateState | undefined>(rate: R, ms: number): R {
  if (rate === undefined || ms === 0) return rate;
  return { ...rate, seenAt: rate.seenAt + ms, resetAt: rate.resetAt === undefined ? undefined : rate.resetAt + ms };
}

/**
 * The last rate state of every token seen on this machine (its budget files), newest
 * first, by fingerprint: what `rate-limit` shows when this run's token cannot be read.
 */
export async function allRates(stateFile: string): Promise<{ fingerprint: string; rate: RateState }[]> {
  let names: string[];
  try {
    names = readdirSync(join(dirname(stateFile), 'budget')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: { fingerprint: string; rate: RateState }[] = [];
  for (const name of names) {
    const fingerprint = name.slice(0, -'.json'.length);
    const rate = await lastRate(stateFile, fingerprint);
    if (rate?.remaining !== undefined) out.push({ fingerprint, rate });
  }
  return out.sort((a, b) => b.rate.seenAt - a.rate.seenAt);
}

/** The last rate state seen for the token with this fingerprint, with no request. */
export function lastRate(stateFile: string, fingerprint: string): Promise<RateState | undefined> {
  return new Budget(new FileBudgetStore(stateFile, fingerprint)).rate();
}

export interface BudgetLayerOptions {
  budget: Pick<Budget, 'caller' | 'tryReserve' | 'release' | 'observe' | 'on429' | 'withdraw' | 'unprobe'>;
  /** The base URL's origin: only requests that carry the token spend its budget. */
  origin: string;
  /** Waits `ms` for a slot, or throws (--no-wait, --max-wait, the call cancelled: ratelimit.ts). */
  pace(ms: number): Promise<void>;
  /** Waits `ms` while an interactive command takes the next slot: short, so without a note. */
  defer?(ms: number): Promise<void>;
  /** Work that must not eat into a reserved slot (loading undici, making the pool). */
  ready?(url: URL): Promise<void>;
  now(): number;
}

/**
 * The budget layer: reserves a slot in the token's shared window before each request
 * that carries the token, waits while there is none, and corrects the window with the
 * answer's headers (a 429: blocks every process until its Retry-After). Each exchange is
 * a caller of its own, whatever runs beside it in the process; one whose signal aborts
 * while it waits reserves nothing more, and gives up its claim.
 */
export function budgetLayer(o: BudgetLayerOptions): Layer {
  return (next) => async (x) => {
    if (x.url.origin !== o.origin) return next(x);
    // The pool first: a slot reserved is a slot the server should see at once.
    await o.ready?.(x.url);
    const who = o.budget.caller();
    let sentAt: number;
    let probe = false;
    try {
      for (;;) {
        if (x.signal?.aborted) throw cancelled();
        const r = await o.budget.tryReserve(x.unpaced === true, who);
        if ('sentAt' in r) {
          sentAt = r.sentAt;
          probe = r.probe === true;
          break;
        }
        const ms = Math.max(5, r.waitMs);
        await (r.deferred && o.defer ? o.defer(ms) : o.pace(ms));
      }
    } catch (err) {
      await o.budget.withdraw(who);
      throw err;
    }
    // Cancelled while a shared store was reserving the slot: it goes back unused.
    if (x.signal?.aborted) {
      await o.budget.release(sentAt, who);
      throw cancelled();
    }
    let res: Answer;
    try {
      res = await next(x);
    } catch (err) {
      if (probe) await o.budget.unprobe(who);
      throw err;
    }
    try {
      // A 401's headers count failed logins, not this token's window: nothing learnt.
      if (res.status === 429) await o.budget.on429(sentAt, Math.min(retryDelayMs(res.headers, o.now()), MAX_HORIZON_MS), res.headers);
      else if (res.status !== 401) await o.budget.observe(res.headers, sentAt);
      else if (probe) await o.budget.unprobe(who);
    } catch {
      // The answer is in and is not lost (a write was done): a store that cannot record it,
      // Redis with HOSTCTL_REDIS_REQUIRED=1, fails the next reservation instead.
    }
    return res;
  };
}

/** The platform's documented limit: about 20 requests a minute per token. */
const PLATFORM_MS_PER_REQUEST = 60_000 / 20;

/**
 * The shortest interval between polls that takes at most `share` of the token's budget:
 * from the learned window where there is one, else from the platform's documented limit.
 */
export function pollInterval(d: BudgetData | undefined, share: number): number {
  const perRequest = d?.limit !== undefined && d.windowMs !== undefined && d.limit > 0 ? d.windowMs / d.limit : PLATFORM_MS_PER_REQUEST;
  return Math.ceil(perRequest / share);
}

/**
 * About how long until `k` more requests can go, by this budget (0: they can go now;
 * undefined: the window is not known yet). Each request counted in the window frees its
 * slot a window after it was counted; past the window's own, each full window frees
 * `limit` more.
 */
export function waitForSlots(d: BudgetData, k: number, now: number): number | undefined {
  if (k <= 0) return 0;
  if (d.limit === undefined || d.windowMs === undefined || d.limit <= 0) return undefined;
  const windowMs = d.windowMs;
  const frees = counted(d, now - windowMs);
  const held = frees.length;
  const left = Math.max(0, d.limit - held);
  if (k <= left) return 0;
  const need = k - left;
  const at = (t: number | undefined) => (t === undefined ? now : t + windowMs);
  if (need <= held) return at(frees[need - 1]) - now;
  return at(frees.at(-1)) - now + Math.ceil((need - held) / d.limit) * windowMs;
}

/**
 * What the token's window holds now, for `hostctl rate-limit`: the requests spent in it
 * (every sender the budget knows of: this store's reservations, and what the last answer
 * said came from elsewhere; undefined while the window's length is unknown) and the
 * interactive commands waiting for a slot.
 */
export function windowUse(d: BudgetData, now: number): { spent: number | undefined; limit: number | undefined; waiting: number } {
  const waiting = pendingWaiters(d, now).count;
  const windowMs = d.windowMs;
  if (windowMs === undefined) return { spent: undefined, limit: d.limit, waiting };
  const spent = counted(d, now - windowMs - SLOT_MARGIN_MS).length + foreign(d, now);
  return { spent, limit: d.limit, waiting };
}

/** How many requests the budget has left now, as far as it knows (undefined: unknown). */
export function budgetLeft(d: BudgetData, now: number): number | undefined {
  if (d.limit === undefined || d.windowMs === undefined) return d.view?.remaining;
  const windowMs = d.windowMs;
  return Math.max(0, d.limit - counted(d, now - windowMs).length);
}

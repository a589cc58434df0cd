// One request budget for every hostctl process on the machine. Before a request is sent,
// the process reserves a slot in a per-token sliding window kept in the state dir (one
// small file per token fingerprint, never the token) under a lock; each response's
// X-RateLimit-* headers correct it: they teach the window's length and count requests
// sent from elsewhere with the same token. Parallel commands then wait for a slot instead
// of collecting 429s. A walk takes several slots in one update (a lease, while the window
// is less than half full), and the file stays small whatever the limit (groups). The same
// file keeps the token's last rate state (what `-R` and `hostctl rate-limit` show), updated
// in the correction's locked write: the state file is then written only when a run learnt
// something else.
//
// The decisions are pure functions of the budget's content and a clock (unit-tested on an
// injected clock); a store keeps the content (FileStore: the file under its lock; a fleet's
// shared store: src/http/redis.ts), and Budget is one client's use of it.

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
  /** The caller that sent it (Budget.caller()): one request, not its process, whose other requests wait for it as any. */
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

/**
 * Requests counted together: the oldest of a busy window folded into one entry (compact),
 * or a lease (a process's slots reserved in one update: Budget.tryReserve). Every rule
 * takes the group at its least favourable: all `n` counted until `last`, reserved as late
 * as `to`, counted by the server no earlier than `from`.
 */
export interface Group {
  n: number;
  /** The earliest and the latest reservation among them (a lease: its grant and its lapse). */
  from: number;
  to: number;
  /** The latest time the server can have counted any of them. */
  last: number;
  /** A lease's holder (Budget.id), until it hands back what it did not use. */
  owner?: string;
}

/** The lease this process holds, as the answers that observe() folds need to know it. */
export interface OwnLease {
  owner: string;
  from: number;
  /** Slots of it sent by then. */
  used: number;
  /** With the window's length unknown: the server's remaining the grant predicted before the lease's first slot, and the Reset of the view written with it. */
  base?: number;
  resetAt?: number;
}

export interface BudgetData {
  /** Ascending by reservation: the newest KEEP_SENDS one by one, older ones in `groups`. */
  sends: Send[];
  /** Ascending by `last`; at most MAX_GROUPS. */
  groups?: Group[];
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
 * Reservations kept one by one; older ones in the window are folded into groups. Every
 * process parses and rewrites the budget on each update, so its size is a cost per
 * request: with a limit of a million a window, keeping all would grow it with each one.
 */
export const KEEP_SENDS = 256;
/** Groups kept; beyond it the two nearest (by `last`) are merged into one. */
export const MAX_GROUPS = 64;
/**
 * Leases: a process that sends more than once reserves several slots in one update and
 * hands them out itself, without the lock, while the window is at most half full after
 * them. The first lease is LEASE_FIRST slots, doubling each time one is used up, to at
 * most LEASE_MAX and a sixteenth of the limit; never below a limit of LEASE_MIN_LIMIT (the
 * platform's 20 a minute never leases: each slot there is worth a lock).
 */
export const LEASE_FIRST = 4;
const LEASE_MAX = 256;
export const LEASE_MIN_LIMIT = 100;
/**
 * How long a lease holds its slots for its holder, at most (and at most a sixteenth of the
 * window): the others count them all until it lapses, a window more, so it costs them at
 * most this long per slot; and the holder sends without seeing the others' 429s this long.
 */
const LEASE_MS = 1_000;
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

/**
 * This machine's requests counted after `since`, as [counted by, how many], ascending: the
 * sends one by one, a group all at its `last`.
 */
function counted(d: BudgetData, since: number): [number, number][] {
  const out: [number, number][] = [];
  for (const [, t] of d.sends) if (t > since) out.push([t, 1]);
  for (const g of d.groups ?? []) if (g.last > since) out.push([g.last, g.n]);
  return out.sort((a, b) => a[0] - b[0]);
}

function total(list: readonly [number, number][]): number {
  let n = 0;
  for (const [, k] of list) n += k;
  return n;
}

/** The time of the `i`-th (from 0) request of counted()'s list. */
function nth(list: readonly [number, number][], i: number): number | undefined {
  for (const [t, k] of list) {
    if (i < k) return t;
    i -= k;
  }
  return undefined;
}

/**
 * What the server's count at an answer arriving `at` leaves to other machines, given this
 * machine's sends. A group counts as ours only when all of it surely is in the server's
 * count: reserved by `at`, after the window's start (fewer ours is more foreign, the safe
 * side); this process's own lease by the slots it sent (`own`).
 */
function foreignAt(d: BudgetData, limit: number | undefined, windowMs: number | undefined, remaining: number, at: number, own?: OwnLease): number | undefined {
  if (limit === undefined || windowMs === undefined) return undefined;
  const from = at - windowMs - SLOT_MARGIN_MS;
  let ours = 0;
  for (const [reservedAt, countedBy] of d.sends) if (reservedAt <= at && countedBy > from) ours++;
  for (const g of d.groups ?? []) {
    if (g.from <= from) continue;
    if (own !== undefined && g.owner === own.owner && g.from === own.from) ours += Math.min(g.n, own.used);
    else if (g.to <= at) ours += g.n;
  }
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
    const mine = total(inWindow);
    const used = mine + foreign(d, now);
    if (used < limit) return { free: limit - used };
    const i = used - limit;
    const free = i < mine ? nth(inWindow, i)! + windowMs + SLOT_MARGIN_MS : (view?.at ?? now) + windowMs;
    return { ok: false, waitMs: Math.max(1, free - now) };
  }
  if (view && view.resetAt !== undefined && view.resetAt > now) {
    // Only the server's last word: its remaining, less what was sent since.
    let since = d.sends.filter(([reservedAt]) => reservedAt > view.sentAt).length;
    for (const g of d.groups ?? []) if (g.to > view.sentAt) since += g.n;
    if (view.remaining - since > 0) return { free: view.remaining - since };
    return { ok: false, waitMs: view.resetAt - now };
  }
  return { free: undefined };
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

/**
 * Keeps the budget's size bounded whatever the limit: groups that no decision needs any
 * more (counted until before the window, as prune() drops sends) go, the sends beyond the
 * newest KEEP_SENDS are folded into one group, and beyond MAX_GROUPS the two groups
 * nearest by `last` become one. Folding only ever makes a request count longer or sooner.
 */
export function compact(d: BudgetData, now: number): BudgetData {
  const since = now - (d.windowMs === undefined ? KEEP_MS : d.windowMs + SLOT_MARGIN_MS);
  const groups = (d.groups ?? []).filter((g) => g.last > since && g.last <= now + KEEP_MS);
  let sends = d.sends;
  if (sends.length > KEEP_SENDS) {
    const old = sends.slice(0, sends.length - KEEP_SENDS);
    sends = sends.slice(-KEEP_SENDS);
    let to = old[0]![0];
    let last = old[0]![1];
    for (const [reservedAt, countedBy] of old) {
      to = Math.max(to, reservedAt);
      last = Math.max(last, countedBy);
    }
    groups.push({ n: old.length, from: old[0]![0], to, last });
  }
  groups.sort((a, b) => a.last - b.last);
  while (groups.length > MAX_GROUPS) {
    // A live lease keeps its holder while another pair can merge: its holder hands back what it did not use.
    const merges = (g: Group) => g.owner === undefined || g.to <= now;
    let best = -1;
    for (let pass = 0; pass < 2 && best === -1; pass++) {
      for (let i = 0; i + 1 < groups.length; i++) {
        if (pass === 0 && !(merges(groups[i]!) && merges(groups[i + 1]!))) continue;
        if (best === -1 || groups[i + 1]!.last - groups[i]!.last < groups[best + 1]!.last - groups[best]!.last) best = i;
      }
    }
    const [a, b] = [groups[best]!, groups[best + 1]!];
    groups.splice(best, 2, { n: a.n + b.n, from: Math.min(a.from, b.from), to: Math.max(a.to, b.to), last: Math.max(a.last, b.last) });
  }
  const { groups: _old, ...rest } = d;
  return groups.length > 0 ? { ...rest, sends, groups } : { ...rest, sends };
}

/**
 * How many slots a lease at `now` may hold (0: none; the caller wants `want`): only with a
 * fresh view of a window whose length and limit are known (never a probe), nothing blocked,
 * no interactive waiter and no other machine spending, and only as many as leave half the
 * window free after them.
 */
export function leaseSize(d: BudgetData, now: number, want: number, self?: string): number {
  const limit = d.limit;
  if (want < 2 || limit === undefined || limit < LEASE_MIN_LIMIT) return 0;
  if (!freshView(d, now) || (d.probe !== undefined && d.probe.lapses > now) || pendingWaiters(d, now, self).count > 0) return 0;
  const free = freeSlots(d, now);
  if (free === undefined) return 0;
  const k = Math.min(want, LEASE_MAX, Math.floor(limit / 16), free - Math.ceil(limit / 2));
  return k >= 2 ? k : 0;
}

/** How many slots are free now, when the budget knows (the window's count, or the last view's remaining less what was sent since). */
export function freeSlots(d: BudgetData, now: number): number | undefined {
  const room = slots(d, now);
  return 'free' in room ? room.free : undefined;
}

/** When a lease granted at `now` lapses. */
function leaseLapse(d: BudgetData, now: number): number {
  return now + (d.windowMs === undefined ? LEASE_MS : Math.max(1, Math.min(LEASE_MS, Math.floor(d.windowMs / 16))));
}

/** Records a lease of `n` slots (leaseSize()'s) for `owner`, counted until it lapses. */
function lease(d: BudgetData, now: number, n: number, owner: string): BudgetData {
  const until = leaseLapse(d, now);
  return compact({ ...d, groups: [...(d.groups ?? []), { n, from: now, to: until, last: until, owner }] }, now);
}

/**
 * A lease's holder hands back the slots it did not send: the group keeps the `used` ones,
 * reserved by `lastUse` at the latest. A lease merged away (MAX_GROUPS) keeps them all
 * until it lapses.
 */
function giveBack(d: BudgetData, owner: string, from: number, used: number, lastUse: number): BudgetData {
  const i = (d.groups ?? []).findIndex((g) => g.owner === owner && g.from === from);
  if (i === -1) return d;
  const groups = [...d.groups!];
  const g = groups[i]!;
  if (used <= 0) groups.splice(i, 1);
  else groups[i] = { n: Math.min(g.n, used), from: g.from, to: Math.min(g.to, Math.max(g.from, lastUse)), last: g.last };
  const { groups: _old, ...rest } = d;
  return groups.length > 0 ? { ...rest, groups } : rest;
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
  const out: BudgetData = compact({ ...d, sends, view }, now);
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

/**
 * Corrects the budget with an answer's X-RateLimit-* headers (not a 401's: they count
 * failures). `own`: the lease this process holds, if the request was one of its slots.
 */
export function observe(d: BudgetData, headers: Record<string, string>, sentAt: number, now: number, own?: OwnLease): BudgetData {
  const h = parseRateHeaders(headers, now);
  // Whatever the headers say, the server counted this request by now (a group that may
  // hold it, all of it); and the view is fresh, so whoever waited for a probe may go.
  const { probe: _learnt, ...rest } = d;
  const out: BudgetData = { ...rest, answeredAt: Math.max(d.answeredAt ?? now, now), sends: d.sends.map((s): Send => (s[0] === sentAt ? [s[0], Math.max(s[1], now)] : s)) };
  if (d.groups) out.groups = d.groups.map((g) => (g.from <= sentAt && sentAt <= g.to && g.last < now ? { ...g, last: now } : g)).sort((a, b) => a.last - b.last);
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
    out.view = { remaining: h.remaining, resetAt: h.resetAt, sentAt, at: now, foreign: foreignAt(out, limit, out.windowMs, h.remaining, now, own) };
  }
  return out;
}

/**
 * Whether writing an answer can wait for this process's next locked update, which in a
 * walk comes within milliseconds (a timer writes it by half a window after the request
 * otherwise: BudgetFile.observe). Until then the file says the request was counted at its
 * reservation; another process acts on that only when it predicts the slot free, a window
 * later, by when the answer is written. The answer must change neither the limit nor the
 * window, and say that other machines spend no more in the window than the budget already
 * knew (`d`: the budget as this process last wrote it; other processes' sends only add to
 * what counts as ours, so the foreign count from it is at least the file's), and half the
 * window must still be free. A probe's answer is never folded (the others wait for it).
 * `own`: the lease held, if the request was one of its slots.
 */
export function quietAnswer(d: BudgetData, headers: Record<string, string>, sentAt: number, now: number, own?: OwnLease): boolean {
  if (d.limit === undefined || now >= foldBy(d, sentAt, own)) return false;
  if (d.windowMs === undefined) {
    // Without the window's length, only an answer to a slot of this process's lease: the
    // file counts all of the lease after its view (slots()), so an answer that leaves the
    // server at least what the grant predicted, less the slots sent, tells the others
    // nothing; one that leaves less means someone else spends, and is written at once.
    if (own?.base === undefined || sentAt < own.from) return false;
    const remaining = parseRateHeaders(headers, now).remaining;
    if (remaining === undefined || remaining < own.base - own.used) return false;
    const next = observe(d, headers, sentAt, now, own);
    return next.windowMs === undefined && next.limit === d.limit;
  }
  // Other machines' requests the last view counted: the file keeps that view until the
  // write, so it must still be in force by then (it is for a window after its answer).
  const before = d.view?.foreign ?? 0;
  if (before > 0 && d.view!.at <= sentAt - d.windowMs / 2) return false;
  // Only while half the window is free: near the limit the others need every answer's
  // time at once, since a slot they predict free must be free at the server (a process
  // paused between reservation and answer, or a clock that jumps, would otherwise let
  // them send into a window the server still counts full).
  const room = slots(d, now);
  if (!('free' in room) || room.free === undefined || room.free < d.limit / 2) return false;
  const next = observe(d, headers, sentAt, now, own);
  return next.windowMs === d.windowMs && next.limit === d.limit && next.view?.foreign !== undefined && next.view.foreign <= before;
}

/**
 * When an answer folded at `sentAt` is written at the latest: within half a window, or
 * with the window unknown, within half the platform's minute and before the Reset of the
 * view the file holds meanwhile (after it the others take one slot as free).
 */
function foldBy(d: BudgetData, sentAt: number, own?: OwnLease): number {
  if (d.windowMs !== undefined) return sentAt + d.windowMs / 2;
  return Math.min(sentAt + FRESH_DEFAULT_MS / 2, own?.resetAt ?? sentAt);
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

function asGroup(v: unknown): Group | undefined {
  if (!isRecord(v)) return undefined;
  const [n, from, to, last] = [finiteNumber(v.n), finiteNumber(v.from), finiteNumber(v.to), finiteNumber(v.last)];
  if (n === undefined || from === undefined || to === undefined || last === undefined) return undefined;
  if (!Number.isInteger(n) || n < 1 || from > to || to > last) return undefined;
  const g: Group = { n, from, to, last };
  if (typeof v.owner === 'string' && v.owner.length <= 64) g.owner = v.owner;
  return g;
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
  if (Array.isArray(raw.groups)) for (const g of raw.groups) if (isRecord(g)) see(g.from);
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
  if (d.groups) out.groups = d.groups.map((g) => ({ ...g, from: t(g.from), to: t(g.to), last: t(g.last) }));
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
  if (Array.isArray(raw.groups)) {
    const groups = raw.groups
      .map(asGroup)
      .filter((g): g is Group => g !== undefined && g.last - now <= MAX_HORIZON_MS)
      .sort((a, b) => a.last - b.last)
      .slice(-MAX_GROUPS);
    if (groups.length > 0) d.groups = groups;
  }
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

/** A value now, or later: the file store answers at once, a network store later. */
export type Maybe<T> = T | Promise<T>;

function then<A, B>(v: Maybe<A>, f: (a: A) => B): Maybe<B> {
  return v instanceof Promise ? v.then(f) : f(v);
}

/**
 * Where one token's budget is kept: the file under its lock (FileStore), or a store that
 * machines share (src/http/redis.ts). One atomic read-modify-write (`fn` may run again if
 * the store retries it) on the store's clock; the rules are this module's pure functions,
 * whatever the store.
 */
export interface BudgetStore<S extends boolean = boolean> {
  /**
   * Runs `fn` on the budget as stored and writes what it returns (`data` undefined:
   * nothing), atomically; `fallback` when the store cannot be used (a command is never
   * failed by the budget's bookkeeping).
   */
  update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): S extends true ? T : Maybe<T>;
  /** The budget as stored now, without a lock (for display and poll intervals). */
  read(): S extends true ? BudgetData : Maybe<BudgetData>;
  /** The store's clock (a shared store's, so that machines with skewed clocks agree). */
  now(): number;
  /** How far the store's clock is ahead of this machine's (a shared store's; none: 0). */
  skewMs?(): number;
}

/** The budget is shared but optional: a lock not had within 2 s is gone without. */
const BUDGET_LOCK: LockPolicy = { staleMs: 5_000, waitMs: 2_000, unavailable: 'proceed' };

/** The budget file of one token, beside the state file: the machine's own store. */
export class FileStore implements BudgetStore<true> {
  readonly path: string;
  constructor(
    stateFile: string,
    fingerprint: string,
    readonly now: () => number = Date.now,
  ) {
    this.path = join(dirname(stateFile), 'budget', `${fingerprint.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64)}.json`);
  }

  update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): T {
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

  read(): BudgetData {
    return normalizeBudget(readJsonFile(this.path), this.now());
  }
}

type Out<S extends boolean, T> = S extends true ? T : Maybe<T>;
export type Reservation = { sentAt: number; probe?: true } | { waitMs: number; deferred?: true };

/**
 * One client's use of a token's budget, in whichever store: its reservations, the answers
 * that correct them, its claim as an interactive waiter. With the file store (S = true)
 * every call answers at once.
 */
export class Budget<S extends boolean = boolean> implements RateStore {
  /** This client's name: its lease's holder, and the caller of a process that makes one request at a time. */
  readonly id = `${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
  private callers = 0;
  /** An answer folded into this process's next update (quietAnswer), and the budget as this process last wrote it. */
  private pending: { headers: Record<string, string>; sentAt: number; at: number; own?: OwnLease } | undefined;
  private last: BudgetData | undefined;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** The lease this process holds: slots it sends without the store until `until`. */
  private held: { from: number; until: number; left: number; used: number; lastUse: number; base?: number; resetAt?: number } | undefined;
  /** Reservations this process made in the store: a command's first request never leases (most commands send one). */
  private reserved = 0;
  /** The next lease's size: doubled each time one is used up. */
  private nextLease = LEASE_FIRST;

  constructor(
    readonly store: BudgetStore<S>,
    private readonly priority: Priority = 'batch',
  ) {}

  private own(): OwnLease | undefined {
    const h = this.held;
    return h && { owner: this.id, from: h.from, used: h.used, base: h.base, resetAt: h.resetAt };
  }

  /**
   * One update of the store, which writes the folded answer, if any, and hands back the
   * lease, if one is held: every update but a new lease's ends this process's lease (a
   * loud answer, a 429, the end of the command all mean the others should count only what
   * it sent).
   */
  private update<T>(fn: (d: BudgetData, now: number) => { data?: BudgetData; result: T }, fallback: T): Out<S, T> {
    const folded = this.pending;
    const held = this.held;
    this.pending = undefined;
    this.held = undefined;
    clearTimeout(this.flushTimer);
    const out = this.store.update((stored, now) => {
      let d = folded ? observe(stored, folded.headers, folded.sentAt, folded.at, folded.own) : stored;
      if (held) d = giveBack(d, this.id, held.from, held.used, held.lastUse);
      const { data, result } = fn(d, now);
      const content = data ?? (folded || held ? d : undefined);
      this.last = content ?? d;
      return { data: content, result };
    }, fallback);
    return out as Out<S, T>;
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

  /** The budget as this process last saw it in the store, without asking the store. */
  seen(): BudgetData {
    return this.last ?? { sends: [] };
  }

  /** The budget as it is now, with this process's folded answer (for display and poll intervals). */
  read(): Out<S, BudgetData> {
    const p = this.pending;
    return then(this.store.read(), (d) => (p ? observe(d, p.headers, p.sentAt, p.at, p.own) : d)) as Out<S, BudgetData>;
  }

  /**
   * Reserves a slot now and returns its time, or says how long to wait first (`deferred`:
   * only because an interactive command or a probe goes first). An interactive client
   * that must wait registers as a waiter until it gets its slot. `probe`: the others wait
   * for this request's answer (observe() or unprobe()). From the second reservation on, a
   * slot may come with a lease (leaseSize): the next ones are this process's own until it
   * lapses, handed out here without the store. `who`: the caller (caller()).
   */
  tryReserve(force = false, who: string = this.id): Out<S, Reservation> {
    const h = this.held;
    if (!force && h !== undefined && h.left > 0) {
      const now = this.store.now();
      if (now >= h.from && now < h.until) {
        h.left--;
        h.used++;
        h.lastUse = Math.max(h.lastUse, now);
        return { sentAt: now } as Out<S, Reservation>;
      }
    }
    if (h !== undefined && h.left === 0) this.nextLease = Math.min(LEASE_MAX, this.nextLease * 2);
    const want = force || this.reserved === 0 ? 0 : this.nextLease;
    type Leased = Reservation & { lease?: { n: number; until: number; base?: number; resetAt?: number } };
    const out = this.update<Leased>(
      (d, now) => {
        const decision = force ? ({ ok: true } as const) : decide(d, now, this.priority, who);
        if (decision.ok) {
          const probe = 'probe' in decision && decision.probe === true;
          const base = withdraw(d, who, now);
          const n = probe ? 0 : leaseSize(base, now, want, who);
          if (n > 0) {
            const grant = { n, until: leaseLapse(base, now), base: base.windowMs === undefined ? freeSlots(base, now) : undefined, resetAt: base.view?.resetAt };
            return { data: lease(base, now, n, this.id), result: { sentAt: now, lease: grant } };
          }
          return { data: reserve(base, now, probe ? who : undefined), result: probe ? { sentAt: now, probe } : { sentAt: now } };
        }
        const result = decision.deferred ? { waitMs: decision.waitMs, deferred: true as const } : { waitMs: decision.waitMs };
        if (this.priority === 'batch') return { result };
        return { data: register(d, who, now + decision.waitMs + WAITER_GRACE_MS, now), result };
      },
      { sentAt: this.store.now() },
    );
    return then(out as Maybe<Leased>, (r): Reservation => {
      if (!('sentAt' in r)) return r;
      this.reserved++;
      const { lease: granted, ...rest } = r;
      // A lease granted while another was being taken (a shared store's updates overlap) lapses unreturned: the safe side.
      if (granted) this.held = { from: r.sentAt, until: granted.until, left: granted.n - 1, used: 1, lastUse: r.sentAt, base: granted.base, resetAt: granted.resetAt };
      return rest;
    }) as Out<S, Reservation>;
  }

  /** Gives up waiting (--no-wait, --max-wait, Ctrl-C): batch commands need not defer any more. */
  withdraw(who: string = this.id): Out<S, void> {
    return this.update((d, now) => ({ data: d.waiters?.[who] === undefined ? undefined : withdraw(d, who, now), result: undefined }), undefined);
  }

  /**
   * Corrects the budget with an answer. One that the others need not know at once
   * (quietAnswer) is written with this process's next update, by half a window after its
   * request at the latest, or by flush(): one update per request in a walk instead of
   * two. A newer quiet answer replaces a folded one whose request was a slot of the lease
   * held, answered before it lapses (the lease counts it until then: nothing of the older
   * answer is left to write). `fold`: false for a probe's answer, which the others wait
   * for, and for a caller that reads the store next.
   */
  observe(answer: Record<string, string>, sentAt: number, fold = true): Out<S, void> {
    const headers = this.onStoreClock(answer);
    const at = this.store.now();
    const last = this.last;
    const own = this.own();
    const p = this.pending;
    const h = this.held;
    const replaceable = p === undefined || (p.own !== undefined && h !== undefined && p.own.from === h.from && p.sentAt >= h.from && p.at < h.until);
    if (fold && replaceable && last !== undefined && quietAnswer(last, headers, sentAt, at, own)) {
      this.pending = { headers, sentAt, at, own };
      this.last = observe(last, headers, sentAt, at, own);
      clearTimeout(this.flushTimer);
      // Unref'd: a process that is done exits; close() writes it then.
      // A shared store's failure here has been reported by the store; nothing is left to do with it.
      this.flushTimer = setTimeout(() => void Promise.resolve(this.flush()).catch(() => undefined), Math.max(0, foldBy(last, sentAt, own) - at));
      this.flushTimer.unref?.();
      return undefined as Out<S, void>;
    }
    return this.update((d, now) => ({ data: observe(d, headers, sentAt, now), result: undefined }), undefined);
  }

  /** A reservation given back unsent: its call was cancelled while the slot was being reserved. */
  release(sentAt: number, who: string = this.id): Out<S, void> {
    return this.update((d) => ({ data: unreserve(d, sentAt, who), result: undefined }), undefined);
  }

  /** A probe that got no answer to learn from: the others need not wait for it. */
  unprobe(who: string = this.id): Out<S, void> {
    return this.update((d) => ({ data: d.probe?.id === who ? unprobe(d, who) : undefined, result: undefined }), undefined);
  }

  /** Writes an answer folded for later (observe()), if any, and hands back the lease: before the process ends. */
  flush(): Out<S, void> {
    if (!this.pending && !this.held) return undefined as Out<S, void>;
    return this.update(() => ({ result: undefined }), undefined);
  }

  on429(sentAt: number, retryMs: number, answer?: Record<string, string>): Out<S, void> {
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
  rate(): Out<S, RateState | undefined> {
    return then(this.read(), (d: BudgetData) => onClock(d.rate, -(this.store.skewMs?.() ?? 0))) as Out<S, RateState | undefined>;
  }

  /** `fn` gets and returns the rate state on this machine's clock (rate()'s); the store keeps it on its own. */
  updateRate(fn: (prev: RateState | undefined) => RateState): Out<S, void> {
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

/** The budget of one token in its file beside the state file, which keeps the token's rate state too. */
export class BudgetFile extends Budget<true> {
  readonly path: string;
  constructor(stateFile: string, fingerprint: string, now: () => number = Date.now, priority: Priority = 'batch') {
    const store = new FileStore(stateFile, fingerprint, now);
    super(store, priority);
    this.path = store.path;
  }
}

/**
 * The last rate state of every token seen on this machine (its budget files), newest
 * first, by fingerprint: what `rate-limit` shows when this run's token cannot be read.
 */
export function allRates(stateFile: string): { fingerprint: string; rate: RateState }[] {
  let names: string[];
  try {
    names = readdirSync(join(dirname(stateFile), 'budget')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: { fingerprint: string; rate: RateState }[] = [];
  for (const name of names) {
    const fingerprint = name.slice(0, -'.json'.length);
    const rate = lastRate(stateFile, fingerprint);
    if (rate?.remaining !== undefined) out.push({ fingerprint, rate });
  }
  return out.sort((a, b) => b.rate.seenAt - a.rate.seenAt);
}

/** The last rate state seen for the token with this fingerprint, with no request. */
export function lastRate(stateFile: string, fingerprint: string): RateState | undefined {
  return new BudgetFile(stateFile, fingerprint).rate();
}

export interface BudgetLayerOptions {
  file: Pick<Budget, 'caller' | 'tryReserve' | 'release' | 'observe' | 'on429' | 'withdraw' | 'unprobe'>;
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
    const who = o.file.caller();
    let sentAt: number;
    let probe = false;
    try {
      for (;;) {
        if (x.signal?.aborted) throw cancelled();
        const r = await o.file.tryReserve(x.unpaced === true, who);
        if ('sentAt' in r) {
          sentAt = r.sentAt;
          probe = r.probe === true;
          break;
        }
        const ms = Math.max(5, r.waitMs);
        await (r.deferred && o.defer ? o.defer(ms) : o.pace(ms));
      }
    } catch (err) {
      await o.file.withdraw(who);
      throw err;
    }
    // Cancelled while a shared store was reserving the slot: it goes back unused.
    if (x.signal?.aborted) {
      await o.file.release(sentAt, who);
      throw cancelled();
    }
    let res: Answer;
    try {
      res = await next(x);
    } catch (err) {
      if (probe) await o.file.unprobe(who);
      throw err;
    }
    try {
      // A 401's headers count failed logins, not this token's window: nothing learnt.
      if (res.status === 429) await o.file.on429(sentAt, Math.min(retryDelayMs(res.headers, o.now()), MAX_HORIZON_MS), res.headers);
      else if (res.status !== 401) await o.file.observe(res.headers, sentAt, !probe && x.unpaced !== true);
      else if (probe) await o.file.unprobe(who);
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
  const held = total(frees);
  const left = Math.max(0, d.limit - held);
  if (k <= left) return 0;
  const need = k - left;
  const at = (t: number | undefined) => (t === undefined ? now : t + windowMs);
  if (need <= held) return at(nth(frees, need - 1)) - now;
  return at(frees.at(-1)?.[0]) - now + Math.ceil((need - held) / d.limit) * windowMs;
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
  const spent = total(counted(d, now - windowMs - SLOT_MARGIN_MS)) + foreign(d, now);
  return { spent, limit: d.limit, waiting };
}

/** How many requests the budget has left now, as far as it knows (undefined: unknown). */
export function budgetLeft(d: BudgetData, now: number): number | undefined {
  if (d.limit === undefined || d.windowMs === undefined) return d.view?.remaining;
  const windowMs = d.windowMs;
  return Math.max(0, d.limit - total(counted(d, now - windowMs)));
}

// Polling objects until conditions hold (`<resource> wait --for`, MCP's wait_for, the
// library's wait): one batched request per round for all the IDs, the interval the larger
// of the caller's and the share of the token's budget a poll may take, so that waiting
// never crowds out other work. The deadline bounds the polling, not the rate limit's wait:
// a round's request waits for its slot as every request does, since giving up before the
// one request that would tell is no answer either.

import { DeadlineError, InterruptedError, NotFoundError, UsageError } from '../errors.js';
import type { Resource } from '../resources.js';
import type { HttpClient } from '../http/client.js';
import type { Clock } from '../runtime.js';
import { fieldValue } from '../output/fields.js';
import { stringifyJson } from '../output/json.js';
import { oneLine } from '../output/sanitize.js';
import { fetchByIds } from './by-id.js';

export interface Condition {
  field: string;
  negate: boolean;
  value: string;
}

export const DEFAULT_DEADLINE_MS = 10 * 60_000;
export const DEFAULT_INTERVAL_MS = 5_000;
/** A poll may use at most this share of the token's budget, leaving the rest to other work. */
export const POLL_SHARE = 0.5;

export function parseCondition(raw: string): Condition {
  const m = /^([^=!\s][^=!]*?)\s*(!=|=)\s*(.*)$/s.exec(raw);
  if (!m) throw new UsageError(`--for takes FIELD=VALUE or FIELD!=VALUE, not "${oneLine(raw, 60)}".`, 'For example: --for status=running');
  return { field: m[1]!.trim(), negate: m[2] === '!=', value: m[3]! };
}

/** A field's value as text to compare: strings as they are, the rest as JSON. */
function valueText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  return stringifyJson(v);
}

export function meets(item: unknown, c: Condition): boolean {
  const equal = valueText(fieldValue(item, c.field)) === c.value;
  return c.negate ? !equal : equal;
}

export function describe(c: Condition): string {
  return `${c.field}${c.negate ? '!=' : '='}${c.value}`;
}

/** One round's account, before the sleep to the next. */
export interface Round {
  matched: number;
  total: number;
  nextInMs: number;
}

export interface PollDeps {
  fetch(): Promise<Map<string, unknown>>;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** The shortest interval the shared budget allows now. */
  budgetInterval(): number;
  onRound?(round: Round): void;
}

export interface PollResult {
  found: Map<string, unknown>;
  rounds: number;
}

/**
 * Polls until every ID meets every condition. Throws NotFoundError when an ID is not
 * there (waiting for it would be in vain), DeadlineError after a round at (or, when the
 * shared budget holds the request, just after) the deadline: a round that would come after
 * it comes at it instead, because a deadline is a promise to keep looking until then.
 */
export async function pollUntil(ids: readonly string[], conditions: readonly Condition[], o: { deadlineMs: number; intervalMs: number; resource?: string }, deps: PollDeps): Promise<PollResult> {
  const end = deps.now() + o.deadlineMs;
  for (let rounds = 1; ; rounds++) {
    const found = await deps.fetch();
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw new NotFoundError(`Not found: ${missing.join(', ')}; there is nothing to wait for.`, `Check the IDs with "hostctl ${o.resource ?? '<resource>'} list".`, { ids: missing });
    const pending = ids.filter((id) => !conditions.every((c) => meets(found.get(id), c)));
    if (pending.length === 0) return { found, rounds };
    const left = end - deps.now();
    if (left <= 0) {
      const shown = pending.slice(0, 3).map((id) => `${id} (${conditions.map((c) => `${c.field}=${valueText(fieldValue(found.get(id), c.field)) ?? '(absent)'}`).join(', ')})`);
      throw new DeadlineError(
        `The deadline passed before ${pending.length} of ${ids.length} ${ids.length === 1 ? 'object' : 'objects'} met ${conditions.map(describe).join(' and ')}: ${shown.join('; ')}${pending.length > 3 ? '; …' : ''}.`,
        'Raise --deadline to wait longer.',
        { unmet: Object.fromEntries(pending.map((id) => [id, Object.fromEntries(conditions.map((c) => [c.field, fieldValue(found.get(id), c.field) ?? null]))])) },
      );
    }
    const next = Math.min(Math.max(o.intervalMs, deps.budgetInterval()), left);
    deps.onRound?.({ matched: ids.length - pending.length, total: ids.length, nextInMs: next });
    await deps.sleep(next);
  }
}

export interface WaitOptions {
  deadlineMs: number;
  /** The shortest time between polls; the budget's share may make it longer. */
  intervalMs: number;
  clock: Clock;
  /** Ends the wait: the sleep is cut short, its timer with it, and no further round is sent. */
  signal?: AbortSignal;
  onRound?(round: Round): void;
}

/**
 * Polls `ids` of `resource` until every one meets every condition (pollUntil's promises),
 * each round one batched fetch past the caches, paced by the token's shared budget.
 */
export async function waitUntil(http: HttpClient, resource: Resource, ids: readonly string[], conditions: readonly Condition[], o: WaitOptions): Promise<PollResult> {
  const { pollInterval } = await import('../http/budget.js');
  const { clock, signal } = o;
  return pollUntil(ids, conditions, { deadlineMs: o.deadlineMs, intervalMs: o.intervalMs, resource: resource.name }, {
    fetch: () => {
      if (signal?.aborted) throw new InterruptedError('The wait was cancelled; nothing more was sent.');
      return fetchByIds(http, resource, ids, { fresh: true });
    },
    now: clock.now,
    // A cancelled sleep ends early; the next fetch then stops before sending.
    sleep: (ms) => clock.sleep(ms, signal).catch(() => undefined),
    budgetInterval: () => pollInterval(http.budgetSnapshot(), POLL_SHARE),
    onRound: o.onRound,
  });
}

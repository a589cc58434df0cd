// `hostctl <resource> wait <publicId…> --for FIELD=VALUE …`: polls every listed object in
// one batched request per round until all of them meet every condition; exit 7 when the
// deadline passes first. The interval is the larger of --interval and the share of the
// token's budget a poll may take, so that waiting never crowds out other commands.
// The deadline bounds the polling, not the rate limit's wait: a round's request waits for
// its slot as every request does (--max-wait bounds that, exit 5 past it), since giving up
// before the one request that would tell is no answer either.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { parseDuration, parseInterval } from '../../config/duration.js';
import { DeadlineError, NotFoundError, UsageError } from '../../errors.js';
import { completes } from '../hints.js';
import type { Resource } from '../../resources.js';
import { checkIds, fetchByIds, idHint, idsArgument } from './by-id.js';
import { collect, command, withContext, type OptionsOf } from '../define.js';
import { fieldValue } from '../../output/fields.js';
import { stringifyJson } from '../../output/json.js';
import { oneLine } from '../../output/sanitize.js';

function waitDefinition(r: Resource) {
  return command('wait')
    .description(`Wait until ${r.description.toLowerCase()} meet a condition (one request per round for all; exit 7 at the deadline)`)
    .examples([`hostctl ${r.name} wait ${idHint(r)} --for status=running`, `hostctl ${r.name} wait ${idHint(r)} ${idHint(r)} --for status!=deploying --deadline 5m`])
    .seeAlso(['rate-limit', 'exit-codes'])
    .addArgument(idsArgument(r))
    .addOption(
      completes(new Option('--for <FIELD=VALUE>', 'a condition: FIELD=VALUE or FIELD!=VALUE, FIELD a dotted path (repeatable; all must hold)'), { conditions: r.name })
        .argParser(collect)
        .default([] as string[]),
    )
    .option(
      '--deadline <duration>',
      "give up (exit 7) after this long, e.g. 90s, 10m (default 10m). It bounds the polling: a round due after it comes at it, and none starts later; a request that waits for the token's rate limit finishes first (within --max-wait)",
    )
    .option('--interval <duration>', "time between polls (default 5s; longer when the token's budget needs it)");
}

export type WaitOptions = OptionsOf<typeof waitDefinition>;

/** `hostctl <resource> wait`, for one resource of the table (resource.ts adds it to the noun). */
export function waitCommand(r: Resource) {
  return waitDefinition(r).action(withContext(async (ctx, [ids], opts) => waitRun(ctx, r, ids, opts)));
}

export interface Condition {
  field: string;
  negate: boolean;
  value: string;
}

export const DEFAULT_DEADLINE_MS = 10 * 60_000;
export const DEFAULT_INTERVAL_MS = 5_000;
/** A poll may use at most this share of the token's budget, leaving the rest to other commands. */
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

export interface PollDeps {
  fetch(): Promise<Map<string, unknown>>;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** The shortest interval the shared budget allows now. */
  budgetInterval(): number;
  onRound?(round: { matched: number; total: number; nextInMs: number }): void;
}

/**
 * The spinner's account of a poll loop (wait and --watch): when the next poll goes out,
 * and how many requests the token's shared budget has left (when it knows).
 */
export function nextPollText(nextInMs: number, budgetLeft: number | undefined): string {
  const left = budgetLeft === undefined ? '' : `, budget ${budgetLeft} ${budgetLeft === 1 ? 'request' : 'requests'} left`;
  return `next poll in ${Math.ceil(nextInMs / 1000)}s${left} (Ctrl-C to stop)`;
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

async function waitRun(ctx: Context, resource: Resource, rawIds: string[], opts: WaitOptions): Promise<void> {
  checkIds(resource, rawIds);
  const ids = [...new Set(rawIds)];
  const conditions = opts.for.map(parseCondition);
  if (conditions.length === 0) throw new UsageError('wait needs at least one --for FIELD=VALUE.', `For example: hostctl ${resource.name} wait ${ids[0] ?? 'ID'} --for status=running`);
  const deadlineMs = opts.deadline === undefined ? DEFAULT_DEADLINE_MS : parseDuration(opts.deadline, '--deadline');
  const intervalMs = parseInterval(opts.interval, DEFAULT_INTERVAL_MS);
  const format = ctx.outputFormat();
  const fields = ctx.opts.fields;

  const http = await ctx.http();
  const [{ createPrinter }, { pollInterval }] = await Promise.all([import('../../output/format.js'), import('../../http/budget.js')]);
  const spinner = await ctx.io.spinner(`Waiting for ${ids.length === 1 ? resource.singular : `${ids.length} ${resource.name}`} to meet ${conditions.map(describe).join(' and ')}…`);
  let result: PollResult;
  try {
    result = await pollUntil(ids, conditions, { deadlineMs, intervalMs, resource: resource.name }, {
      fetch: () => fetchByIds(http, resource, ids, true),
      now: ctx.clock.now,
      sleep: ctx.clock.sleep,
      budgetInterval: () => pollInterval(http.budgetSnapshot(), POLL_SHARE),
      onRound: ({ matched, total, nextInMs }) => {
        spinner.text(`Waiting: ${matched} of ${total} met ${conditions.map(describe).join(' and ')}; ${nextPollText(nextInMs, http.budgetLeft())}`);
      },
    });
  } finally {
    spinner.stop();
  }
  ctx.state().rememberIds(ctx.baseUrl(), resource.name, ids);
  const printer = await createPrinter({ io: ctx.io, format, fields, columns: resource.columns, references: (resource.relations ?? []).map((r) => r.flag) });
  for (const id of ids) printer.add([result.found.get(id)]);
  await printer.end(ids.length === 1 ? 'single' : 'list');
}

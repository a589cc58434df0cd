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
import { UsageError } from '../../errors.js';
import { completes } from '../hints.js';
import type { Resource } from '../../resources.js';
import { idHint, idsArgument } from './by-id.js';
import { checkIds } from '../../core/by-id.js';
import { DEFAULT_DEADLINE_MS, DEFAULT_INTERVAL_MS, describe, parseCondition, waitUntil, type PollResult } from '../../core/wait.js';
import { collect, command, withContext, type OptionsOf } from '../define.js';

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

/**
 * The spinner's account of a poll loop (wait and --watch): when the next poll goes out,
 * and how many requests the token's shared budget has left (when it knows).
 */
export function nextPollText(nextInMs: number, budgetLeft: number | undefined): string {
  const left = budgetLeft === undefined ? '' : `, budget ${budgetLeft} ${budgetLeft === 1 ? 'request' : 'requests'} left`;
  return `next poll in ${Math.ceil(nextInMs / 1000)}s${left} (Ctrl-C to stop)`;
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
  const { createPrinter } = await import('../../output/format.js');
  const spinner = await ctx.io.spinner(`Waiting for ${ids.length === 1 ? resource.singular : `${ids.length} ${resource.name}`} to meet ${conditions.map(describe).join(' and ')}…`);
  let result: PollResult;
  try {
    result = await waitUntil(http, resource, ids, conditions, {
      deadlineMs,
      intervalMs,
      clock: ctx.clock,
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

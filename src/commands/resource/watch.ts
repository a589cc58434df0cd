// `--watch` on `get` and `list`: fetch again every interval (one batched request for get,
// the same pages for list), and print again when something changed, until Ctrl-C. On a
// terminal a table redraws in place; ndjson and tsv append only the objects that changed,
// for a pipe to consume; json prints the whole set again. Never from the cache, and the
// interval is at least what half the token's budget allows per request of a round.

import { Writable } from 'node:stream';
import type { Context } from '../../context.js';
import { parseInterval } from '../../config/duration.js';
import { IO, releaseSinks } from '../../io.js';
import type { Resource } from '../../resources.js';
import { publicIdOf } from '../../json/narrow.js';
import { stringifyJson } from '../../output/json.js';

const DEFAULT_WATCH_INTERVAL_MS = 5_000;

/** What changed since the last round: objects new or different, by public ID (else position). */
function changedSince(previous: ReadonlyMap<string, string>, items: readonly unknown[]): { changed: unknown[]; now: Map<string, string> } {
  const now = new Map<string, string>();
  const changed: unknown[] = [];
  items.forEach((item, i) => {
    const key = publicIdOf(item) ?? `#${i}`;
    const text = stringifyJson(item);
    now.set(key, text);
    if (previous.get(key) !== text) changed.push(item);
  });
  return { changed, now };
}

export interface WatchOptions {
  interval?: string;
  shape: 'list' | 'single';
  /** Requests one round sends (pages), for the budget's share. */
  requestsPerRound?: () => number;
  /** A screen of the command's own (`status`) instead of the resource's printer. */
  render?: (items: readonly unknown[], into: IO) => Promise<void>;
}

export async function watchRun(ctx: Context, resource: Resource, round: () => Promise<unknown[]>, opts: WatchOptions): Promise<never> {
  const intervalMs = parseInterval(opts.interval, DEFAULT_WATCH_INTERVAL_MS);
  const format = ctx.outputFormat();
  const fields = ctx.opts.fields;
  const http = await ctx.http();
  const [{ createPrinter }, { pollInterval }, { nextPollText }, { POLL_SHARE }] = await Promise.all([import('../../output/format.js'), import('../../http/budget.js'), import('./wait.js'), import('../../core/wait.js')]);
  const append = format === 'ndjson' || format === 'tsv';
  // Accessible output appends the whole table again instead (a screen reader reads on).
  const redraw = format === 'table' && ctx.io.stdoutIsTTY && !ctx.io.accessible;
  let shown = new Map<string, string>();
  let drawnLines = 0;

  const print = async (items: readonly unknown[], into: IO) => {
    if (opts.render) return opts.render(items, into);
    const printer = await createPrinter({ io: into, format, fields, columns: resource.columns, references: (resource.relations ?? []).map((r) => r.flag) });
    printer.add(items);
    await printer.end(opts.shape);
  };

  for (let first = true; ; first = false) {
    const items = await round();
    const { changed, now } = changedSince(shown, items);
    const gone = [...shown.keys()].some((k) => !now.has(k));
    shown = now;
    if (first || changed.length > 0 || gone) {
      if (append) {
        await print(first ? items : changed, ctx.io);
      } else if (redraw) {
        let text = '';
        const capture = Object.assign(
          new Writable({
            write(chunk: Buffer | string, _enc, cb) {
              text += chunk.toString();
              cb();
            },
          }),
          { isTTY: true, columns: ctx.io.columns },
        );
        await print(items, new IO({ stdout: capture, stderr: ctx.io.stderr, env: ctx.env, color: ctx.io.color, secrets: ctx.io.secrets }));
        // Its guards go with it: a long --watch would keep one per redraw.
        releaseSinks(capture, ctx.io.stderr);
        // Up to the first line drawn last time, clear to the end, draw again.
        ctx.io.out(`${drawnLines > 0 ? `\u001b[${drawnLines}F\u001b[J` : ''}${text}`);
        drawnLines = text.split('\n').length - 1;
      } else {
        await print(items, ctx.io);
      }
    }
    const perRound = Math.max(1, opts.requestsPerRound?.() ?? 1);
    const wait = Math.max(intervalMs, pollInterval(http.budgetSnapshot(), POLL_SHARE) * perRound);
    // On a terminal (stderr), the spinner says when the next poll goes; it is stopped
    // before the next round prints, so that a redrawn table counts only its own lines.
    const spinner = await ctx.io.spinner(`Watching ${items.length} ${items.length === 1 ? resource.singular : resource.name}: ${nextPollText(wait, http.budgetLeft())}`);
    try {
      await ctx.clock.sleep(wait);
    } finally {
      spinner.stop();
    }
  }
}

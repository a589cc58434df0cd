// `hostctl rate-limit`: the last rate-limit state seen for this run's token, read from its
// budget file (src/http/budget.ts) with no request; `--refresh` spends one request to bring it up to date.

import type { Context } from '../context.js';
import { formatRateLine } from '../output/rate-line.js';
import { rateReport } from '../core/rate.js';
import { ApiError, AuthError } from '../errors.js';
import { PROBE_PATH } from '../resources.js';
import { command, withContext, type CommandUnknownOpts, type OptionsOf } from './define.js';

export function rateLimitCommand(): CommandUnknownOpts {
  return rateLimitDefinition().action(withContext(async (ctx, _args, opts) => rateLimitRun(ctx, opts)));
}

function rateLimitDefinition() {
  return command('rate-limit')
    .description('Show the last rate-limit state seen for the current token (no request unless --refresh)')
    .examples(['hostctl rate-limit', 'hostctl rate-limit --refresh', 'hostctl rate-limit --json | jq .remaining'])
    .seeAlso(['rate-limit'])
    .option('--refresh', 'spend one request to update it');
}

export type RateLimitOptions = OptionsOf<typeof rateLimitDefinition>;

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

async function rateLimitRun(ctx: Context, o: RateLimitOptions): Promise<void> {
  const format = ctx.outputFormat();
  const fields = ctx.opts.fields;
  // token(), not resolveToken(): a token the API rejected is refused here as everywhere,
  // and -R then reads the same state this command shows.
  try {
    await ctx.token();
  } catch (err) {
    // Without --refresh nothing is sent, so no token is needed to show what is stored: a
    // token that cannot be read (none, or the keychain unreachable) is no failure here. A
    // token marked rejected can be read, and is refused as everywhere.
    if (o.refresh || !(err instanceof AuthError) || (await ctx.resolveToken().then(() => true, () => false))) throw err;
    return storedRatesRun(ctx, err);
  }
  const { createPrinter } = await import('../output/format.js');
  // Before any request: a bad --jq is a usage error with nothing sent.
  const printer = await createPrinter({ io: ctx.io, format, fields, jq: ctx.opts.jq, columns: ['limit', 'remaining', 'resetAt', 'resetInSeconds', 'seenAt'] });

  if (o.refresh) {
    const http = await ctx.http();
    const spinner = await ctx.io.spinner('Asking the API…');
    try {
      // Its body is not needed, only the X-RateLimit headers every response carries.
      // Unpaced: the point is to learn the state, which the stored one may have wrong.
      // Fresh: an answer from the cache carries no rate headers, nor today's state.
      const res = await http.request({ path: PROBE_PATH, unpaced: true, fresh: true });
      const { hasRateHeaders, parseRateHeaders } = await import('../http/ratelimit.js');
      if (!hasRateHeaders(parseRateHeaders(res.headers, ctx.clock.now()))) {
        throw new ApiError(
          `The API answered ${res.url.pathname} without X-RateLimit headers, so hostctl cannot tell the rate-limit state.`,
          'Run with --verbose to see the response headers.',
        );
      }
    } finally {
      spinner.stop();
    }
  }

  const now = ctx.clock.now();
  const rate = await ctx.lastRate();
  const fleet = await ctx.fleetWindow();
  const known = rate?.remaining !== undefined;
  const table = format === 'table' && !fields && ctx.opts.jq === undefined;
  if (!known) {
    // The table's own line already says "unknown"; the other formats need the words.
    ctx.io.note(
      table
        ? 'Run "hostctl rate-limit --refresh" to spend one request and find out.'
        : 'No rate-limit state has been seen for this token yet; "hostctl rate-limit --refresh" spends one request to find out.',
    );
  }

  if (table) {
    const lines = [formatRateLine(rate, now)];
    if (rate && known) {
      const passed = rate.resetAt !== undefined && rate.resetAt <= now;
      lines.push(
        `Seen ${ago(now - rate.seenAt)} ago (${new Date(rate.seenAt).toISOString()})${passed ? '; the window has reset since, so more requests are likely free' : ''}.`,
      );
    }
    if (fleet) {
      const spent = fleet.spent === undefined ? 'an unknown number of requests (the window is not learnt yet)' : `${fleet.spent}${fleet.limit === undefined ? '' : ` of ${fleet.limit}`} requests`;
      lines.push(`Budget: shared in Redis at ${fleet.where}; the fleet spent ${spent} in the window; ${fleet.waiting} interactive ${fleet.waiting === 1 ? 'command' : 'commands'} waiting.`);
    }
    ctx.io.out(`${lines.join('\n')}\n`);
    return;
  }

  const report = rateReport(rate, now, fleet);
  // tsv has no row to show when nothing is known; json and ndjson print the nulls.
  if (known || format === 'json' || format === 'ndjson' || ctx.opts.jq !== undefined) await printer.add([report]);
  await printer.end('single');
}

/**
 * `rate-limit` when this run's token cannot be read: the last state of every token seen on
 * this machine (its budget files, newest first), each by the start of its fingerprint,
 * since hostctl cannot tell which of them is the profile's. Exit 0: nothing failed.
 */
async function storedRatesRun(ctx: Context, why: AuthError): Promise<void> {
  const format = ctx.outputFormat();
  const fields = ctx.opts.fields;
  const { createPrinter } = await import('../output/format.js');
  const printer = await createPrinter({ io: ctx.io, format, fields, jq: ctx.opts.jq, columns: ['token', 'limit', 'remaining', 'resetAt', 'resetInSeconds', 'seenAt'] });
  const { allRates } = await import('../http/budget.js');
  const now = ctx.clock.now();
  const rates = await allRates(ctx.state().path);
  ctx.io.note(`No token for this run can be read (${why.message.replace(/\.$/, '')}), so this is the last state of every token seen on this machine, by fingerprint.`);
  if (format === 'table' && !fields && ctx.opts.jq === undefined) {
    const lines = rates.map(({ fingerprint, rate }) => `Token sha256:${fingerprint.slice(0, 8)}…: ${formatRateLine(rate, now)} (seen ${ago(now - rate.seenAt)} ago)`);
    ctx.io.out(`${(lines.length > 0 ? lines : ['Rate limit: unknown (no state seen on this machine yet)']).join('\n')}\n`);
    return;
  }
  await printer.add(rates.map(({ fingerprint, rate }) => ({ token: `sha256:${fingerprint.slice(0, 8)}`, ...rateReport(rate, now) })));
  await printer.end('list');
}

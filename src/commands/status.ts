// `hostctl status [ap-…]`: the app at a glance (src/core/status.ts asks the question; the
// MCP tool app_status asks the same), as one screen on a terminal or one JSON object.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { findResource } from '../resources.js';
import { completes } from './hints.js';
import type { IO } from '../io.js';
import type { AppStatus } from '../core/status.js';
import { checkIds } from '../core/by-id.js';
import { command, withContext, type OptionsOf } from './define.js';
import { WATCH_INTERVAL } from './resource/watch-flags.js';

function statusDefinition() {
  return command('status')
    .description("The app at a glance: its environments, each one's latest deployment, its domains")
    .examples(['hostctl status', 'hostctl status ap-…', 'hostctl status --json', 'hostctl status --watch'])
    .seeAlso(['formatting', 'rate-limit'])
    .addArgument(completes(new Argument('[app]', 'the app (ap-…); default: the linked app ("hostctl link")'), { ids: 'apps' }))
    .option('--watch', 'fetch again every interval and redraw when something changed, until Ctrl-C')
    .option('--interval <duration>', WATCH_INTERVAL);
}

type StatusOptions = OptionsOf<typeof statusDefinition>;

export function statusCommand() {
  return statusDefinition().action(withContext(async (ctx, [app], opts) => statusRun(ctx, app, opts)));
}

/** The app a status or a list is of: the one named, else the linked one. */
function appOf(ctx: Context, given: string | undefined): string {
  const app = given ?? ctx.link()?.app;
  if (app === undefined) {
    throw new UsageError('status needs an app: this directory is not linked, and none was named.', 'Run "hostctl link ap-…" here (or "hostctl link" to pick one), or name it: hostctl status ap-….');
  }
  const apps = findResource('apps');
  if (apps) checkIds(apps, [app]);
  return app;
}

async function statusRun(ctx: Context, given: string | undefined, opts: StatusOptions): Promise<void> {
  const app = appOf(ctx, given);
  const format = ctx.outputFormat();
  const asData = format === 'json' || format === 'ndjson' || ctx.opts.jq !== undefined;
  const http = await ctx.http();
  const [{ appStatus }, { FilterCost }, { budgetForecast }] = await Promise.all([import('../core/status.js'), import('./resource/filter-cost.js'), import('./resource/relations.js')]);
  const { createPrinter } = await import('../output/format.js');
  const printData = async (status: AppStatus, into: IO) => {
    const printer = await createPrinter({ io: into, format: format === 'ndjson' ? 'ndjson' : 'json', jq: ctx.opts.jq });
    await printer.add([status]);
    await printer.end('single');
  };
  const render = async (status: AppStatus, into: IO) => (asData ? printData(status, into) : into.out(await screen(status, into, ctx.clock.now())));

  /** One status, with what each walk sent counted for -R (answers from the cache count nothing). */
  const ask = async (fresh: boolean, cost: InstanceType<typeof FilterCost>, onPage?: (what: string, n: number) => void) => {
    const foresee = await budgetForecast(ctx, http, `Status of ${app}`, fresh);
    let sent = http.requestCount;
    const counted = (what: string) => {
      const count = cost.count(what);
      return () => {
        for (; sent < http.requestCount; sent++) count();
      };
    };
    const apps = counted('apps');
    return appStatus(http, app, {
      fresh,
      onApp: apps,
      walking: (what, later) => {
        const response = counted(what);
        return {
          onResponse: response,
          onPage: (n, total, rest) => {
            if (n === 1) foresee(what, total, rest, later);
            onPage?.(what, n);
          },
        };
      },
    });
  };

  if (opts.watch) {
    const { watchRun } = await import('./resource/watch.js');
    let perRound = 1;
    const apps = findResource('apps');
    if (!apps) throw new Error('no apps resource');
    return watchRun(
      ctx,
      apps,
      async () => {
        const cost = new FilterCost();
        const status = await ask(true, cost);
        perRound = Math.max(1, cost.total());
        return [status];
      },
      {
        interval: opts.interval,
        shape: 'single',
        requestsPerRound: () => perRound,
        render: async (items, into) => {
          for (const item of items) await render(item as AppStatus, into);
        },
      },
    );
  }
  const spinner = await ctx.io.spinner(`Fetching the status of ${app}…`);
  const cost = new FilterCost();
  let status: AppStatus;
  try {
    status = await ask(false, cost, (what, n) => spinner.text(`Looking through ${what}… page ${n}`));
  } finally {
    spinner.stop();
  }
  await render(status, ctx.io);
  if (ctx.opts.rateLimit) ctx.io.stderr.write(`${cost.summary(`Status of ${app}`)}\n`);
}

/** The screen: the app, its environments with their latest deployments, its domains; each part a table of the output layer. */
async function screen(status: AppStatus, io: IO, now: number): Promise<string> {
  const [{ renderTable }, { NAME_FIELDS }] = await Promise.all([import('../output/table.js'), import('../resources.js')]);
  const table = (rows: readonly unknown[], defaults: readonly string[], references: readonly string[]) =>
    renderTable(rows, { defaults, width: io.columns, color: io.color, plain: io.accessible, now, nameFields: NAME_FIELDS, references });
  const envName = new Map(status.environments.map((e) => [e.publicId, e.name ?? e.publicId]));
  const parts = [table([{ publicId: status.app.publicId, name: status.app.name ?? '', status: status.app.status ?? '' }], ['name', 'status'], [])];
  if (status.environments.length === 0) parts.push('\nNo environments.\n');
  else {
    const rows = status.environments.map((e) => ({
      publicId: e.publicId,
      name: e.name ?? '',
      status: e.status ?? '',
      deployment: e.latestDeployment?.publicId ?? (e.note ? '?' : '-'),
      state: e.latestDeployment?.status ?? '',
      deployed: e.latestDeployment?.at ?? '',
    }));
    parts.push(`\n${table(rows, ['name', 'status', 'deployment', 'state', 'deployed'], ['deployment'])}`);
    const notes = [...new Set(status.environments.flatMap((e) => (e.note ? [e.note] : [])))];
    for (const note of notes) parts.push(`(${note})\n`);
  }
  if (status.domains.length === 0) parts.push('\nNo domains.\n');
  else {
    const rows = status.domains.map((d) => ({
      publicId: d.publicId ?? '',
      hostname: d.hostname ?? '',
      status: d.status ?? '',
      environment: d.environment === null ? '' : (envName.get(d.environment) ?? d.environment),
    }));
    parts.push(`\n${table(rows, ['hostname', 'status', 'environment'], [])}`);
  }
  return parts.join('');
}

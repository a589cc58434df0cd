// `hostctl docs`: where the API's generated reference lives ({base_url}/docs), opening it
// in a browser, `--operations`, the list of what the beta offers today (read from the
// reference as OpenAPI JSON, kept for a day: src/reference/), and `docs diff`, what the
// beta changed since the kept copy.

import type { Context } from '../context.js';
import { HostctlError, UsageError } from '../errors.js';
import type { Operation } from '../reference/operations.js';
import { command, withContext, type CommandUnknownOpts, type OptionsOf } from './define.js';

export function docsCommand(): CommandUnknownOpts {
  const docs = docsDefinition().action(withContext(async (ctx, _args, opts) => docsRun(ctx, opts)));
  docs.addCommand(diffDefinition().action(withContext(async (ctx, _args, opts) => docsDiffRun(ctx, opts))));
  return docs;
}

function docsDefinition() {
  return command('docs')
    .description('Print the URL of the generated API reference, list its operations, or show what changed')
    .examples(['hostctl docs', 'hostctl docs --operations', 'hostctl docs --operations --json | jq -r ".[].operationId"', 'hostctl docs --refresh', 'hostctl docs diff --exit-status'])
    .seeAlso(['formatting'])
    .option('--open', 'open the reference in the browser')
    .option('--operations', 'list method, path and summary of each operation (the reference is kept for a day)')
    .option('--refresh', 'fetch the reference again now and keep it');
}

export type DocsOptions = OptionsOf<typeof docsDefinition>;

function diffDefinition() {
  return command('diff')
    .description('Show operations added, removed and changed since the kept reference, then keep the current one')
    .examples(['hostctl docs diff', 'hostctl docs diff --json', 'hostctl docs diff --exit-status -o tsv   # in CI: fail when the beta changed'])
    .seeAlso(['formatting', 'exit-codes'])
    .option('--exit-status', 'exit 1 when something changed (for CI)');
}

export type DiffOptions = OptionsOf<typeof diffDefinition>;

export interface OperationRow {
  method: string;
  /** Relative to the base URL where it lies under it, so that `hostctl api <path>` takes it as is. */
  path: string;
  summary: string;
  operationId: string | null;
}

export function docsUrl(base: URL): string {
  return `${base.href.replace(/\/+$/, '')}/docs`;
}

async function docsRun(ctx: Context, o: DocsOptions): Promise<void> {
  if (o.open && (o.operations || o.refresh)) {
    throw new UsageError(`--open and ${o.operations ? '--operations' : '--refresh'} do different things; use one at a time.`, 'hostctl docs --open, or hostctl docs --operations.');
  }
  const url = docsUrl(ctx.baseUrl());
  if (o.operations) return listOperations(ctx, o.refresh === true);
  if (o.refresh) {
    const { refreshReference } = await import('../core/operations.js');
    const ref = await refreshReference(ctx.referenceStore());
    ctx.io.note(`Kept the reference of ${ref.baseUrl}: ${ref.operations.length} operations (${ref.hash.slice(0, 19)}…).`);
    return;
  }
  if (o.open) return openInBrowser(ctx, url);
  ctx.io.out(`${url}\n`);
}

async function listOperations(ctx: Context, refresh: boolean): Promise<void> {
  const format = ctx.outputFormat();
  const fields = ctx.opts.fields;
  // Before the request: a bad --jq is a usage error with nothing sent.
  const { createPrinter } = await import('../output/format.js');
  const printer = await createPrinter({ io: ctx.io, format, fields, columns: ['method', 'path', 'summary'], jq: ctx.opts.jq });
  const { currentReference, refreshReference } = await import('../core/operations.js');
  const ref = refresh ? await refreshReference(ctx.referenceStore()) : await currentReference(ctx.referenceStore());
  const rows = ref.operations.map(toRow);
  await printer.add(rows);
  await printer.end('list');
  if (rows.length === 0 && format === 'table' && ctx.opts.jq === undefined) ctx.io.note('The reference lists no operations.');
}

export function toRow(op: Operation): OperationRow {
  return { method: op.method, path: op.path, summary: op.summary, operationId: op.operationId };
}

/**
 * `docs diff`: the kept reference against the current one (one request), then the current
 * one is kept. With nothing kept yet there is nothing to compare: it says so and keeps it.
 */
async function docsDiffRun(ctx: Context, o: DiffOptions): Promise<void> {
  const format = ctx.outputFormat();
  const fields = ctx.opts.fields;
  const [{ diffReferences }, { refreshReference }] = await Promise.all([import('../reference/reference.js'), import('../core/operations.js')]);
  const { readKept } = await import('../reference/store.js');
  const { createPrinter } = await import('../output/format.js');
  const printer = await createPrinter({ io: ctx.io, format, fields, columns: ['change', 'operationId', 'method', 'path', 'details'], jq: ctx.opts.jq });
  const kept = readKept(ctx.baseUrl(), ctx.env);
  const current = await refreshReference(ctx.referenceStore());
  const rows = kept ? diffReferences(kept.operations, current.operations) : [];
  await printer.add(rows);
  await printer.end('list');
  if (!kept) {
    ctx.io.note(`No reference was kept for ${current.baseUrl} yet, so there is nothing to compare; kept the current one (${current.operations.length} operations) for the next "hostctl docs diff".`);
    return;
  }
  const since = new Date(kept.fetchedAt).toISOString();
  if (rows.length === 0) {
    ctx.io.note(`No operation changed since the copy kept at ${since}${kept.hash === current.hash ? '' : ' (the document itself did change)'}.`);
    return;
  }
  ctx.io.note(`${rows.length} operation${rows.length === 1 ? '' : 's'} changed since the copy kept at ${since}; the current one is kept now.`);
  // The rows are the message: exit 1 with nothing more on stderr.
  if (o.exitStatus) throw new HostctlError('');
}

/** Splits $BROWSER into words as a shell would for plain quoting: "my browser" --new-tab. */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (quote) throw new UsageError(`$BROWSER has an unclosed ${quote} quote.`, 'Fix BROWSER, or unset it to use the system browser.');
  if (started) words.push(word);
  return words;
}

function systemOpener(url: string): { cmd: string; args: string[] } {
  if (process.platform === 'darwin') return { cmd: 'open', args: [url] };
  // `start` is a cmd built-in; the empty title keeps a quoted URL from becoming the title.
  if (process.platform === 'win32') return { cmd: 'cmd', args: ['/c', 'start', '""', url.replace(/[&^|<>]/g, '^$&')] };
  return { cmd: 'xdg-open', args: [url] };
}

/** The browser (and whatever it starts) has no business with the token. */
function browserEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out.HOSTCTL_TOKEN;
  return out;
}

/**
 * $BROWSER is honoured as gh honours it: run with the URL as its last argument, on this
 * terminal, and waited for (a text browser such as w3m runs right here). The system
 * opener is started detached instead: xdg-open without a desktop may run the browser
 * itself in the foreground.
 */
async function openInBrowser(ctx: Context, url: string): Promise<void> {
  const browser = ctx.env.BROWSER?.trim();
  const words = browser ? splitCommand(browser) : [];
  const { cmd, args } = words.length > 0 ? { cmd: words[0]!, args: [...words.slice(1), url] } : systemOpener(url);
  const wait = words.length > 0;
  const from = wait ? `$BROWSER (${cmd})` : cmd;
  const fail = (why: string) =>
    new HostctlError(`Could not open a browser: ${why}.`, `Open ${url} yourself, or set BROWSER to your browser's command.`);

  ctx.io.note(`Opening ${url} in your browser.`);
  const { spawn } = await import('./child-process.js');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: wait ? 'inherit' : 'ignore',
      detached: !wait,
      env: browserEnv(ctx.env),
      windowsVerbatimArguments: process.platform === 'win32' && !wait,
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      reject(fail(err.code === 'ENOENT' ? `${from} was not found` : `${from} failed to start (${err.code ?? err.message})`));
    });
    if (wait) {
      child.once('exit', (code, signal) => {
        if (code === 0) resolve();
        else reject(fail(`${from} exited with ${signal ?? `code ${code}`}`));
      });
    } else {
      child.once('spawn', () => {
        child.unref();
        resolve();
      });
    }
  });
}

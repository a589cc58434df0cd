// `hostctl docs`: where the API's generated reference lives ({base_url}/docs), opening it
// in a browser, and `--operations`, the list of what the beta offers today, read from the
// reference as OpenAPI JSON.

import { spawn } from 'node:child_process';
import type { Context } from '../context.js';
import { ApiError, HostctlError, UsageError } from '../errors.js';

export interface DocsOptions {
  open?: boolean;
  operations?: boolean;
}

export interface OperationRow {
  method: string;
  /** Relative to the base URL where it lies under it, so that `hostctl api <path>` takes it as is. */
  path: string;
  summary: string;
  operationId: string | null;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function docsUrl(base: URL): string {
  return `${base.href.replace(/\/+$/, '')}/docs`;
}

export async function docsRun(ctx: Context, o: DocsOptions): Promise<void> {
  if (o.open && o.operations) {
    throw new UsageError('--open and --operations do different things; use one at a time.', 'hostctl docs --open, or hostctl docs --operations.');
  }
  const url = docsUrl(ctx.baseUrl());
  if (o.operations) return listOperations(ctx);
  if (o.open) return openInBrowser(ctx, url);
  ctx.io.out(`${url}\n`);
}

async function listOperations(ctx: Context): Promise<void> {
  const format = ctx.outputFormat();
  const fields = ctx.fields();
  const http = await ctx.http();
  // Before the request: a bad --jq is a usage error with nothing sent.
  const { createPrinter } = await import('../output/format.js');
  const printer = await createPrinter({ io: ctx.io, format, fields, columns: ['method', 'path', 'summary'], jq: ctx.opts.jq });
  const spinner = await ctx.io.spinner('Fetching the API reference…');
  let doc: unknown;
  let where: URL;
  try {
    const res = await http.request({ path: '/docs' });
    where = res.url;
    try {
      doc = res.json();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      throw new ApiError(
        `The reference at ${res.url.href} is not OpenAPI JSON (${err.message.replace(/^The API sent /, '').replace(/\.$/, '')}).`,
        `Read it in a browser: hostctl docs --open, or fetch it with: hostctl api /docs -H 'Accept: text/html'`,
        { status: res.status },
      );
    }
  } finally {
    spinner.stop();
  }
  const rows = operationsOf(doc, where, ctx.baseUrl());
  await printer.add(rows);
  await printer.end('list');
  if (rows.length === 0 && format === 'table' && ctx.opts.jq === undefined) ctx.io.note('The reference lists no operations.');
}

/** The operations of an OpenAPI 3 (or Swagger 2) document: paths in the document's order, methods in METHODS order. */
export function operationsOf(doc: unknown, docUrl: URL, base: URL): OperationRow[] {
  if (!isRecord(doc) || !isRecord(doc.paths)) {
    throw new ApiError(
      `The reference at ${docUrl.href} is JSON but not an OpenAPI document (it has no "paths").`,
      "See it whole with: hostctl api /docs",
    );
  }
  const prefix = serverPath(doc, docUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const rows: OperationRow[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    if (!isRecord(item)) continue;
    let path = `${prefix}/${template.replace(/^\/+/, '')}`;
    if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) path = path.slice(basePath.length) || '/';
    for (const method of METHODS) {
      const op = item[method];
      if (!isRecord(op)) continue;
      const description = typeof op.description === 'string' ? (op.description.trim().split('\n')[0] ?? '') : '';
      rows.push({
        method: method.toUpperCase(),
        path,
        summary: typeof op.summary === 'string' ? op.summary : description,
        operationId: typeof op.operationId === 'string' ? op.operationId : null,
      });
    }
  }
  return rows;
}

/** The path the document's paths hang from: servers[0].url (OpenAPI 3) or basePath (Swagger 2). */
function serverPath(doc: Record<string, unknown>, docUrl: URL): string {
  let raw: string | undefined;
  if (Array.isArray(doc.servers) && isRecord(doc.servers[0]) && typeof doc.servers[0].url === 'string') {
    const server = doc.servers[0];
    const vars = isRecord(server.variables) ? server.variables : {};
    raw = (server.url as string).replace(/\{([^}]*)\}/g, (_m, name: string) => {
      const v = vars[name];
      return isRecord(v) && typeof v.default === 'string' ? v.default : '';
    });
  } else if (typeof doc.basePath === 'string') {
    raw = doc.basePath;
  }
  if (raw === undefined) return '';
  try {
    return new URL(raw, docUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
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
  await new Promise<void>((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: wait ? 'inherit' : 'ignore',
      detached: !wait,
      env: ctx.env,
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

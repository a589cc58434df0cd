// `hostctl api <path>`, in the manner of `gh api`: every endpoint, also the ones the beta
// adds tomorrow, through the same HTTP core (token, rate limit, redirects, typed errors)
// and the same output layer as every other command.

import { promises } from 'node:fs';
import { Argument, Option } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { ApiError, UsageError } from '../errors.js';
import type { ApiRequest, ApiResponse, HttpClient } from '../http/client.js';
import type { IO } from '../io.js';
import type { InStream } from '../runtime.js';
import type { OutputFormat } from '../config/config.js';
import { tooDeepError } from '../http/failures.js';
import { isJsonType } from '../http/media-type.js';
import { JsonNumber, JsonTooDeepError, parseJson, setMember, stringifyJson } from '../output/json.js';
import { oneLine, sanitize } from '../output/sanitize.js';
import type { Printer } from '../output/printer.js';
import { isRecord } from '../json/narrow.js';
import { completes } from './hints.js';
import { collect, command, withContext, type CommandUnknownOpts, type OptionsOf } from './define.js';

export function apiCommand(): CommandUnknownOpts {
  return apiDefinition().action(withContext(async (ctx, [path], opts) => apiRun(ctx, path, opts)));
}

function apiDefinition() {
  return command('api')
    .description('Call any endpoint with the same auth, rate-limit handling and output')
    .examples([
      'hostctl api /apps',
      "hostctl api '/apps?publicId[]=ap-…' --json | jq '.[0].name'",
      'hostctl api /apps --paginate -o ndjson',
      'hostctl api -X POST /apps -f name=demo -F replicas=2',
      'hostctl api /docs -i',
      'hostctl api getApp -f publicId=ap-…   # method and path from the reference (hostctl docs --operations)',
      'hostctl api listApps -f itemsPerPage=5',
    ])
    .seeAlso(['formatting', 'rate-limit', 'exit-codes'])
    .addArgument(
      completes(
        new Argument('<path|operationId>', "path relative to the base URL (/apps), an absolute URL of the same origin, or an operation's name from the reference (getApp)"),
        'api-targets',
      ),
    )
    .addOption(
      completes(new Option('-X, --method <method>', "HTTP method (default GET, or POST with fields or input; an operationId's from the reference)"), {
        values: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      }),
    )
    .option('-f, --raw-field <key=value>', 'add a string field (repeatable)', collect, [] as string[])
    .option('-F, --field <key=value>', 'add a typed field: numbers, true/false, null, @file (repeatable)', collect, [] as string[])
    .addOption(completes(new Option('--input <file>', 'the request body from a file, or - for stdin'), 'files'))
    .option('-H, --header <"Name: value">', 'add a request header (repeatable)', collect, [] as string[])
    .option('-i, --include', 'print the status line and headers before the body')
    .addOption(new Option('--paginate', 'follow next pages and concatenate the arrays'));
}

export type ApiOptions = OptionsOf<typeof apiDefinition>;

const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** One -f / -F as typed: the key, and the value still as text (or none: `key[]`). */
interface FieldArg {
  flag: '-f' | '-F';
  raw: string;
  key: string;
  /** undefined: the `key[]` form without `=`, an empty array. */
  text: string | undefined;
}

const EMPTY_ARRAY = Symbol('empty array');

/** A field's value: a string (-f, -F text or @file), or a typed -F value. */
type FieldValue = string | number | boolean | null | JsonNumber | typeof EMPTY_ARRAY;

/** A key path: `name`, then `[sub]` (an object member) or `[]` (an array element). */
type KeySegment = { kind: 'member'; name: string } | { kind: 'append' };

function parseFieldArg(flag: '-f' | '-F', raw: string): FieldArg {
  const eq = raw.indexOf('=');
  if (eq === -1) {
    // gh's form for an empty array: `-F 'tags[]'`.
    if (/^[^=]+\[\]$/.test(raw)) return { flag, raw, key: raw, text: undefined };
    throw new UsageError(`${flag} "${raw}" is not key=value.`, `For example: ${flag} name=demo`);
  }
  const key = raw.slice(0, eq);
  if (key.trim() === '') throw new UsageError(`${flag} "${raw}" has no key before "=".`, `For example: ${flag} name=demo`);
  return { flag, raw, key, text: raw.slice(eq + 1) };
}

function parseKeyPath(arg: FieldArg): { name: string; rest: KeySegment[] } {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(arg.key);
  if (!m) {
    throw new UsageError(
      `${arg.flag} "${arg.raw}": the key "${arg.key}" is malformed.`,
      'Use name, name[sub] for a nested object, or name[] for an array element.',
    );
  }
  const rest: KeySegment[] = [];
  for (const part of (m[2] ?? '').matchAll(/\[([^[\]]*)\]/g)) {
    const name = part[1] ?? '';
    rest.push(name === '' ? { kind: 'append' } : { kind: 'member', name });
  }
  return { name: m[1]!, rest };
}

/** `-F` typing, as gh does: true, false, null, numbers; `@file` is read later. */
function typedValue(text: string): FieldValue {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/.test(text)) {
    // The lossless parser keeps 12345678901234567890 exact (as its text) on the way out.
    const n = parseJson(text);
    if (typeof n === 'number' || n instanceof JsonNumber) return n;
  }
  return text;
}

function conflict(arg: FieldArg, what: string): UsageError {
  return new UsageError(`${arg.flag} "${arg.raw}": ${what}.`, 'Give each key once; use name[] to build an array.');
}

/** Sets one field into the body object, building nested objects and arrays as gh does. */
function assign(obj: Record<string, unknown>, name: string, rest: readonly KeySegment[], value: FieldValue, arg: FieldArg): void {
  const has = Object.prototype.hasOwnProperty.call(obj, name);
  const [next, ...after] = rest;
  if (!next) {
    if (has) throw conflict(arg, `"${name}" is given more than once`);
    setMember(obj, name, value === EMPTY_ARRAY ? [] : value);
    return;
  }
  if (next.kind === 'append') {
    const current = has ? obj[name] : [];
    if (!Array.isArray(current)) throw conflict(arg, `"${name}" is already a value, not an array`);
    if (!has) setMember(obj, name, current);
    const [member, ...deeper] = after;
    if (!member) {
      if (value !== EMPTY_ARRAY) current.push(value);
      return;
    }
    if (member.kind === 'append') throw conflict(arg, 'arrays of arrays are not supported');
    // `items[][name]=a -F items[][size]=1`: members go into the last object until one
    // repeats, which starts the next object.
    let last = current[current.length - 1];
    const repeats = isRecord(last) && deeper.length === 0 && Object.prototype.hasOwnProperty.call(last, member.name);
    if (!isRecord(last) || repeats) {
      last = {};
      current.push(last);
    }
    assign(last as Record<string, unknown>, member.name, deeper, value, arg);
    return;
  }
  const child = has ? obj[name] : {};
  if (!isRecord(child)) throw conflict(arg, `"${name}" is already a value, not an object`);
  if (!has) setMember(obj, name, child);
  assign(child, next.name, after, value, arg);
}

function parseHeaders(raw: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const names: Record<string, string> = {};
  for (const line of raw) {
    // Never echoed as typed: a line break in it would split the message across lines.
    if (/[\r\n]/.test(line)) throw new UsageError(`The header -H ${oneLine(line, 60)} contains a line break.`, 'Give each header on one line.');
    const m = /^([^:]+):[ \t]*(.*)$/.exec(line);
    const name = m?.[1]?.trim();
    if (!m || !name) throw new UsageError(`-H ${oneLine(line, 60)} is not a header.`, "Write it as -H 'Name: value'.");
    const lower = name.toLowerCase();
    const value = (m[2] ?? '').trim();
    // Repeated headers are joined as HTTP allows; the first spelling of the name is kept.
    const known = names[lower];
    if (known !== undefined) headers[known] = `${headers[known]}, ${value}`;
    else {
      names[lower] = name;
      headers[name] = value;
    }
  }
  return headers;
}

/** stdin is read once per run, however many of -F @- and --input - ask for it. */
const stdinReads = new WeakMap<object, Promise<Buffer>>();
function readStdin(stdin: InStream): Promise<Buffer> {
  let read = stdinReads.get(stdin);
  if (!read) {
    read = (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      return Buffer.concat(chunks);
    })();
    stdinReads.set(stdin, read);
  }
  return read;
}

async function readSource(ctx: Context, source: string, what: string): Promise<Buffer> {
  if (source === '-') return readStdin(ctx.io.stdin);
  if (source === '') throw new UsageError(`${what} names no file.`, 'Give a file name, or - for stdin.');
  try {
    // fs.promises loads on first use; a static import of node:fs/promises would load it on every run.
    return await promises.readFile(source);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new UsageError(`Cannot read "${source}" for ${what}: ${why}.`, 'Check the path (relative to the current directory).');
  }
}

function canonicalHeaderName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/**
 * A path (`/apps`, also `apps/ap-1`) and a URL (`https://…`) have a slash; so does a path
 * spelt to hide one (`..`, `..%2fx`, `..\\x`), which no operation's name looks like. Any
 * other word is an operation's name from the reference.
 */
function isOperationName(arg: string): boolean {
  return !/[/\\%]|^\s*\./.test(arg);
}

/**
 * `api <operationId>`: method and path from the API's reference; the fields named like a
 * path parameter fill it, the rest go on as fields. A missing one is a usage error before
 * anything is sent to the operation (the reference itself may have been fetched).
 */
async function operationTarget(
  ctx: Context,
  name: string,
  args: FieldArg[],
  o: ApiOptions,
): Promise<{ method: string; rest: FieldArg[]; path: (read: (a: FieldArg) => Promise<string>) => Promise<string> }> {
  const [{ checkPathParameters, findOperation, operationLabel, operationRequest }, { pathParameters, shown: safe }] = await Promise.all([import('../core/operations.js'), import('../reference/operations.js')]);
  const op = await findOperation(ctx.referenceStore(), name);
  const shown = operationLabel(op);
  if (o.method !== undefined && o.method.trim().toUpperCase() !== op.method) {
    throw new UsageError(`-X ${o.method} does not go with ${shown}: the reference gives its method.`, `Leave out -X, or call the path: hostctl api -X ${o.method} ${safe(op.path)}`);
  }
  if (o.paginate && op.method !== 'GET') throw new UsageError(`--paginate fetches pages with GET, and ${shown} is not a GET.`, 'Leave out --paginate.');
  const params = pathParameters(op);
  const given = args.filter((a) => params.includes(a.key));
  const hint = (missing: readonly string[]) => `Give ${missing.length === 1 ? 'it' : 'them'} with -f: hostctl api ${safe(name)} ${missing.map((m) => `-f ${m}=…`).join(' ')}`;
  checkPathParameters(op, new Set(given.map((a) => a.key)), hint);
  for (const p of params) {
    if (given.filter((a) => a.key === p).length > 1) throw conflict(given.find((a) => a.key === p)!, `the path parameter "${p}" is given more than once`);
  }
  return {
    method: op.method,
    rest: args.filter((a) => !params.includes(a.key)),
    async path(read) {
      const values = new Map<string, string>();
      for (const a of given) values.set(a.key, await read(a));
      return operationRequest(op, values, ctx.baseUrl(), hint).path;
    },
  };
}

async function apiRun(ctx: Context, path: string, o: ApiOptions): Promise<void> {
  const args = parseArguments(ctx, path, o);
  const call = await buildRequest(ctx, args, o);
  await sendAndPrint(ctx, call, args, o);
}

/** The command line, checked before anything is read or sent. */
interface ApiArguments {
  path: string;
  /** -X, upper-cased. */
  method: string | undefined;
  /** -f and -F, in their order. */
  fields: FieldArg[];
  headers: Record<string, string>;
  format: OutputFormat;
  /** --fields. */
  only: string[] | undefined;
}

function parseArguments(ctx: Context, path: string, o: ApiOptions): ApiArguments {
  // Everything the user typed is checked before anything is read or sent.
  if (path.trim() === '') throw new UsageError('hostctl api needs a path.', 'For example: hostctl api /apps');
  const method = o.method?.trim().toUpperCase();
  if (method !== undefined && !METHOD.test(method)) {
    throw new UsageError(`-X "${o.method ?? ''}" is not an HTTP method.`, 'Use GET, POST, PUT, PATCH or DELETE.');
  }
  if (o.paginate && method !== undefined && method !== 'GET') {
    throw new UsageError(`--paginate fetches pages with GET, not ${method}.`, 'Leave out -X, or leave out --paginate.');
  }
  if (o.paginate && o.input !== undefined) {
    throw new UsageError('--paginate sends no request body, so --input cannot be used with it.', 'Pass query parameters with -f key=value instead.');
  }
  const fields = [...o.rawField.map((r) => parseFieldArg('-f', r)), ...o.field.map((r) => parseFieldArg('-F', r))];
  const stdinUsers = fields.filter((a) => a.flag === '-F' && a.text === '@-').length + (o.input === '-' ? 1 : 0);
  if (stdinUsers > 1) throw new UsageError('Only one of --input - and -F key=@- can read stdin.', 'Put the other value in a file.');
  const headers = parseHeaders(o.header);

  // `api` prints JSON unless a format is asked for on the command line, whatever the
  // terminal or the profile's default: scripts pipe it into jq.
  const format: OutputFormat = ctx.opts.output ?? 'json';
  return { path, method, fields, headers, format, only: ctx.opts.fields };
}

/** A request ready to send, and the client to send it with. */
interface ApiCall {
  http: HttpClient;
  req: ApiRequest;
  method: string;
  path: string;
}

/**
 * The request the arguments ask for: an operation's method and path from the reference,
 * the fields in the query or the JSON body, the files and stdin they name read.
 */
async function buildRequest(ctx: Context, a: ApiArguments, o: ApiOptions): Promise<ApiCall> {
  let { path, fields: args } = a;
  const named = isOperationName(path) ? await operationTarget(ctx, path.trim(), args, o) : undefined;
  if (named) args = named.rest;
  const method = named?.method ?? a.method ?? (o.paginate ? 'GET' : args.length > 0 || o.input !== undefined ? 'POST' : 'GET');
  // As gh: fields go to the query string for GET and HEAD, and when --input is the body.
  const inQuery = method === 'GET' || method === 'HEAD' || o.input !== undefined;
  const paths = inQuery ? undefined : args.map(parseKeyPath);

  // Another origin, or a path that climbs out of the base URL's, is refused here: before
  // the token is looked up, any file or stdin is read, or a request is sent.
  if (!named) (await import('../http/origin.js')).resolveUrl(ctx.baseUrl(), path);
  const http = await ctx.http();

  const readValue = async (f: FieldArg): Promise<FieldValue> => {
    if (f.text === undefined) return EMPTY_ARRAY;
    if (f.flag === '-F' && f.text.startsWith('@')) return (await readSource(ctx, f.text.slice(1), `-F ${f.key}`)).toString('utf8');
    return f.flag === '-F' ? typedValue(f.text) : f.text;
  };
  if (named) path = await named.path(async (f) => String(await readValue(f)));
  const values: FieldValue[] = [];
  for (const f of args) values.push(await readValue(f));

  const req: ApiRequest = { method, path, headers: a.headers };
  if (inQuery) {
    const query: [string, string][] = [];
    args.forEach((f, i) => {
      const v = values[i];
      if (v === EMPTY_ARRAY) return;
      query.push([f.key, v === null ? '' : String(v)]);
    });
    req.query = query;
    if (o.input !== undefined) req.body = await readSource(ctx, o.input, '--input');
  } else if (args.length > 0) {
    const body: Record<string, unknown> = {};
    args.forEach((f, i) => {
      const { name, rest } = paths![i]!;
      assign(body, name, rest, values[i]!, f);
    });
    req.body = stringifyJson(body);
  }
  return { http, req, method, path };
}

/** Sends the request (every page of it with --paginate) and prints what comes back. */
async function sendAndPrint(ctx: Context, { http, req, method, path }: ApiCall, a: ApiArguments, o: ApiOptions): Promise<void> {
  const { createPrinter } = await import('../output/format.js');
  const printer = await createPrinter({ io: ctx.io, format: a.format, fields: a.only, jq: ctx.opts.jq, shape: o.paginate ? 'list' : undefined });
  const head = o.include ? (res: ApiResponse) => printHead(ctx.io, http, res) : undefined;
  const label = `${method} ${oneLine(path, 60)}`;
  const spinner = await ctx.io.spinner(`${label}…`);

  if (o.paginate) {
    const { walkPages } = await import('../http/paging.js');
    // A page that is not 2xx ends the walk with the command's exit code, as `list` does.
    try {
      for await (const items of walkPages(http, req, {
        all: true,
        onResponse: (res) => {
          if (!head) return;
          spinner.stop();
          head(res);
        },
        onPage: (pages, n) => spinner.text(`${label}… page ${pages}, ${n} so far`),
      })) {
        await printer.add(items);
      }
    } finally {
      spinner.stop();
    }
    await printer.end('list');
    return;
  }

  let res: ApiResponse;
  try {
    // Any status is answered with its body, as gh does; the exit code still says what it was.
    res = await http.request({ ...req, acceptAnyStatus: true });
  } finally {
    spinner.stop();
  }
  head?.(res);
  await printBody(ctx.io, http, res, a.format, printer);
  const failed = http.errorFor(res);
  if (failed) throw failed;
}

/** `-i`: the status line and headers, as curl -i and gh api -i show them, on stdout. */
function printHead(io: IO, http: HttpClient, res: ApiResponse): void {
  const clean = (s: string) => sanitize(s.replace(/\t/g, ' '));
  const lines = [`HTTP/1.1 ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`];
  for (const [name, value] of Object.entries(res.headers)) lines.push(`${canonicalHeaderName(name)}: ${clean(value)}`);
  // Plain \n, not the wire's \r\n: the lines are for grep and cut.
  io.out(`${lines.join('\n')}\n\n`);
}

async function printBody(
  io: IO,
  http: HttpClient,
  res: ApiResponse,
  format: OutputFormat,
  printer: Printer,
): Promise<void> {
  // The token a server echoes is replaced by the sink (io.ts), after JSON is decoded and
  // printed again, so an escaped form (\u0068…) is caught as well as the plain one.
  const text = res.text.replace(/^\uFEFF/, '');
  if (text === '') return;
  const type = res.headers['content-type'];
  const where = `${res.url.pathname}${res.url.search}`;
  const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    // hostctl asks for no encoding and decodes none: the bytes would be garbage on a terminal.
    throw new ApiError(
      `The API sent a compressed body (${oneLine(encoding, 40)}) for ${where}, which hostctl did not ask for; nothing was printed.`,
      'The server is at fault; run with --verbose to see the exchange.',
      { status: res.status },
    );
  }
  let value: { v: unknown } | undefined;
  if (type === undefined || isJsonType(type)) {
    try {
      value = { v: parseJson(text) };
    } catch (err) {
      if (err instanceof JsonTooDeepError) throw tooDeepError(where, res.status);
      // Said to be JSON but is not: printing it would hand a script (jq) broken input.
      if (type !== undefined) {
        throw new ApiError(
          `The API sent invalid or incomplete JSON for ${where} (${text.length} characters, ${oneLine(type, 60)}); nothing was printed.`,
          'Run with --verbose to see the exchange, or -i to see the headers.',
          { status: res.status },
        );
      }
      value = undefined;
    }
  }
  if (!value) {
    // Not JSON (the HTML reference, plain text): printed as it came. On a terminal,
    // control sequences are removed, as everywhere else.
    if (format !== 'json') io.note(`The response is ${type ? type.split(';')[0] : 'not JSON'}; printing it as it came.`);
    if (io.stdoutIsTTY) {
      const safe = text
        .split('\n')
        .map((line) => sanitize(line.replace(/\r$/, '').replace(/\t/g, '    ')))
        .join('\n');
      io.out(safe.endsWith('\n') ? safe : `${safe}\n`);
    } else {
      io.out(text);
    }
    return;
  }
  if (Array.isArray(value.v)) {
    await printer.add(value.v);
    await printer.end('list');
  } else {
    await printer.add([value.v]);
    await printer.end('single');
  }
}

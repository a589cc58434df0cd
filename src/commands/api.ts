// `hostctl api <path>`, in the manner of `gh api`: every endpoint, also the ones the beta
// adds tomorrow, through the same HTTP core (token, rate limit, redirects, typed errors)
// and the same output layer as every other command.

import { readFile } from 'node:fs/promises';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { ApiRequest, ApiResponse, HttpClient } from '../http/client.js';
import type { IO } from '../io.js';
import type { OutputFormat } from '../config/config.js';
import { isJsonType, oneLine, scrub, statusError } from '../http/errors.js';
import { JsonNumber, parseJson, setMember, stringifyJson } from '../output/json.js';
import { sanitize } from '../output/sanitize.js';
import type { Printer } from '../output/format.js';

export interface ApiOptions {
  method?: string;
  rawField: string[];
  field: string[];
  input?: string;
  header: string[];
  include?: boolean;
  paginate?: boolean;
}

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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
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
    const m = /^([^:]+):[ \t]*(.*)$/.exec(line);
    const name = m?.[1]?.trim();
    if (!m || !name) throw new UsageError(`-H "${line}" is not a header.`, "Write it as -H 'Name: value'.");
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

let stdinRead: Promise<Buffer> | undefined;
function readStdin(): Promise<Buffer> {
  return (stdinRead ??= (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks);
  })());
}

async function readSource(source: string, what: string): Promise<Buffer> {
  if (source === '-') return readStdin();
  if (source === '') throw new UsageError(`${what} names no file.`, 'Give a file name, or - for stdin.');
  try {
    return await readFile(source);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new UsageError(`Cannot read "${source}" for ${what}: ${why}.`, 'Check the path (relative to the current directory).');
  }
}

function canonicalHeaderName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

export async function apiRun(ctx: Context, path: string, o: ApiOptions): Promise<void> {
  // Everything the user typed is checked before anything is read or sent.
  if (path.trim() === '') throw new UsageError('hostctl api needs a path.', 'For example: hostctl api /apps');
  const explicit = o.method?.trim().toUpperCase();
  if (explicit !== undefined && !METHOD.test(explicit)) {
    throw new UsageError(`-X "${o.method ?? ''}" is not an HTTP method.`, 'Use GET, POST, PUT, PATCH or DELETE.');
  }
  if (o.paginate && explicit !== undefined && explicit !== 'GET') {
    throw new UsageError(`--paginate fetches pages with GET, not ${explicit}.`, 'Leave out -X, or leave out --paginate.');
  }
  if (o.paginate && o.input !== undefined) {
    throw new UsageError('--paginate sends no request body, so --input cannot be used with it.', 'Pass query parameters with -f key=value instead.');
  }
  const args = [...o.rawField.map((r) => parseFieldArg('-f', r)), ...o.field.map((r) => parseFieldArg('-F', r))];
  const stdinUsers = args.filter((a) => a.flag === '-F' && a.text === '@-').length + (o.input === '-' ? 1 : 0);
  if (stdinUsers > 1) throw new UsageError('Only one of --input - and -F key=@- can read stdin.', 'Put the other value in a file.');
  const headers = parseHeaders(o.header);

  const method = explicit ?? (o.paginate ? 'GET' : args.length > 0 || o.input !== undefined ? 'POST' : 'GET');
  // As gh: fields go to the query string for GET and HEAD, and when --input is the body.
  const inQuery = method === 'GET' || method === 'HEAD' || o.input !== undefined;
  const paths = inQuery ? undefined : args.map(parseKeyPath);

  // `api` prints JSON unless a format is asked for on the command line, whatever the
  // terminal or the profile's default: scripts pipe it into jq.
  const format: OutputFormat = ctx.opts.json === true || ctx.opts.output !== undefined ? ctx.outputFormat() : 'json';
  const fieldsFlag = ctx.fields();

  const http = await ctx.http();
  // Another origin is refused here, before any file or stdin is read and before a request.
  http.resolveUrl(path);

  const values: FieldValue[] = [];
  for (const a of args) {
    if (a.text === undefined) values.push(EMPTY_ARRAY);
    else if (a.flag === '-F' && a.text.startsWith('@')) values.push((await readSource(a.text.slice(1), `-F ${a.key}`)).toString('utf8'));
    else values.push(a.flag === '-F' ? typedValue(a.text) : a.text);
  }

  const req: ApiRequest = { method, path, headers };
  if (inQuery) {
    const query: [string, string][] = [];
    args.forEach((a, i) => {
      const v = values[i];
      if (v === EMPTY_ARRAY) return;
      query.push([a.key, v === null ? '' : String(v)]);
    });
    req.query = query;
    if (o.input !== undefined) req.body = await readSource(o.input, '--input');
  } else if (args.length > 0) {
    const body: Record<string, unknown> = {};
    args.forEach((a, i) => {
      const { name, rest } = paths![i]!;
      assign(body, name, rest, values[i]!, a);
    });
    req.body = stringifyJson(body);
  }

  const { createPrinter } = await import('../output/format.js');
  const printer = await createPrinter({ io: ctx.io, format, fields: fieldsFlag, jq: ctx.opts.jq, shape: o.paginate ? 'list' : undefined });
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
        await printer.add(items.map((item) => scrubValue(item, http.options.token.value)));
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
  await printBody(ctx.io, http, res, format, printer);
  if (res.status < 200 || res.status > 299) {
    throw statusError({
      status: res.status,
      statusText: res.statusText,
      method,
      url: res.url,
      text: res.text,
      contentType: res.headers['content-type'],
      token: http.options.token.value,
      tokenSent: res.url.origin === http.options.baseUrl.origin,
    });
  }
}

/** `value` with the token replaced in every string, keys included (see printBody). */
function scrubValue(value: unknown, token: string): unknown {
  if (typeof value === 'string') return scrub(value, token);
  if (Array.isArray(value)) return value.map((v: unknown) => scrubValue(v, token));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setMember(out, scrub(k, token), scrubValue(v, token));
  return out;
}

/** `-i`: the status line and headers, as curl -i and gh api -i show them, on stdout. */
function printHead(io: IO, http: HttpClient, res: ApiResponse): void {
  const clean = (s: string) => sanitize(scrub(s, http.options.token.value).replace(/\t/g, ' '));
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
  // Only `auth token` prints the token: a server that echoes it (in an error, say) does
  // not get it onto the screen or into a CI log.
  const text = scrub(res.text, http.options.token.value).replace(/^\uFEFF/, '');
  if (text === '') return;
  const type = res.headers['content-type'];
  let value: { v: unknown } | undefined;
  if (type === undefined || isJsonType(type)) {
    try {
      value = { v: parseJson(text) };
    } catch {
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

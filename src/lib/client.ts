// The library face: createClient() puts the CLI's own Context (settings, token, lockout
// guard, budget, cache, fleet store) behind typed methods that return data. Its runtime
// writes nowhere: its stdout is discarded, and what the CLI would print as a warning on
// stderr reaches onWarning. The questions are the core's, so each costs what its command
// costs; what this file adds is their shape for a program: values, iteration, one error
// class with the `--json` codes, and the token scrubbed from everything it hands back.

import { Readable, Writable } from 'node:stream';
import { Context } from '../context.js';
import { systemClock } from '../runtime.js';
import type { GlobalOptions } from '../global-options.js';
import { errorData, InterruptedError, NotFoundError, UsageError, type ErrorCode as InternalErrorCode } from '../errors.js';
import { emptyOptionError } from '../config/resolve.js';
import { parseDuration, parseInterval, parseSeconds } from '../config/duration.js';
import { findResource, RESOURCES, type Resource } from '../resources.js';
import { releaseSinks } from '../io.js';
import { isJsonNumber, stripJsonLd } from '../output/json.js';
import type { HttpClient } from '../http/client.js';
import { rateReport, type RateReport } from '../core/rate.js';
import { appStatus, type AppStatus as InternalStatus } from '../core/status.js';
import { relationFilter, walk, type RelationFilter as InternalFilter } from '../core/relations.js';
import { checkIds, fetchByIds, keepListed } from '../core/by-id.js';
import { DEFAULT_DEADLINE_MS, DEFAULT_INTERVAL_MS, parseCondition, waitUntil } from '../core/wait.js';
import { HostctlError } from './errors.js';
import type { ApiObject, ApiResponse, AppStatus, Client, ClientOptions, ErrorCode, GetManyResult, ListOptions, RateLimitState, RequestOptions, ResourceName, WaitOptions } from './types.js';

/** The public codes are the CLI's: a code added to one and not the other fails to compile. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
/** Also an optional field on one side only: structural typing alone lets it pass. */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
void (true satisfies Same<ErrorCode, InternalErrorCode>);
// And the status and the rate report are the core's, field for field (types.ts, which the
// declarations are emitted from, imports nothing, so it spells them out).
void (true satisfies Same<AppStatus, InternalStatus>);
void (true satisfies Same<RateLimitState, RateReport>);

/**
 * A client with the settings of `options`, resolved as the CLI resolves its flags
 * (option > environment > profile > default). The token is looked up, and the lockout
 * guard asked, before it resolves: a client that cannot send anything fails here.
 */
export async function createClient(options: ClientOptions = {}): Promise<Client> {
  const warn = options.onWarning ?? ((message: string) => process.emitWarning(message, 'HostctlWarning'));
  const stderr = warningSink(warn);
  const stdout = new Writable({ write: (_chunk, _encoding, done) => done() });
  let ctx: Context | undefined;
  const scrub = (text: string) => ctx?.io.secrets.scrub(text) ?? text;
  try {
    const env = settingsEnv(options);
    ctx = new Context(globalOptions(options, env), { env, stdin: Readable.from([]), stdout, stderr, clock: systemClock, cwd: process.cwd() });
    // A program's requests wait behind a person's, and a link file in the working
    // directory (a person's shortcut) does not steer a program.
    ctx.batch = true;
    ctx.ignoreLink = true;
    await ctx.http();
  } catch (err) {
    await ctx?.finish(false);
    releaseSinks(stdout, stderr);
    throw publicError(err, scrub);
  }
  return makeClient(ctx, () => releaseSinks(stdout, stderr));
}

/** The environment the settings are read from, with the options that stand in for variables. */
function settingsEnv(o: ClientOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...(o.env ?? process.env) };
  if (o.token !== undefined) {
    if (o.token.trim() === '') throw new UsageError('The option token is empty.', 'Give the token, or leave the option out to use HOSTCTL_TOKEN or the profile\'s.');
    env.HOSTCTL_TOKEN = o.token;
  }
  if (o.redisUrl !== undefined) {
    if (o.redisUrl.trim() === '') throw emptyOptionError('redisUrl');
    env.HOSTCTL_REDIS_URL = o.redisUrl;
  }
  return env;
}

/** The options as the CLI's global flags: a program is quiet, JSON and a batch job. */
function globalOptions(o: ClientOptions, env: NodeJS.ProcessEnv): GlobalOptions {
  const cache = o.cache === undefined ? (env.HOSTCTL_CACHE ? parseDuration(env.HOSTCTL_CACHE, 'HOSTCTL_CACHE') : undefined) : parseDuration(String(o.cache), 'cache');
  return {
    baseUrl: o.baseUrl,
    profile: o.profile,
    // JSON: a warning is written as a JSON line, which warningSink reads back exactly.
    output: 'json',
    rateLimit: false,
    wait: true,
    maxWaitMs: parseSeconds(o.maxWait === undefined ? undefined : String(o.maxWait), 'maxWait', 120) * 1000,
    cacheMs: cache,
    timeoutMs: 30_000,
    verbose: false,
    quiet: true,
    color: false,
    dryRun: false,
    accessible: false,
    interactive: false,
  };
}

/**
 * The run's stderr: each line is a warning the CLI would have printed (as a JSON line,
 * scrubbed by the IO's guard on the way), handed to `warn` as its message.
 */
function warningSink(warn: (message: string) => void): Writable {
  let held = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      held += chunk.toString();
      let end: number;
      while ((end = held.indexOf('\n')) !== -1) {
        const line = held.slice(0, end);
        held = held.slice(end + 1);
        if (line.trim() !== '') warn(warningText(line));
      }
      done();
    },
  });
}

function warningText(line: string): string {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed === 'object' && parsed !== null && 'warning' in parsed) {
      const { warning } = parsed;
      if (typeof warning === 'object' && warning !== null && 'message' in warning && typeof warning.message === 'string') return warning.message;
    }
  } catch {
    // Not a JSON line: said as it came.
  }
  return line.replace(/^hostctl: (warning: )?/, '');
}

/** Any failure as the public HostctlError, its texts scrubbed of the token. */
function publicError(err: unknown, scrub: (text: string) => string): HostctlError {
  if (err instanceof HostctlError) return err;
  const data = errorData(err);
  return new HostctlError({
    ...data,
    message: scrub(data.message),
    ...(data.hint === undefined ? {} : { hint: scrub(data.hint) }),
    // IDs as given: a token pasted where an ID goes comes back here.
    ...(data.ids === undefined ? {} : { ids: data.ids.map(scrub) }),
    ...(data.unmet === undefined ? {} : { unmet: Object.fromEntries(Object.entries(data.unmet).map(([id, v]) => [scrub(id), v])) }),
  });
}

/** A value as JSON.parse gives it: a number it would round arrives rounded, as there. */
function plain(value: unknown): unknown {
  if (isJsonNumber(value)) return Number(value.text);
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = plain(v);
  return out;
}

function apiObject(item: unknown): ApiObject {
  const value = plain(stripJsonLd(item));
  return (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { value }) as ApiObject;
}

function resourceOf(name: string): Resource {
  const r = typeof name === 'string' ? findResource(name) : undefined;
  if (!r) throw new UsageError(`There is no resource "${String(name)}".`, `Use one of: ${RESOURCES.map((x) => x.name).join(', ')}.`);
  return r;
}

function idList(ids: readonly string[], what: string): string[] {
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string')) throw new UsageError(`${what} takes a non-empty array of public IDs.`, `For example: ${what}('apps', ['ap-…'])`);
  return [...new Set(ids)];
}

/** The relation filter among list's options (the core's rule, spelt as the library's options); nothing is sent before it. */
function listFilter(resource: Resource, given: Record<string, unknown>): InternalFilter | undefined {
  for (const [key, value] of Object.entries(given)) {
    // A JavaScript caller may pass anything: a filter that is no ID is refused, not dropped.
    if (value !== undefined && (typeof value !== 'string' || value === '')) throw new UsageError(`The filter ${key} takes a public ID, not ${typeof value === 'string' ? 'an empty string' : typeof value}.`, `For example: list('${resource.name}', { ${key}: '…' })`);
  }
  return relationFilter(resource, given, { flag: (f) => f, example: (f) => `list('${resource.name}', { ${f}: '…' })` });
}

function limitOf(limit: unknown): number | undefined {
  if (limit === undefined) return undefined;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) throw new UsageError(`limit takes a whole number from 1 up, not ${String(limit)}.`, 'For example: { limit: 10 }');
  return limit;
}

/** The query of a raw request as the HTTP client takes it: pairs, a repeated key for each array element. */
function queryPairs(query: RequestOptions['query']): [string, string][] {
  if (query === undefined) return [];
  if (Array.isArray(query)) return query.map(([k, v]: readonly [string, string]) => [String(k), String(v)]);
  const pairs: [string, string][] = [];
  for (const [k, v] of Object.entries(query)) for (const one of Array.isArray(v) ? v : [v]) pairs.push([k, String(one)]);
  return pairs;
}

function bodyOf(body: unknown): string | Uint8Array | undefined {
  if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) return body;
  return JSON.stringify(body);
}

function makeClient(ctx: Context, release: () => void): Client {
  let closed = false;
  const scrub = (text: string) => ctx.io.secrets.scrub(text);
  const http = async (): Promise<HttpClient> => {
    if (closed) throw new UsageError('This client is closed.', 'Make a new one with createClient().');
    return ctx.http();
  };
  /** After a call: the cache keeps the answers a successful one used (as after a command). */
  const settle = async (client: HttpClient, succeeded: boolean) => client.options.cache?.commit(succeeded).catch(() => undefined);
  const call = async <T>(run: (client: HttpClient) => Promise<T>): Promise<T> => {
    let client: HttpClient | undefined;
    try {
      client = await http();
      const result = await run(client);
      await settle(client, true);
      return result;
    } catch (err) {
      if (client) await settle(client, false);
      throw publicError(err, scrub);
    }
  };

  async function* list<R extends ResourceName>(name: R, options: ListOptions<R> = {} as ListOptions<R>): AsyncGenerator<ApiObject> {
    let client: HttpClient | undefined;
    try {
      const resource = resourceOf(name);
      const { limit: rawLimit, ...filters } = options as { limit?: unknown } & Record<string, unknown>;
      const limit = limitOf(rawLimit);
      const filter = listFilter(resource, filters);
      client = await http();
      let count = 0;
      // Page by page (the core's walk), so that the loop's leaving stops it before the next request.
      for await (const page of walk(client, resource, filter)) {
        await keepListed(client, resource, page.kept.map(([, item]) => item));
        for (const [, item] of page.kept) {
          yield apiObject(item);
          if (limit !== undefined && ++count >= limit) return;
        }
      }
      await settle(client, true);
    } catch (err) {
      if (client) await settle(client, false);
      throw publicError(err, scrub);
    }
  }

  const getMany = (name: ResourceName, ids: readonly string[]): Promise<GetManyResult> =>
    call(async (client) => {
      const resource = resourceOf(name);
      const wanted = idList(ids, 'getMany');
      checkIds(resource, wanted);
      const found = await fetchByIds(client, resource, wanted);
      const items: ApiObject[] = [];
      const notFound: string[] = [];
      for (const id of wanted) {
        const item = found.get(id);
        if (item === undefined) notFound.push(id);
        else items.push(apiObject(item));
      }
      return { items, notFound };
    });

  const client: Client = {
    list,
    getMany,
    async get(name, id) {
      const { items, notFound } = await getMany(name, [id]);
      const [item] = items;
      if (item !== undefined) return item;
      const resource = findResource(name);
      throw publicError(new NotFoundError(`not found: ${notFound.join(', ')}`, `list('${resource?.name ?? name}') shows the ${resource?.name ?? 'objects'} this token can see.`, { ids: notFound }), scrub);
    },
    wait: (name, ids, options: WaitOptions) =>
      call(async (client) => {
        const resource = resourceOf(name);
        const wanted = idList(ids, 'wait');
        checkIds(resource, wanted);
        const conditions = (Array.isArray(options?.for) ? options.for : []).map(parseCondition);
        if (conditions.length === 0) throw new UsageError('wait needs at least one condition in "for".', `For example: wait('${resource.name}', ['${wanted[0] ?? 'ID'}'], { for: ['status=running'] })`);
        const deadlineMs = options.deadline === undefined ? DEFAULT_DEADLINE_MS : parseDuration(String(options.deadline), 'deadline');
        const intervalMs = parseInterval(options.interval === undefined ? undefined : String(options.interval), DEFAULT_INTERVAL_MS);
        const { signal } = options;
        if (signal?.aborted) throw new InterruptedError('The wait was cancelled before it began; nothing was sent.');
        const { found } = await waitUntil(client, resource, wanted, conditions, { deadlineMs, intervalMs, clock: ctx.clock, signal });
        return wanted.map((id) => apiObject(found.get(id)));
      }),
    status: (app) =>
      call(async (client) => {
        const apps = resourceOf('apps');
        checkIds(apps, [app]);
        return plain(await appStatus(client, app)) as AppStatus;
      }),
    rateLimit: () =>
      call(async () => {
        const rate = await ctx.lastRate();
        return rateReport(rate, ctx.clock.now(), await ctx.fleetWindow());
      }),
    request: (method, path, options = {}) =>
      call(async (client) => {
        if (typeof path !== 'string' || path === '') throw new UsageError('request takes a path, such as "/apps".', "For example: request('GET', '/apps')");
        const res = await client.request({ method, path, query: queryPairs(options.query), headers: options.headers, body: bodyOf(options.body), acceptAnyStatus: true });
        const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, scrub(v)]));
        const text = scrub(res.text);
        const response: ApiResponse = {
          status: res.status,
          statusText: res.statusText,
          headers,
          url: scrub(res.url.href),
          text,
          json: () => {
            try {
              // Checked as the CLI checks it (a JSON type, a body), read from the scrubbed text.
              const parsed = res.json();
              return text === res.text ? plain(parsed) : JSON.parse(text);
            } catch (err) {
              throw publicError(err, scrub);
            }
          },
        };
        return response;
      }),
    async close() {
      if (closed) return;
      closed = true;
      await ctx.finish(true);
      release();
    },
  };
  return client;
}

// The tools `hostctl mcp` offers: each checks its arguments against its input schema and
// asks the core (src/core/: the list walk, the batched fetch, the wait, the reference, the
// status) what the commands ask it, with the run's token, HTTP client, shared budget and
// lockout guard. Here, in the program, because errors are told apart by class
// (errorData) and numbers are written exactly (JsonNumber): the SDK's chunk
// (stdio-server.ts) holds copies of nothing it would have to recognise.

import type { Context } from '../context.js';
import { AuthError, DeadlineError, errorData, HostctlError, UsageError, type ErrorData } from '../errors.js';
import { findResource, RESOURCES, type Resource } from '../resources.js';
import { isRecord } from '../json/narrow.js';
import type { Position } from '../core/relations.js';
import { Cursors } from './cursor.js';
import { schemaProblem, type JsonSchema } from './schema.js';

/** Most objects one list_objects call returns; more come with the cursor. */
const MAX_ITEMS = 100;
/** Most IDs one get_objects or wait_for call takes. */
const MAX_IDS = 100;
/** Most bytes of JSON one result carries, so that a page never floods an agent's context. */
const MAX_RESULT_BYTES = 64 * 1024;
/** wait_for's longest deadline: an agent's call should not hang for hours. */
const MAX_DEADLINE_MS = 30 * 60_000;

export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

/** What a call may use of the protocol: its cancellation, and progress when the client asked for it. */
export interface CallContext {
  signal: AbortSignal;
  progress?: (progress: number, total: number | undefined, message: string) => void;
}

export type ToolOutcome = { ok: true; data: Record<string, unknown> } | { ok: false; error: ErrorData };

const RESOURCE_NAMES = RESOURCES.map((r) => r.name);
const FILTERS = ['app', 'environment', 'team'] as const;

const str = (description: string): JsonSchema => ({ type: 'string', description });
const strings = (description: string, maxItems?: number): JsonSchema => ({ type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, ...(maxItems ? { maxItems } : {}), description });
const object = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({ type: 'object', properties, required, additionalProperties: false });
const resourceArg = { type: 'string', enum: RESOURCE_NAMES, description: 'one of the seven resources' };
const fieldsArg = strings('only these fields of each object (dotted paths reach into nested ones)');
const anyObjects = { type: 'array', items: { type: 'object' } };

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'list_objects',
    description: `A page of one resource's objects (optionally of one app, environment or team); at most ${MAX_ITEMS} per call, pass nextCursor to continue.`,
    inputSchema: object(
      {
        resource: resourceArg,
        app: str('only those of this app (ap-…)'),
        environment: str('only those of this environment (en-…)'),
        team: str('only those of this team'),
        limit: { type: 'integer', minimum: 1, maximum: MAX_ITEMS, description: `at most this many objects (default: one page of the API; cap ${MAX_ITEMS})` },
        fields: fieldsArg,
        cursor: str('the nextCursor of the previous call, to continue where it stopped'),
      },
      ['resource'],
    ),
    outputSchema: object({ items: anyObjects, nextCursor: { type: 'string' }, note: { type: 'string' } }, ['items']),
  },
  {
    name: 'get_objects',
    description: `Objects of one resource by public ID, in one batched request however many IDs (at most ${MAX_IDS}).`,
    inputSchema: object({ resource: resourceArg, ids: strings('public IDs', MAX_IDS), fields: fieldsArg }, ['resource', 'ids']),
    outputSchema: object({ items: anyObjects, notFound: { type: 'array', items: { type: 'string' } }, omitted: { type: 'array', items: { type: 'string' } }, note: { type: 'string' } }, ['items', 'notFound']),
  },
  {
    name: 'wait_for',
    description: 'Poll objects (one batched request per round, paced by the shared budget) until every one meets every condition, or the deadline passes.',
    inputSchema: object(
      {
        resource: resourceArg,
        ids: strings('public IDs', MAX_IDS),
        for: strings('conditions FIELD=VALUE or FIELD!=VALUE (all must hold), e.g. status=running'),
        deadline: str('give up after this long, e.g. 90s, 5m (default 10m, at most 30m)'),
      },
      ['resource', 'ids', 'for'],
    ),
    outputSchema: object({ met: { type: 'boolean' }, rounds: { type: 'integer' }, items: anyObjects }, ['met', 'rounds', 'items']),
  },
  {
    name: 'app_status',
    description: 'One app at a glance, as `hostctl status --json`: the app, each environment with its latest deployment, and its domains; the same requests as `hostctl status` (docs/status.md).',
    inputSchema: object({ app: str('the app (ap-…)') }, ['app']),
    outputSchema: object({ app: { type: 'object' }, environments: anyObjects, domains: anyObjects }, ['app', 'environments', 'domains']),
  },
  {
    name: 'list_operations',
    description: "The API reference's operations (operationId, method, path, parameters); no request while hostctl's copy is under a day old, else one.",
    inputSchema: object({}),
    outputSchema: object({ operations: anyObjects, note: { type: 'string' } }, ['operations']),
  },
  {
    name: 'call_operation',
    description: 'One GET or HEAD request, by operationId (path parameters from params) or by path; the rest of params go to the query.',
    inputSchema: object({
      operationId: str('an operationId from list_operations'),
      path: str('a path under the base URL, e.g. /apps/ap-1a2b3c4d5e'),
      params: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] }, description: 'path parameters and query parameters' },
    }),
    outputSchema: object({ status: { type: 'integer' }, body: {}, bodyBytes: { type: 'integer' }, note: { type: 'string' } }, ['status']),
  },
  {
    name: 'rate_limit',
    description: 'The last rate-limit state seen for this token (limit, remaining, reset); sends no request.',
    inputSchema: object({}),
    outputSchema: object(
      {
        limit: { type: ['integer', 'null'] },
        remaining: { type: ['integer', 'null'] },
        resetAt: { type: ['string', 'null'] },
        resetInSeconds: { type: ['integer', 'null'] },
        seenAt: { type: ['string', 'null'] },
      },
      ['limit', 'remaining', 'resetAt', 'resetInSeconds', 'seenAt'],
    ),
  },
  {
    name: 'auth_status',
    description: "The profile, base URL, where the token comes from and its last four characters; sends no request.",
    inputSchema: object({}),
    outputSchema: object(
      {
        profile: { type: 'string' },
        baseUrl: { type: 'string' },
        tokenSource: { type: 'string' },
        tokenLastFour: { type: 'string' },
        rejected: { type: 'boolean' },
      },
      ['profile', 'baseUrl', 'tokenSource', 'tokenLastFour', 'rejected'],
    ),
  },
];

/** A place in a tool's arguments as a message shows it: `ids[2]`, `params.name` (names cut short: they are the agent's). */
function placeName(at: readonly (string | number)[]): string {
  return at.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${p.slice(0, 40)}`)).join('');
}

/** A tool's arguments checked against its input schema, the one tools/list shows. */
function checkArgs(spec: ToolSpec, args: unknown): Record<string, unknown> {
  const given = args ?? {};
  if (!isRecord(given)) throw new UsageError(`${spec.name} takes an object of arguments.`, 'See its inputSchema in tools/list.');
  const problem = schemaProblem(spec.inputSchema, given);
  if (!problem) return given;
  const properties = isRecord(spec.inputSchema.properties) ? spec.inputSchema.properties : {};
  const top = String(problem.at[0] ?? '');
  const described = properties[top];
  const pass = `Pass ${top.slice(0, 40)}: ${isRecord(described) ? String(described.description ?? '') : ''}.`;
  if (problem.kind === 'missing' && problem.at.length === 1) throw new UsageError(`${spec.name} needs "${top}".`, pass);
  if (problem.kind === 'unknown' && problem.at.length === 1) throw new UsageError(`${spec.name} takes no argument "${top.slice(0, 40)}".`, `It takes: ${Object.keys(properties).join(', ') || 'nothing'}.`);
  throw new UsageError(`${spec.name}: "${placeName(problem.at)}" ${problem.text}.`, pass);
}

function resourceOf(name: unknown): Resource {
  const r = typeof name === 'string' ? findResource(name) : undefined;
  if (!r) throw new UsageError(`There is no resource "${String(name).slice(0, 40)}".`, `Use one of: ${RESOURCE_NAMES.join(', ')}.`);
  return r;
}

/** Stops a call whose client cancelled it; nothing more is sent. */
function checkCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new HostctlError('The client cancelled this call.');
}

export class Tools {
  private readonly cursors = new Cursors();
  private tokenFound = false;

  constructor(
    private readonly ctx: Context,
    private readonly stringify: (value: unknown) => string,
  ) {}

  async call(name: string, args: unknown, call: CallContext): Promise<ToolOutcome> {
    try {
      const spec = TOOLS.find((t) => t.name === name);
      if (!spec) throw new UsageError(`There is no tool "${name.slice(0, 40)}".`, `The tools are: ${TOOLS.map((t) => t.name).join(', ')}.`);
      const a = checkArgs(spec, args);
      await this.configured();
      const data = await this.run(name, a, call);
      return { ok: true, data };
    } catch (err) {
      return { ok: false, error: errorData(err) };
    }
  }

  /**
   * Every tool needs a base URL and a token. Where one is missing, the sentence says how
   * to give it to the server, which is configured in the agent host, not at a prompt. A
   * token found once is kept; until then each call looks again (after an auth login).
   */
  private async configured(): Promise<void> {
    // A profile named but missing is the cause of whatever else is missing: name it.
    this.ctx.checkProfileExists();
    if (this.ctx.baseUrlSource() === undefined) {
      throw new UsageError(
        'hostctl mcp has no base URL: set HOSTCTL_BASE_URL in the env of its entry in the agent host\'s MCP configuration (or put --base-url URL before "mcp" in its args), then restart it.',
        'For example: "env": {"HOSTCTL_BASE_URL": "https://api.example.com/v1"}; see "hostctl help mcp".',
      );
    }
    if (this.tokenFound) return;
    try {
      await this.ctx.resolveToken();
      this.tokenFound = true;
    } catch (err) {
      if (!(err instanceof AuthError)) throw err;
      throw new AuthError(
        `hostctl mcp has no token (${err.message.replace(/\.$/, '')}): run "hostctl auth login" once at a terminal on this machine, or set HOSTCTL_TOKEN in the env of its entry in the agent host's MCP configuration from the host's secret storage.`,
        'See "hostctl help mcp" for each host; the token never goes in a file that is committed.',
      );
    }
  }

  private run(name: string, a: Record<string, unknown>, call: CallContext): Promise<Record<string, unknown>> {
    switch (name) {
      case 'list_objects':
        return this.listObjects(a, call);
      case 'get_objects':
        return this.getObjects(a, call);
      case 'wait_for':
        return this.waitFor(a, call);
      case 'app_status':
        return this.appStatus(a, call);
      case 'rate_limit':
        return this.rateLimit();
      case 'list_operations':
        return this.listOperations(call);
      case 'call_operation':
        return this.callOperation(a, call);
      default:
        return this.authStatus();
    }
  }

  /** An object as the agent gets it: no JSON-LD members, only the fields asked for. */
  private async shaper(fields: unknown): Promise<(item: unknown) => unknown> {
    const [{ stripJsonLd }, { pickFields }] = await Promise.all([import('../output/json.js'), import('../output/fields.js')]);
    const list = Array.isArray(fields) ? (fields as string[]) : undefined;
    return (item) => (list ? pickFields(stripJsonLd(item), list) : stripJsonLd(item));
  }

  private async listObjects(a: Record<string, unknown>, call: CallContext): Promise<Record<string, unknown>> {
    const resource = resourceOf(a.resource);
    const [{ relationFilter, directPath, sources: sourcesOf, walkSources, positionAfter }, shape] = await Promise.all([import('../core/relations.js'), this.shaper(a.fields)]);
    const filter = relationFilter(resource, Object.fromEntries(FILTERS.map((f) => [f, a[f]])), { flag: (f) => f, example: (f) => `{"resource": "${resource.name}", "${f}": "…"}` });
    const relation = filter?.relation;
    const filterKey = filter ? `${filter.relation.flag}=${filter.id}` : null;
    const baseUrl = this.ctx.baseUrl();
    const cursor = typeof a.cursor === 'string' ? await this.cursors.open(a.cursor, { resource: resource.name, filter: filterKey, baseUrl }) : undefined;
    const limit = typeof a.limit === 'number' ? a.limit : undefined;
    // Without limit, one page of the API, where the API has one for the question; a walk
    // that filters has no page of its own to stop at.
    const onePage = limit === undefined && directPath(resource, filter) !== undefined;
    const want = Math.min(limit ?? MAX_ITEMS, MAX_ITEMS);

    const http = (await this.ctx.http()).forCall(call.signal);
    let pages = 0;
    const opts = {
      walking: () => ({
        onPage: () => {
          checkCancelled(call.signal);
          pages++;
        },
      }),
    };
    const sources = cursor?.sources ?? (await sourcesOf(http, resource, filter, opts));
    if (sources.length === 0) return { items: [], note: `No ${relation?.through ?? ''} reference ${filter?.id ?? ''}, so no ${resource.name} do.` };
    const items: unknown[] = [];
    let bytes = 0;
    let next: Position | undefined;
    let note: string | undefined;
    walk: for await (const page of walkSources(http, sources, cursor?.at, opts)) {
      call.progress?.(items.length, want, `page ${pages}, ${items.length} so far`);
      for (const [i, raw] of page.kept) {
        const item = shape(raw);
        const size = Buffer.byteLength(this.stringify(item)) + 1;
        if (items.length >= want || (bytes + size > MAX_RESULT_BYTES && items.length > 0)) {
          if (items.length < want) note = `Stopped at ${items.length} objects: the result is capped at ${MAX_RESULT_BYTES} bytes; pass nextCursor for more, or fewer fields.`;
          next = { source: page.source, url: page.url, skip: i };
          break walk;
        }
        items.push(item);
        bytes += size;
      }
      if ((onePage && items.length > 0) || items.length >= want) {
        next = positionAfter(page, sources);
        break;
      }
    }
    if (next && !note) note = `There may be more ${resource.name}: pass nextCursor to continue (at most ${MAX_ITEMS} per call).`;
    const nextCursor = next ? await this.cursors.seal({ resource: resource.name, filter: filterKey, baseUrl: baseUrl.href, sources, at: next }) : undefined;
    return { items, ...(nextCursor ? { nextCursor } : {}), ...(note ? { note } : {}) };
  }

  private async getObjects(a: Record<string, unknown>, call: CallContext): Promise<Record<string, unknown>> {
    const resource = resourceOf(a.resource);
    const { checkIds, fetchByIds } = await import('../core/by-id.js');
    const ids = [...new Set(a.ids as string[])];
    checkIds(resource, ids);
    const http = (await this.ctx.http()).forCall(call.signal);
    const found = await fetchByIds(http, resource, ids);
    const shape = await this.shaper(a.fields);
    const items: unknown[] = [];
    const notFound: string[] = [];
    const omitted: string[] = [];
    let bytes = 0;
    for (const id of ids) {
      const raw = found.get(id);
      if (raw === undefined) {
        notFound.push(id);
        continue;
      }
      const item = shape(raw);
      const size = Buffer.byteLength(this.stringify(item)) + 1;
      if (omitted.length > 0 || (bytes + size > MAX_RESULT_BYTES && items.length > 0)) {
        omitted.push(id);
        continue;
      }
      items.push(item);
      bytes += size;
    }
    if (omitted.length === 0) return { items, notFound };
    return { items, notFound, omitted, note: `${omitted.length} objects were left out: the result is capped at ${MAX_RESULT_BYTES} bytes; ask for the omitted IDs again, or for fewer fields.` };
  }

  private async waitFor(a: Record<string, unknown>, call: CallContext): Promise<Record<string, unknown>> {
    const resource = resourceOf(a.resource);
    const [{ checkIds }, { parseCondition, waitUntil, DEFAULT_DEADLINE_MS, DEFAULT_INTERVAL_MS, describe: describeCondition }, { parseDuration }] = await Promise.all([import('../core/by-id.js'), import('../core/wait.js'), import('../config/duration.js')]);
    const ids = [...new Set(a.ids as string[])];
    checkIds(resource, ids);
    const conditions = (a.for as string[]).map(parseCondition);
    const deadlineMs = typeof a.deadline === 'string' ? parseDuration(a.deadline, 'deadline') : DEFAULT_DEADLINE_MS;
    if (deadlineMs > MAX_DEADLINE_MS) throw new UsageError(`wait_for's deadline is at most 30m, not ${String(a.deadline)}.`, 'Call wait_for again after it returns to wait longer.');
    const http = (await this.ctx.http()).forCall(call.signal);
    const shape = await this.shaper(undefined);
    try {
      const result = await waitUntil(http, resource, ids, conditions, {
        deadlineMs,
        intervalMs: DEFAULT_INTERVAL_MS,
        clock: this.ctx.clock,
        signal: call.signal,
        onRound: ({ matched, total, nextInMs }) => call.progress?.(matched, total, `${matched} of ${total} met ${conditions.map(describeCondition).join(' and ')}; next poll in ${Math.ceil(nextInMs / 1000)}s`),
      });
      return { met: true, rounds: result.rounds, items: ids.map((id) => shape(result.found.get(id))) };
    } catch (err) {
      if (err instanceof DeadlineError) throw new DeadlineError(err.message, 'Call wait_for again, or with a later deadline, to wait longer.', { unmet: err.unmet });
      throw err;
    }
  }

  private async appStatus(a: Record<string, unknown>, call: CallContext): Promise<Record<string, unknown>> {
    const [{ checkIds }, { appStatus }] = await Promise.all([import('../core/by-id.js'), import('../core/status.js')]);
    const app = String(a.app);
    checkIds(resourceOf('apps'), [app]);
    const http = (await this.ctx.http()).forCall(call.signal);
    let pages = 0;
    const status = await appStatus(http, app, {
      signal: call.signal,
      walking: (what) => ({
        onPage: (n) => {
          checkCancelled(call.signal);
          pages++;
          call.progress?.(pages, undefined, `${what}: page ${n}`);
        },
      }),
    });
    return { ...status };
  }

  private async listOperations(call: CallContext): Promise<Record<string, unknown>> {
    const { currentReference } = await import('../core/operations.js');
    const ref = await currentReference(this.referenceStore(call));
    const operations: unknown[] = [];
    let bytes = 0;
    for (const op of ref.operations) {
      const entry = { operationId: op.operationId, method: op.method, path: op.path, summary: op.summary, parameters: op.parameters };
      const size = Buffer.byteLength(this.stringify(entry)) + 1;
      if (bytes + size > MAX_RESULT_BYTES) {
        return { operations, note: `${ref.operations.length - operations.length} more operations were left out: the result is capped at ${MAX_RESULT_BYTES} bytes; run "hostctl docs --operations" for all.` };
      }
      operations.push(entry);
      bytes += size;
    }
    return { operations };
  }

  private async callOperation(a: Record<string, unknown>, call: CallContext): Promise<Record<string, unknown>> {
    const hasId = typeof a.operationId === 'string';
    if (hasId === (typeof a.path === 'string')) throw new UsageError('call_operation takes either operationId or path.', 'Pass one of them: {"operationId": "…"} or {"path": "/apps"}.');
    const params = new Map(Object.entries((a.params ?? {}) as Record<string, string | number | boolean>).map(([k, v]) => [k, String(v)]));
    let method = 'GET';
    let path = String(a.path ?? '');
    let query: [string, string][] = [...params];
    if (hasId) {
      const [{ findOperation, operationRequest }, { shown }] = await Promise.all([import('../core/operations.js'), import('../reference/operations.js')]);
      const op = await findOperation(this.referenceStore(call), String(a.operationId));
      if (op.method !== 'GET' && op.method !== 'HEAD') {
        throw new UsageError(`${shown(String(a.operationId))} is a ${op.method}: the MCP server only reads (GET and HEAD).`, 'Use hostctl api at a terminal for anything that changes the platform.');
      }
      ({ method, path, query } = operationRequest(op, params, this.ctx.baseUrl(), (missing) => `Pass ${missing.length === 1 ? 'it' : 'them'} in params: {${missing.map((m) => `"${m}": "…"`).join(', ')}}.`));
    } else if (!path.startsWith('/')) {
      throw new UsageError(`A path starts with a slash, not "${path.slice(0, 40)}".`, 'For example: {"path": "/apps"}.');
    }
    const http = (await this.ctx.http()).forCall(call.signal);
    const res = await http.request({ method, path, query });
    if (method === 'HEAD' || res.text === '') return { status: res.status };
    const { stripJsonLd } = await import('../output/json.js');
    const body = stripJsonLd(res.json());
    const bytes = Buffer.byteLength(this.stringify(body));
    if (bytes > MAX_RESULT_BYTES) {
      return { status: res.status, bodyBytes: bytes, note: `The body (${bytes} bytes) is over the ${MAX_RESULT_BYTES}-byte cap, so it is left out; for a collection use list_objects, which pages.` };
    }
    return { status: res.status, body };
  }

  private async rateLimit(): Promise<Record<string, unknown>> {
    await this.ctx.token();
    const { rateReport } = await import('../core/rate.js');
    return { ...rateReport(await this.ctx.lastRate(), this.ctx.clock.now()) };
  }

  /** The run's reference store, fetching with this call's client (its cancellation stops the fetch). */
  private referenceStore(call: CallContext) {
    return this.ctx.referenceStore(async () => (await this.ctx.http()).forCall(call.signal));
  }

  private async authStatus(): Promise<Record<string, unknown>> {
    const token = await this.ctx.resolveToken();
    return {
      profile: this.ctx.profileName(),
      baseUrl: this.ctx.baseUrl().href,
      tokenSource: token.source,
      tokenLastFour: token.value.slice(-4),
      rejected: this.ctx.state().rejected(token.fingerprint) !== undefined,
    };
  }
}

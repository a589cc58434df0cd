// The MCP server itself, on the official TypeScript SDK (@modelcontextprotocol/sdk 1.x),
// built into its own chunk (scripts/build.mjs SEPARATE) so that only `hostctl mcp` loads
// the SDK. It imports nothing of hostctl but types: a module of the program copied into
// this chunk would be a second copy, whose classes the program's objects are not instances
// of and whose secrets list is empty. What it needs (the tools, the sink, exact JSON) it is
// given.
//
// The transport is its own rather than the SDK's StdioServerTransport: every byte goes
// through the run's scrubbing sink, messages are written with hostctl's lossless JSON
// (numbers exact), a malformed line is answered with a JSON-RPC error instead of being
// dropped, and the end of stdin ends the server (the SDK's transport waits forever).

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ErrorCode, JSONRPCMessageSchema, ListToolsRequestSchema, McpError, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CallContext, ToolOutcome, ToolSpec } from './tools.js';

/** What one MCP server needs, whatever its transport (this file's stdio, http-server.ts). */
export interface ServerOptions {
  name: string;
  version: string;
  /** The tools offered (--tools may name fewer than TOOLS). */
  tools: readonly ToolSpec[];
  call(name: string, args: unknown, call: CallContext): Promise<ToolOutcome>;
  /** JSON text with numbers exact. */
  stringify(value: unknown): string;
  /** A line on stderr (the sink's). */
  log(text: string): void;
}

export interface ServeOptions extends ServerOptions {
  stdin: NodeJS.ReadableStream;
  /** The scrubbing sink's stdout. */
  write(text: string): void;
  /** JSON.parse, but a number no double holds exactly comes back as a value that stringify writes as it was sent. */
  parse(text: string): unknown;
}

/**
 * Where a transport puts an abort signal of its own for a call (the HTTP request that
 * carried it, whose client may go away): the SDK hands a request's authInfo to its handler.
 */
export const GONE = 'hostctlGone';

/** Longest line read; a longer one is answered with an error and dropped, not buffered without end. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const KINDS: Readonly<Record<string, string>> = { record: 'an object', object: 'an object', string: 'a string', number: 'a number', array: 'an array', boolean: 'true or false' };

/** A schema validator's dump of issues (a JSON array), as one sentence; undefined for any other message. */
function invalidParams(message: string, method: string | undefined): string | undefined {
  if (!message.startsWith('[')) return undefined;
  let issues: unknown;
  try {
    issues = JSON.parse(message);
  } catch {
    return undefined;
  }
  const first: unknown = Array.isArray(issues) ? issues[0] : undefined;
  if (!isObject(first)) return undefined;
  const path = Array.isArray(first.path) ? first.path.map(String).join('.') : '';
  const expected = typeof first.expected === 'string' ? KINDS[first.expected] : undefined;
  const where = `${method === undefined ? 'The request' : `${method.slice(0, 40)}'s`} ${path === '' ? 'params' : `"${path.slice(0, 60)}"`}`;
  const sentence = `Invalid params: ${where} ${expected === undefined ? 'is not valid' : `must be ${expected}`}`;
  return method === 'tools/call' && path === 'params.arguments' ? `${sentence}, the tool's arguments by name, such as {"resource": "apps"}.` : `${sentence}.`;
}

class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private buffer = '';
  private closed = false;
  /** Within a line too long, until its end. */
  private skipping = false;
  private stands = 0;
  /** Makes a stand-in no client's own string ID can equal. */
  private readonly standPrefix = `hostctl-id-${globalThis.crypto.randomUUID()}-`;
  /** Stand-in ID → the ID as sent, until answered. */
  private readonly exactIds = new Map<string, { id: unknown; text: string }>();
  /** Each request's method, until answered, to name it in an error. */
  private readonly methods = new Map<string | number, string>();

  constructor(private readonly o: ServeOptions) {}

  start(): Promise<void> {
    const { stdin } = this.o;
    stdin.setEncoding('utf8');
    stdin.on('data', (chunk: string) => this.take(chunk));
    stdin.on('end', () => void this.close());
    stdin.on('error', () => void this.close());
    return Promise.resolve();
  }

  private take(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      // The rest of a line already answered as too long.
      if (this.skipping) this.skipping = false;
      else if (line.length > MAX_LINE_BYTES) this.tooLong();
      else if (line.trim() !== '') this.line(line);
    }
    if (this.buffer.length > MAX_LINE_BYTES) {
      if (!this.skipping) this.tooLong();
      this.skipping = true;
      this.buffer = '';
    }
  }

  /** One answer per line too long, however many chunks it comes in. */
  private tooLong(): void {
    this.reply(null, ErrorCode.InvalidRequest, `A message longer than ${MAX_LINE_BYTES} bytes was dropped.`);
  }

  private line(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.reply(null, ErrorCode.ParseError, 'Parse error: each line must be one JSON-RPC message.');
      return;
    }
    const id: unknown = isObject(parsed) ? parsed.id : undefined;
    // An ID that JSON.parse changes (past 2^53, a fraction, 1e400) goes to the SDK as a
    // stand-in, and the answer gets the ID back exactly as it was sent.
    if (isObject(parsed) && typeof id === 'number' && !Number.isSafeInteger(id)) {
      const exact = this.o.parse(line);
      const given = isObject(exact) ? exact.id : id;
      const stand = `${this.standPrefix}${++this.stands}`;
      this.exactIds.set(stand, { id: given, text: String(given) });
      parsed = { ...parsed, id: stand };
    }
    if (isObject(parsed) && parsed.method === 'notifications/cancelled' && isObject(parsed.params)) parsed = this.cancelled(line, parsed, parsed.params);
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      const given: unknown = isObject(parsed) ? parsed.id : null;
      this.reply(typeof given === 'string' || typeof given === 'number' ? given : null, ErrorCode.InvalidRequest, 'Invalid request: not a JSON-RPC 2.0 message.');
      return;
    }
    if ('method' in message.data && 'id' in message.data) this.methods.set(message.data.id, message.data.method);
    this.onmessage?.(message.data);
  }

  /**
   * A cancellation names the request by the ID the client sent: the stand-in for it, when
   * there is one; either way the request will not be answered, so its entries go.
   */
  private cancelled(line: string, message: Record<string, unknown>, params: Record<string, unknown>): Record<string, unknown> {
    let requestId = params.requestId;
    if (typeof requestId === 'number' && !Number.isSafeInteger(requestId)) {
      const exact = this.o.parse(line);
      const text = isObject(exact) && isObject(exact.params) ? String(exact.params.requestId) : '';
      requestId = [...this.exactIds].find(([, v]) => v.text === text)?.[0] ?? requestId;
    }
    if (typeof requestId === 'string' || typeof requestId === 'number') {
      this.methods.delete(requestId);
      if (typeof requestId === 'string') this.exactIds.delete(requestId);
    }
    return { ...message, params: { ...params, requestId } };
  }

  private reply(id: string | number | null, code: number, message: string): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  /** Every message out, with an ID that stood in for one given back as it was sent. */
  private write(message: Record<string, unknown>): void {
    const id = message.id;
    let out = message;
    if (typeof id === 'string' && this.exactIds.has(id)) {
      out = { ...message, id: this.exactIds.get(id)?.id };
      this.exactIds.delete(id);
    }
    this.o.write(`${this.o.stringify(out)}\n`);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    const id = 'id' in message ? message.id : undefined;
    const method = id === undefined ? undefined : this.methods.get(id);
    if (id !== undefined && !('method' in message)) this.methods.delete(id);
    if ('error' in message) {
      // The SDK answers params that fail its schema with the validator's multi-line dump
      // as an internal error: one sentence instead, as an invalid-params error.
      const said = invalidParams(message.error.message, method);
      if (said !== undefined) {
        this.write({ ...message, error: { code: ErrorCode.InvalidParams, message: said } });
        return Promise.resolve();
      }
    }
    this.write(message);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.onclose?.();
    return Promise.resolve();
  }
}

/** One MCP server with the tools; a transport connects it. */
export function mcpServer(o: ServerOptions): Server {
  const server = new Server({ name: o.name, version: o.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: o.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' }, outputSchema: t.outputSchema as { type: 'object' }, annotations: { readOnlyHint: true, openWorldHint: true } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (!o.tools.some((t) => t.name === name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 60)}. The tools are: ${o.tools.map((t) => t.name).join(', ')}.`);
    const token = request.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (done: number, total: number | undefined, message: string) =>
            void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, ...(total === undefined ? {} : { total }), message } }).catch(() => undefined);
    const gone: unknown = extra.authInfo?.extra?.[GONE];
    const signal = gone instanceof AbortSignal ? AbortSignal.any([extra.signal, gone]) : extra.signal;
    const outcome = await o.call(name, args, { signal, progress });
    if (outcome.ok) return { content: [{ type: 'text', text: o.stringify(outcome.data) }], structuredContent: outcome.data };
    const error = outcome.error;
    // The message, then the next step, as an agent reads it; the whole error as JSON after.
    return { isError: true, content: [{ type: 'text', text: o.stringify({ error }) }] };
  });
  server.onerror = (err) => o.log(`hostctl: mcp: ${err.message}`);
  return server;
}

/** Serves until stdin ends. */
export async function serve(o: ServeOptions): Promise<void> {
  const server = mcpServer(o);
  const transport = new LineTransport(o);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  await closed;
}

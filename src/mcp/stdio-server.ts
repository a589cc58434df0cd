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

export interface ServeOptions {
  name: string;
  version: string;
  tools: readonly ToolSpec[];
  call(name: string, args: unknown, call: CallContext): Promise<ToolOutcome>;
  stdin: NodeJS.ReadableStream;
  /** The scrubbing sink's stdout. */
  write(text: string): void;
  /** JSON text with numbers exact. */
  stringify(value: unknown): string;
  /** A line on stderr (the sink's). */
  log(text: string): void;
}

/** Longest line read; a longer one is answered with an error and dropped, not buffered without end. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private buffer = '';
  private closed = false;

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
      if (line.trim() !== '') this.line(line);
    }
    if (this.buffer.length > MAX_LINE_BYTES) {
      this.buffer = '';
      this.reply(null, ErrorCode.InvalidRequest, `A message longer than ${MAX_LINE_BYTES} bytes was dropped.`);
    }
  }

  private line(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.reply(null, ErrorCode.ParseError, 'Parse error: each line must be one JSON-RPC message.');
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      const id = typeof parsed === 'object' && parsed !== null && 'id' in parsed ? (parsed as { id: unknown }).id : null;
      this.reply(typeof id === 'string' || typeof id === 'number' ? id : null, ErrorCode.InvalidRequest, 'Invalid request: not a JSON-RPC 2.0 message.');
      return;
    }
    this.onmessage?.(message.data);
  }

  private reply(id: string | number | null, code: number, message: string): void {
    this.o.write(`${this.o.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!this.closed) this.o.write(`${this.o.stringify(message)}\n`);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.onclose?.();
    return Promise.resolve();
  }
}

/** Serves until stdin ends. */
export async function serve(o: ServeOptions): Promise<void> {
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
    const outcome = await o.call(name, args, { signal: extra.signal, progress });
    if (outcome.ok) return { content: [{ type: 'text', text: o.stringify(outcome.data) }], structuredContent: outcome.data };
    const error = outcome.error;
    // The message, then the next step, as an agent reads it; the whole error as JSON after.
    return { isError: true, content: [{ type: 'text', text: o.stringify({ error }) }] };
  });
  server.onerror = (err) => o.log(`hostctl: mcp: ${err.message}`);
  const transport = new LineTransport(o);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  await closed;
}

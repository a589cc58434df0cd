// `hostctl mcp`'s run: the tools on this run's Context, served over stdio by the SDK's
// chunk (stdio-server.ts) through the run's scrubbing sink.

import { VERSION, type Context } from '../context.js';
import { HostctlError, UsageError } from '../errors.js';
import { parseJson, stringifyJson } from '../output/json.js';
import { TOOLS, Tools } from './tools.js';

export async function mcpRun(ctx: Context): Promise<void> {
  // A dry run prints its requests on stdout, which here is the protocol's alone.
  if (ctx.opts.dryRun === true) throw new UsageError('--dry-run does not apply to hostctl mcp: its stdout carries the protocol only.', 'Leave out --dry-run; the tools only read.');
  // An agent's calls wait behind a person's in the shared budget, whatever the terminals.
  ctx.batch = true;
  // A server that stopped here would show only "failed to connect" in the agent host:
  // it starts, and every call says what to configure (Tools.configured); the host's log
  // gets the same sentence now.
  try {
    ctx.baseUrl();
  } catch (err) {
    if (!(err instanceof HostctlError)) throw err;
    ctx.io.warn(`${err.message} Every tool call will say so until it is set.`);
  }
  const tools = new Tools(ctx, (v) => stringifyJson(v));
  const { serve } = await import('./stdio-server.js');
  ctx.io.note('hostctl: MCP server on stdin/stdout; logs on stderr. Close stdin to stop.');
  await serve({
    name: 'hostctl',
    version: VERSION,
    tools: TOOLS,
    call: (name, args, call) => tools.call(name, args, call),
    stdin: ctx.io.stdin as NodeJS.ReadableStream,
    write: (text) => ctx.io.out(text),
    stringify: (v) => stringifyJson(v),
    parse: (text) => parseJson(text),
    log: (text) => ctx.io.stderr.write(`${text}\n`),
  });
}

// `hostctl mcp`'s run: the tools on this run's Context, served over stdio by the SDK's
// chunk (stdio-server.ts) through the run's scrubbing sink, or over HTTP (--http,
// http-server.ts): one Tools, so both transports share the budget, cache and lockout guard.

import { readFile } from 'node:fs/promises';
import { VERSION, type Context } from '../context.js';
import { ExitCode, HostctlError, UsageError } from '../errors.js';
import { parseJson, stringifyJson } from '../output/json.js';
import { TOOLS, Tools, type CallContext, type ToolSpec } from './tools.js';
import type { ServerOptions } from './stdio-server.js';

/** `hostctl mcp`'s own flags (src/commands/mcp.ts). */
export interface McpOptions {
  http?: true;
  listen?: string;
  tlsCert?: string;
  tlsKey?: string;
  tools?: string;
}

/** The run ended by a signal, the server closed: nothing to report, the signal's exit code. */
class Stopped extends HostctlError {
  override readonly exitCode: ExitCode;

  constructor(code: ExitCode) {
    super('');
    this.exitCode = code;
  }
}

/** The tools --tools names, in TOOLS' order; all of them without it. */
function offeredTools(names: string | undefined): readonly ToolSpec[] {
  if (names === undefined) return TOOLS;
  const asked = names.split(',').map((n) => n.trim()).filter((n) => n !== '');
  const known = TOOLS.map((t) => t.name);
  const unknown = asked.filter((n) => !known.includes(n));
  if (unknown.length > 0 || asked.length === 0) {
    const what = unknown.length > 0 ? `Unknown tool${unknown.length > 1 ? 's' : ''} for --tools: ${unknown.map((n) => n.slice(0, 40)).join(', ')}.` : '--tools names no tool.';
    throw new UsageError(what, `The tools are: ${known.join(', ')}.`);
  }
  return TOOLS.filter((t) => asked.includes(t.name));
}

export async function mcpRun(ctx: Context, opts: McpOptions = {}): Promise<void> {
  const tools = offeredTools(opts.tools);
  if (opts.http !== true) {
    const only = opts.listen !== undefined ? '--listen' : opts.tlsCert !== undefined ? '--tls-cert' : opts.tlsKey !== undefined ? '--tls-key' : undefined;
    if (only !== undefined) throw new UsageError(`${only} applies to hostctl mcp --http only.`, `Add --http to serve over HTTP, or leave out ${only}.`);
  }
  // A dry run prints its requests on stdout, which here is the protocol's (or the two lines') alone.
  if (ctx.opts.dryRun === true) throw new UsageError('--dry-run does not apply to hostctl mcp: its stdout carries the protocol only.', 'Leave out --dry-run; the tools only read.');
  const http = opts.http === true ? await httpSettings(ctx, opts) : undefined;
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
  const core = new Tools(ctx, (v) => stringifyJson(v));
  const server: ServerOptions = {
    name: 'hostctl',
    version: VERSION,
    tools,
    call: (name: string, args: unknown, call: CallContext) => core.call(name, args, call),
    stringify: (v: unknown) => stringifyJson(v),
    log: (text: string) => ctx.io.stderr.write(`${text}\n`),
  };
  if (http !== undefined) return serveOverHttp(ctx, http, server);
  const { serve } = await import('./stdio-server.js');
  ctx.io.note('hostctl: MCP server on stdin/stdout; logs on stderr. Close stdin to stop.');
  await serve({
    ...server,
    stdin: ctx.io.stdin as NodeJS.ReadableStream,
    write: (text) => ctx.io.out(text),
    parse: (text) => parseJson(text),
  });
}

interface HttpSettings {
  host: string;
  port: number;
  loopback: boolean;
  key: string;
  tls?: { cert: string; key: string };
}

/** A loopback address or name: what a process on another machine cannot reach. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** --listen, its files and the key, each checked before anything listens. */
async function httpSettings(ctx: Context, opts: McpOptions): Promise<HttpSettings> {
  const listen = opts.listen ?? '127.0.0.1:0';
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(listen);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (host === undefined || !(port >= 0 && port <= 65535)) throw new UsageError(`--listen takes HOST:PORT, not "${listen.slice(0, 60)}".`, 'For example --listen 127.0.0.1:8765 ([::1]:8765 for IPv6; port 0 takes a free one).');
  const loopback = isLoopback(host);
  if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) throw new UsageError('--tls-cert and --tls-key go together.', 'Give both the certificate and its private key (PEM files), or neither.');
  if (!loopback && opts.tlsCert === undefined)
    throw new UsageError(
      `--listen ${listen.slice(0, 60)} is not a loopback address, and without TLS the key and the API's data would cross the network in clear text.`,
      'Add --tls-cert FILE --tls-key FILE, or listen on 127.0.0.1 (behind a reverse proxy that serves TLS).',
    );
  const read = async (file: string, flag: string): Promise<string> => {
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`Could not read the ${flag} file ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}).`, `Check the path given to ${flag}.`);
    }
  };
  const tls = opts.tlsCert !== undefined && opts.tlsKey !== undefined ? { cert: await read(opts.tlsCert, '--tls-cert'), key: await read(opts.tlsKey, '--tls-key') } : undefined;
  const given = ctx.env.HOSTCTL_MCP_KEY;
  if (given !== undefined && given.length < 16) throw new UsageError('HOSTCTL_MCP_KEY is shorter than 16 characters.', 'Leave it unset for a new random key each start, or set a long random one (openssl rand -base64 32).');
  if (given !== undefined && /\s/.test(given)) throw new UsageError('HOSTCTL_MCP_KEY holds white space.', 'Set it to one word, such as the output of openssl rand -base64 32.');
  let token: string | undefined;
  try {
    token = (await ctx.resolveToken()).value;
  } catch (err) {
    if (!(err instanceof HostctlError)) throw err;
  }
  if (given !== undefined && given === token)
    throw new UsageError('HOSTCTL_MCP_KEY is the platform token: clients would hold the token itself.', 'Set HOSTCTL_MCP_KEY to a key of its own (openssl rand -base64 32), or leave it unset for a random one.');
  const key = given ?? Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  return { host, port, loopback, key, tls };
}

async function serveOverHttp(ctx: Context, s: HttpSettings, server: ServerOptions): Promise<void> {
  const { serveHttp } = await import('./http-server.js');
  ctx.io.addSecret(s.key);
  const serving = await serveHttp({
    ...server,
    ...s,
    usage: (message, hint) => new UsageError(message, hint),
    failure: (message, hint) => new HostctlError(message, hint),
  });
  // Listening for the signals before the two lines go out, as the sandbox does: a script
  // that reads them and stops the server at once gets the server's exit code.
  const stopped = new Promise<ExitCode>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      ctx.io.note(`hostctl: ${signal} received, closing the MCP sessions.`);
      void serving.close().then(() => resolve(signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  // Past the sink, which masks the key everywhere else: these two lines are how a client gets it.
  ctx.io.rawOut(`HOSTCTL_MCP_URL=${serving.url}\nHOSTCTL_MCP_KEY=${s.key}\n`);
  ctx.io.note(`hostctl: MCP server at ${serving.url} (${server.tools.length} tools); clients send Authorization: Bearer <HOSTCTL_MCP_KEY>. Stop with Ctrl-C.`);
  throw new Stopped(await stopped);
}

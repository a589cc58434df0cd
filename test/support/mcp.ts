// `hostctl mcp` as an agent's host runs it: the built CLI as a child process, spoken to by
// the MCP SDK's own client over its stdio, or (`hostctl mcp --http`, startMcpHttp) over
// Streamable HTTP. For e2e tests of what one long-lived server does with many calls
// (test/e2e/mcp-burst.test.ts, mcp-http.test.ts).

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, type StreamableHTTPClientTransportOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, baseEnv, isolated, ROOT } from './cli.js';

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Closes stdin (which ends the server) and the client. */
  close(): Promise<void>;
  /**
   * With `teeTo`: what the server wrote to stdout so far, at least every message the client
   * has received (tee may pass a line on before it writes it to the file), while it runs.
   */
  teed(): Promise<string>;
}

/**
 * Starts `hostctl [args] mcp` with `env` (isolated() as every run) and connects the SDK's
 * client to it. With `teeTo`, the server's stdout also goes to that file on its way, so
 * that a test sees every byte it wrote, not only what the SDK parsed.
 */
export async function connectMcp(env: Record<string, string | undefined>, args: string[] = [], mcpArgs: string[] = [], o: { teeTo?: string } = {}): Promise<McpSession> {
  const argv = [process.execPath, BIN, ...args, 'mcp', ...mcpArgs];
  const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
  const [command, ...rest] = o.teeTo === undefined ? argv : ['sh', '-c', `${argv.map(quote).join(' ')} | tee -a ${quote(o.teeTo)}`];
  const transport = new StdioClientTransport({
    command: command!,
    args: rest,
    env: baseEnv(isolated(env)) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'hostctl-test', version: '1' });
  await client.connect(transport);
  // Counted after the SDK's own handler is in place: one line on stdout each.
  let received = 1;
  const handle = transport.onmessage;
  transport.onmessage = (message) => {
    received++;
    handle?.(message);
  };
  const teed = async (): Promise<string> => {
    if (o.teeTo === undefined) throw new Error('teed() needs connectMcp(…, { teeTo })');
    for (;;) {
      const text = readFileSync(o.teeTo, 'utf8');
      if (text.split('\n').length > received) return text;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { client, stderr: () => stderr, close: () => client.close(), teed };
}

/** A running `hostctl mcp --http`: its two stdout lines, and the process. */
export interface McpHttpServer {
  url: string;
  key: string;
  pid: number;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Sends `signal` and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** The SDK's client, connected with `key` (the server's own unless given). */
  connect(o?: { key?: string; fetch?: StreamableHTTPClientTransportOptions['fetch'] }): Promise<Client>;
}

/** Starts `hostctl [args] mcp --http [mcpArgs]` with `env` (isolated()) and reads its two lines. */
export async function startMcpHttp(env: Record<string, string | undefined>, mcpArgs: string[] = [], args: string[] = []): Promise<McpHttpServer> {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args, 'mcp', '--http', ...mcpArgs], { env: baseEnv(isolated(env)), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (stdout.split('\n').length > 2) resolve(Object.fromEntries(stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])));
    });
    void exited.then((code) => reject(new Error(`hostctl mcp --http exited ${code} before its two lines: ${stderr}`)));
  });
  const clients: Client[] = [];
  const url = lines.HOSTCTL_MCP_URL ?? '';
  const key = lines.HOSTCTL_MCP_KEY ?? '';
  return {
    url,
    key,
    pid: child.pid ?? 0,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      for (const c of clients) await c.close().catch(() => undefined);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    async connect(o = {}) {
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${o.key ?? key}` } }, fetch: o.fetch });
      const client = new Client({ name: 'hostctl-test', version: '1' });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
  };
}

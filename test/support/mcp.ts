// `hostctl mcp` as an agent's host runs it: the built CLI as a child process, spoken to by
// the MCP SDK's own client over its stdio. For e2e tests of what one long-lived server
// does with many calls (test/e2e/mcp-burst.test.ts).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, isolated, ROOT } from './cli.js';

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Closes stdin (which ends the server) and the client. */
  close(): Promise<void>;
}

/** Starts `hostctl [args] mcp` with `env` (isolated() as every run) and connects the SDK's client to it. */
export async function connectMcp(env: Record<string, string | undefined>, args: string[] = []): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args, 'mcp'],
    env: baseEnv(isolated(env)) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'hostctl-test', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

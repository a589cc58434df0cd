// `hostctl mcp`: a Model Context Protocol server on stdin/stdout for coding agents, with
// this run's profile, base URL, token, shared budget and lockout guard (src/mcp/).

import { command, withContext, type CommandUnknownOpts } from './define.js';

export function mcpCommand(): CommandUnknownOpts {
  return command('mcp')
    .description('Serve the API to coding agents over MCP on stdin/stdout (read-only tools; see hostctl help mcp)')
    .examples(['hostctl mcp', 'HOSTCTL_TOKEN=… HOSTCTL_BASE_URL=https://…/v1 hostctl mcp', 'hostctl --profile staging --max-wait 30 mcp'])
    .seeAlso(['mcp', 'rate-limit'])
    .action(withContext(async (ctx) => (await import('../mcp/run.js')).mcpRun(ctx)));
}

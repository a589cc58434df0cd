// `hostctl mcp`: a Model Context Protocol server for coding agents, on stdin/stdout or
// (--http) over Streamable HTTP, with this run's profile, base URL, token, shared budget
// and lockout guard (src/mcp/).

import { Option } from '@commander-js/extra-typings';
import { completes } from './hints.js';
import { command, withContext, type CommandUnknownOpts } from './define.js';

export function mcpCommand(): CommandUnknownOpts {
  return mcpDefinition().action(withContext(async (ctx, _args, opts) => (await import('../mcp/run.js')).mcpRun(ctx, opts)));
}

function mcpDefinition() {
  return command('mcp')
    .description('Serve the API to coding agents over MCP on stdin/stdout, or over HTTP with --http (read-only tools; see hostctl help mcp)')
    .examples([
      'hostctl mcp',
      'HOSTCTL_TOKEN=… HOSTCTL_BASE_URL=https://…/v1 hostctl mcp',
      'hostctl --profile staging --max-wait 30 mcp',
      'hostctl mcp --http --listen 127.0.0.1:8765',
      'hostctl mcp --tools list_objects,get_objects',
    ])
    .seeAlso(['mcp', 'rate-limit'])
    .option('--http', 'serve over Streamable HTTP (at /mcp) instead of stdin/stdout; prints the URL and the key')
    .option('--listen <host:port>', 'with --http: the address to listen on (default 127.0.0.1:0, a free port)')
    .addOption(completes(new Option('--tls-cert <file>', 'with --http: serve HTTPS with this certificate (PEM); needed off loopback'), 'files'))
    .addOption(completes(new Option('--tls-key <file>', "with --http: the certificate's private key (PEM)"), 'files'))
    .option('--tools <names>', 'offer only these tools, comma-separated (default: all)');
}

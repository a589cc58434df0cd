// `hostctl version`: what a bug report needs, hostctl's version with Node's and the platform's.

import { VERSION, type Context } from '../context.js';
import { command, withContext, type HostctlCommand } from './define.js';

export function versionCommand(): HostctlCommand {
  return command('version')
    .description('Print the versions of hostctl and Node.js, and the platform (for bug reports)')
    .examples(['hostctl version', 'hostctl version --json'])
    .action(withContext(async (ctx) => versionRun(ctx)));
}

async function versionRun(ctx: Context): Promise<void> {
  const info = { version: VERSION, node: process.version, platform: process.platform, arch: process.arch };
  const format = ctx.outputFormat();
  if (format === 'json' || format === 'ndjson') {
    ctx.io.out(`${JSON.stringify(info, null, format === 'json' ? 2 : undefined)}\n`);
    return;
  }
  ctx.io.out(`hostctl ${VERSION}\nNode.js ${process.version} on ${process.platform}-${process.arch}\n`);
}

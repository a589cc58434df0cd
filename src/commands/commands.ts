// `hostctl commands [--json]`: the command tree as data (src/help/tree.ts), for scripts and
// agents that need every command, argument and flag without parsing --help.

import type { Context } from '../context.js';
import type { SandboxFlags } from '../help/tree.js';
import { command, withContext, type CommandUnknownOpts, type HostctlCommand } from './define.js';

/**
 * `sandboxFlags` loads the sandbox's own parser, whose flags `hostctl sandbox` takes: only
 * cli.ts loads the sandbox (client code never imports it).
 */
export function commandsCommand(sandboxFlags: () => Promise<SandboxFlags>): HostctlCommand {
  return command('commands')
    .description('List every command with its arguments and flags (--json: as data)')
    .examples(['hostctl commands', "hostctl commands --json | jq -r '.[].name'"])
    .action((opts, cmd) => withContext<[], typeof opts>((ctx) => commandsRun(ctx, cmd, sandboxFlags))(opts, cmd));
}

async function commandsRun(ctx: Context, cmd: CommandUnknownOpts, sandboxFlags: () => Promise<SandboxFlags>): Promise<void> {
  const format = ctx.outputFormat();
  // The whole tree: main() builds every branch when its words name `commands`.
  let program = cmd;
  while (program.parent) program = program.parent;
  const [{ commandTree, commandTreeText }, sandbox] = await Promise.all([import('../help/tree.js'), sandboxFlags()]);
  const tree = commandTree(program, sandbox);
  if (format === 'json') ctx.io.out(`${JSON.stringify(tree, null, 2)}\n`);
  else if (format === 'ndjson') ctx.io.out(tree.map((c) => `${JSON.stringify(c)}\n`).join(''));
  else ctx.io.out(commandTreeText(tree));
}

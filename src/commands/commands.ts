// `hostctl commands [--json]`: the command tree as data (src/help/tree.ts), for scripts and
// agents that need every command, argument and flag without parsing --help.

import type { Context } from '../context.js';
import { command, withContext, type CommandUnknownOpts, type HostctlCommand } from './define.js';

export function commandsCommand(): HostctlCommand {
  return command('commands')
    .description('List every command with its arguments and flags (--json: as data)')
    .examples(['hostctl commands', "hostctl commands --json | jq -r '.[].name'"])
    .action((opts, cmd) => withContext<[], typeof opts>((ctx) => commandsRun(ctx, cmd))(opts, cmd));
}

export async function commandsRun(ctx: Context, cmd: CommandUnknownOpts): Promise<void> {
  const format = ctx.outputFormat();
  // The whole tree: main() builds every branch when its words name `commands`.
  let program = cmd;
  while (program.parent) program = program.parent;
  const [{ commandTree, commandTreeText }, { sandboxProgram, SANDBOX_EXAMPLES }] = await Promise.all([import('../help/tree.js'), import('../sandbox/main.js')]);
  const tree = commandTree(program, { program: sandboxProgram() as unknown as CommandUnknownOpts, examples: SANDBOX_EXAMPLES });
  if (format === 'json') ctx.io.out(`${JSON.stringify(tree, null, 2)}\n`);
  else if (format === 'ndjson') ctx.io.out(tree.map((c) => `${JSON.stringify(c)}\n`).join(''));
  else ctx.io.out(commandTreeText(tree));
}

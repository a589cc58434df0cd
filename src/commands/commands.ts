// `hostctl commands [--json]`: the command tree as data (src/help/tree.ts), for scripts and
// agents that need every command, argument and flag without parsing --help.

import type { Context } from '../context.js';
import type { SandboxFlags } from '../help/tree.js';
import { command, withContext, type CommandUnknownOpts, type HostctlCommand } from './define.js';

/** What a row of the tree shows in tsv and a table: the command line, then what it does. */
const COLUMNS = ['name', 'description'];

/**
 * `sandboxFlags` loads the sandbox's own parser, whose flags `hostctl sandbox` takes: only
 * cli.ts loads the sandbox (client code never imports it).
 */
export function commandsCommand(sandboxFlags: () => Promise<SandboxFlags>): HostctlCommand {
  return command('commands')
    .description('List every command with its arguments and flags (--json, -o, --fields, --jq: as data)')
    .examples(['hostctl commands', "hostctl commands --json | jq -r '.[].name'", "hostctl commands --jq '.[] | select(.name | startswith(\"hostctl apps\")) | .name'", 'hostctl commands -o tsv --fields name,description'])
    .action((opts, cmd) => withContext<[], typeof opts>((ctx) => commandsRun(ctx, cmd, sandboxFlags))(opts, cmd));
}

async function commandsRun(ctx: Context, cmd: CommandUnknownOpts, sandboxFlags: () => Promise<SandboxFlags>): Promise<void> {
  const format = ctx.outputFormat();
  const { createPrinter, dataPrinter } = await import('../output/format.js');
  // The tree is data like any command's: --json, -o, --fields and --jq go through the one
  // output layer. Before the tree is built, so that a bad --jq or --fields is refused first.
  const printer =
    (await dataPrinter(ctx, COLUMNS)) ??
    (format === 'json' || format === 'ndjson' ? await createPrinter({ io: ctx.io, format, columns: COLUMNS }) : undefined);
  // The whole tree: main() builds every branch when its words name `commands`.
  let program = cmd;
  while (program.parent) program = program.parent;
  const [{ commandTree, commandTreeText }, sandbox] = await Promise.all([import('../help/tree.js'), sandboxFlags()]);
  const tree = commandTree(program, sandbox);
  if (!printer) {
    ctx.io.out(commandTreeText(tree));
    return;
  }
  await printer.add(tree);
  await printer.end('list');
}

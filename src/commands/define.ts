// What every command file builds on. A command is one function returning its commander
// command (src/commands/<noun>.ts): description, examples and help topics first (they
// return the HostctlCommand), then its arguments and flags with their help and completion
// hints, then its run as the action, wrapped in withContext(). The flags type the run's
// options (@commander-js/extra-typings): a misspelt option fails `tsc`.
//
// Start-up: cli.ts imports every command file, so a file imports at its top only what
// start-up loads anyway; what its run needs beyond that (printers, the HTTP client, the
// keychain, config writes, node:child_process), the run imports with import(), which the
// bundle defers until then (test/e2e/startup.test.ts runs commands without the chunks).

import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { Context } from '../context.js';
import { parseGlobalOptions, type GlobalFlags } from '../global-options.js';
import type { Runtime } from '../runtime.js';
import { HostctlCommand } from './command.js';

export { HostctlCommand };
export type { CommandUnknownOpts };

/** The runtime of each program (main(argv, rt) → buildProgram(rt)), by its root command. */
const runtimes = new WeakMap<CommandUnknownOpts, Runtime>();

export function bindRuntime(program: CommandUnknownOpts, rt: Runtime): void {
  runtimes.set(program, rt);
}

function runtimeOf(cmd: CommandUnknownOpts): Runtime {
  let root = cmd;
  while (root.parent) root = root.parent;
  const rt = runtimes.get(root);
  if (!rt) throw new Error(`The command "${root.name()}" was not built by buildProgram().`);
  return rt;
}

/** A new command: `command('list')`, its parts chained after it. */
export function command(name: string): HostctlCommand {
  return new HostctlCommand(name);
}

/**
 * A command's action from its run: parses the global options (a bad one is a usage error
 * before the run starts, as a bad flag of commander's own is), builds the run's Context
 * from them and the program's runtime, runs, then saves state and prints -R. The run gets
 * the command's arguments as a tuple and its own options, both typed from the definition.
 */
export function withContext<A extends unknown[], O>(
  run: (ctx: Context, args: A, opts: O) => Promise<void>,
): (...params: [...A, O, CommandUnknownOpts]) => Promise<void> {
  return async (...params) => {
    const cmd = params[params.length - 1] as CommandUnknownOpts;
    const rt = runtimeOf(cmd);
    const ctx = new Context(parseGlobalOptions(cmd.optsWithGlobals() as GlobalFlags, rt.env), rt);
    let succeeded = false;
    try {
      await run(ctx, params.slice(0, -2) as A, params[params.length - 2] as O);
      succeeded = true;
    } finally {
      await ctx.finish(succeeded);
    }
  };
}

/** For a repeatable flag: `--for a --for b` → ['a', 'b']. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The options a definition types its run with: `OptionsOf<typeof listDefinition>`. */
export type OptionsOf<F extends (...a: never[]) => { opts(): unknown }> = ReturnType<ReturnType<F>['opts']>;

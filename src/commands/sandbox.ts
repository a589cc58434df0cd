// `hostctl sandbox`, as the program lists it for --help and the reference. main() hands a
// leading `sandbox` to the sandbox's own parser (src/sandbox/main.ts), because its flags
// (such as --rate-limit N) would clash with the global ones; global options before the
// word are sorted here (sandboxArgv).

import { Command } from '@commander-js/extra-typings';
import { UsageError } from '../errors.js';
import { addGlobalOptions } from '../global-options.js';
import { command, type HostctlCommand } from './define.js';

export function sandboxCommand(): HostctlCommand {
  return (
    command('sandbox')
      .description('Run the local platform emulator (see hostctl sandbox --help)')
      .seeAlso(['sandbox'])
      .allowUnknownOption()
      .allowExcessArguments()
      // Reached only when main() did not see `sandbox` as the command word (`hostctl -- sandbox`).
      .action(() => {
        throw new UsageError('The sandbox is run as hostctl [-q|-v|--no-color] sandbox [its options].', 'Run "hostctl sandbox --help" for its options, e.g. hostctl sandbox --port 8080.');
      })
  );
}

/** The global options that mean something to the sandbox, as its own parser spells them. */
const FOR_THE_SANDBOX: Readonly<Record<string, string>> = {
  '--quiet': '--quiet',
  '--verbose': '--verbose',
  '--no-color': '--no-color',
  '--help': '--help',
};

const misplaced = (name: string) =>
  new UsageError(`${name} does not apply to the sandbox.`, 'Before the word sandbox it takes -q, -v and --no-color; run "hostctl sandbox --help" for its own options.');

/**
 * The sandbox's arguments when `sandbox` is the command argv names, after any global
 * options (`hostctl -q sandbox --port 0`): those that mean something there go first, any
 * other is a usage error naming it. Undefined when the command is not the sandbox (or an
 * option before it is unknown, which commander then reports).
 */
export function sandboxArgv(argv: readonly string[]): string[] | undefined {
  const options = addGlobalOptions(new Command()).options;
  const passed: string[] = [];
  let misfit: string | undefined;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('-') || arg === '-' || arg === '--') break;
    // A cluster of short flags (-qv, -ojson) is read one letter at a time, as commander does.
    const typed = arg.startsWith('--') ? [arg.split('=')[0] ?? arg] : [...arg.slice(1)].map((c) => `-${c}`);
    for (const [k, name] of typed.entries()) {
      const help = name === '-h' || name === '--help';
      const option = options.find((o) => o.long === name || o.short === name);
      if (option === undefined && !help) return undefined;
      const as = FOR_THE_SANDBOX[help ? '--help' : (option?.long ?? '')];
      if (as === undefined) misfit ??= name;
      else passed.push(as);
      if (option?.required) {
        const inline = arg.startsWith('--') ? arg.includes('=') : k < typed.length - 1;
        if (!inline) i++;
        break;
      }
    }
  }
  if (argv[i] !== 'sandbox') return undefined;
  if (misfit !== undefined) throw misplaced(misfit);
  return [...passed, ...argv.slice(i + 1)];
}

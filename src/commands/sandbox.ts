// `hostctl sandbox`, as the program lists it for --help and the reference. main() hands a
// leading `sandbox` to the sandbox's own parser (src/sandbox/main.ts), because its flags
// (such as --rate-limit N) would clash with the global ones.

import { UsageError } from '../errors.js';
import { command, type HostctlCommand } from './define.js';

export function sandboxCommand(): HostctlCommand {
  return (
    command('sandbox')
      .description('Run the local platform emulator (see hostctl sandbox --help)')
      .seeAlso(['sandbox'])
      .allowUnknownOption()
      .allowExcessArguments()
      // Reached only with options before the word (`hostctl -q sandbox`).
      .action(() => {
        throw new UsageError('The sandbox takes only its own options, after the word sandbox.', 'Run "hostctl sandbox --help" for them, e.g. hostctl sandbox --port 8080.');
      })
  );
}

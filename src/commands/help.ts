// `hostctl help [command…|topic]`. Its work is in src/help/run.ts, in a chunk of its own
// with the topics' texts; the answer goes out through commander's writer, as --help's does.

import { Argument } from '@commander-js/extra-typings';
import { UsageError } from '../errors.js';
import { completes } from './hints.js';
import { wrapText } from '../help/wrap.js';
import { command, type CommandUnknownOpts } from './define.js';

export function helpCommand(): CommandUnknownOpts {
  return command('help')
    .description('Show the help of a command, or a help topic')
    .examples(['hostctl help exit-codes', 'hostctl help apps list'])
    .addArgument(completes(new Argument('[command-or-topic...]', 'a command (apps list) or a topic below'), 'help'))
    .action(async (words, _opts, cmd) => {
      const program = cmd.parent ?? cmd;
      const { helpFor } = await import('../help/run.js');
      const answer = helpFor(program, words);
      if ('text' in answer) {
        const output = program.configureOutput();
        output.writeOut?.(wrapText(answer.text, output.getOutHelpWidth?.() ?? 80));
        return;
      }
      const meant = answer.suggestions.map((s) => `"hostctl help ${s}"`).join(' or ');
      throw new UsageError(
        `There is no help topic or command "${answer.unknown}".`,
        `${meant ? `Did you mean ${meant}? ` : ''}Run "hostctl help" for the commands and topics.`,
      );
    });
}

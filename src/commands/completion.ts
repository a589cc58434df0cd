// `hostctl completion <shell>`: prints the script shipped in the package's completions/
// folder, read at run time, so the printed text is the shipped file byte for byte and the
// build needs no loader for it. The folder is found by walking up from this module, which
// works from dist/ (bundled, any chunk depth) and from src/ (tests run on the sources).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { HostctlError, UsageError } from '../errors.js';
import { completes } from './hints.js';
import { command, withContext, type CommandUnknownOpts } from './define.js';

export const SCRIPT_FILES: Readonly<Record<string, string>> = {
  bash: 'hostctl.bash',
  zsh: '_hostctl',
  fish: 'hostctl.fish',
};

export function completionCommand(): CommandUnknownOpts {
  return (
    command('completion')
      .description('Print the shell completion script; Tab offers the public IDs hostctl has seen (no request)')
      // The same lines as docs/completion.md's, which a test runs in a fresh home directory.
      .examples([
        `echo 'source <(hostctl completion bash)' >> ~/.bashrc`,
        `echo 'source <(hostctl completion zsh)' >> ~/.zshrc`,
        'mkdir -p ~/.config/fish/completions && hostctl completion fish > ~/.config/fish/completions/hostctl.fish',
        // Tab sends no request: an empty Tab after "apps get" means no app seen yet.
        'hostctl apps list --all -o tsv > /dev/null   # fills the cache of app IDs that Tab offers',
      ])
      .addArgument(completes(new Argument('<shell>', 'bash, zsh or fish'), { values: Object.keys(SCRIPT_FILES) }))
      .action(withContext(async (ctx, [shell]) => completionRun(ctx, shell)))
  );
}

async function completionRun(ctx: Context, shell: string): Promise<void> {
  ctx.io.out(completionScript(shell));
}

function completionScript(shell: string, from: string = fileURLToPath(import.meta.url)): string {
  const file = SCRIPT_FILES[shell];
  if (!file) {
    throw new UsageError(`No completion script for "${shell}".`, 'Use hostctl completion bash, zsh or fish.');
  }
  const path = findScript(file, dirname(from));
  if (!path) {
    throw new HostctlError(
      `The completion script ${file} is missing from this installation of hostctl.`,
      'Reinstall hostctl (docs/install.md); the scripts ship in its completions/ folder.',
    );
  }
  return readFileSync(path, 'utf8');
}

function findScript(file: string, start: string): string | undefined {
  let dir = start;
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'completions', file);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

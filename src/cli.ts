// The program: assembles the commands (src/commands/, one file per command or per noun
// with its verbs, each holding its definition and its run), the global flags
// (global-options.ts), and error reporting. `main(argv, rt)` builds only the branch that
// argv names, so `hostctl apps list` constructs four commands, not sixty.

import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { VERSION } from './context.js';
import { HostctlError, ExitCode, UsageError } from './errors.js';
import { flushSinks, guarded, releaseSinks } from './io.js';
import { processRuntime, type Runtime } from './runtime.js';
import { HostctlCommand, TEACHING_HELP } from './help/command.js';
import { addGlobalOptions } from './global-options.js';
import { bindRuntime } from './commands/define.js';
import { resourceCommand } from './commands/resource.js';
import { RESOURCES } from './resources.js';
import { authCommand } from './commands/auth.js';
import { apiCommand } from './commands/api.js';
import { docsCommand } from './commands/docs.js';
import { rateLimitCommand } from './commands/rate-limit.js';
import { cacheCommand } from './commands/cache.js';
import { configCommand } from './commands/config.js';
import { completionCommand } from './commands/completion.js';
import { sandboxCommand } from './commands/sandbox.js';
import { versionCommand } from './commands/version.js';
import { helpCommand } from './commands/help.js';

interface Branch {
  /** The words that pick it: a command's name and its aliases. */
  readonly names: readonly string[];
  readonly build: () => CommandUnknownOpts;
}

const named = (name: string, build: () => CommandUnknownOpts): Branch => ({ names: [name], build });

/** The top-level commands, in the order --help lists them. */
const BRANCHES: readonly Branch[] = [
  named('auth', authCommand),
  ...RESOURCES.map((r) => ({ names: [r.name, ...r.aliases], build: () => resourceCommand(r) })),
  named('api', apiCommand),
  named('docs', docsCommand),
  named('rate-limit', rateLimitCommand),
  named('cache', cacheCommand),
  named('config', configCommand),
  named('completion', completionCommand),
  named('sandbox', sandboxCommand),
  named('version', versionCommand),
  named('help', helpCommand),
];

/**
 * The branches these words name, or all of them when they name none (`hostctl --help`,
 * a typo that wants suggestions) or name `help` (which lists and walks every command). A
 * flag's value that happens to be a command's name only builds one branch more.
 */
function branchesFor(words: readonly string[] | undefined): readonly Branch[] {
  if (words === undefined) return BRANCHES;
  const end = words.indexOf('--');
  const given = new Set(end === -1 ? words : words.slice(0, end));
  const picked = BRANCHES.filter((b) => b.names.some((n) => given.has(n)));
  return picked.length === 0 || picked.some((b) => b.names[0] === 'help') ? BRANCHES : picked;
}

/**
 * The commander program, with every command, or with only those `words` name (main()).
 * Its commands' actions run with `rt`.
 */
export function buildProgram(rt: Runtime = processRuntime(), words?: readonly string[]): HostctlCommand {
  const out = guarded(rt.stdout);
  const err = guarded(rt.stderr);
  const program = new HostctlCommand('hostctl');
  bindRuntime(program, rt);
  program
    .description("Command-line client for the platform's public API (v1, beta).")
    .examples([
      // Pasted as it is, it leaves a sandbox running in the background, its log in a file,
      // and this shell pointed at it; `kill %1` stops it.
      'hostctl sandbox > sandbox.env 2> sandbox.log & until [ -s sandbox.env ]; do sleep 0.2; done; set -a; . ./sandbox.env; set +a',
      'hostctl apps list',
      'hostctl apps get ap-… ap-… --json',
      'HOSTCTL_TOKEN=… hostctl envs list --all -o ndjson',
      "hostctl api /apps --paginate --json | jq 'length'",
    ])
    .version(VERSION, '--version', 'print the version');
  const output = {
    writeOut: (s: string) => out.write(s),
    writeErr: (s: string) => err.write(s),
    getOutHelpWidth: () => rt.stdout.columns ?? 80,
    getErrHelpWidth: () => rt.stderr.columns ?? 80,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
    // commander's "error: …" gets the prefix of every message hostctl writes.
    outputError: (s: string, write: (s: string) => void) => write(s.replace(/^error: /, 'hostctl: ')),
  };
  const shared = (cmd: CommandUnknownOpts) =>
    cmd
      .configureOutput(output)
      .helpOption('-h, --help', 'show help')
      .showSuggestionAfterError(true)
      .configureHelp(TEACHING_HELP)
      .exitOverride();
  shared(program);
  addGlobalOptions(program);
  program.hook('preAction', (_program, action) => refuseEmptyValues(action));
  for (const branch of branchesFor(words)) program.addCommand(branch.build());
  // commander passes these settings down only to the commands .command() makes; these
  // are made on their own (addCommand).
  const passDown = (cmd: CommandUnknownOpts): void => {
    for (const sub of cmd.commands) {
      shared(sub);
      passDown(sub);
    }
  };
  passDown(program);
  return program;
}

/**
 * An option that takes a value and was given an empty one (`--base-url ""`, often an unset
 * shell variable) is a usage error naming it, for every option of the command and its
 * parents: never read as if it were absent.
 */
function refuseEmptyValues(cmd: CommandUnknownOpts): void {
  for (let c: CommandUnknownOpts | null = cmd; c; c = c.parent) {
    for (const option of c.options) {
      if (!option.required && !option.optional) continue;
      const value: unknown = c.getOptionValue(option.attributeName());
      if (value === '' || (Array.isArray(value) && value.includes(''))) {
        const flag = option.long ?? option.short ?? option.flags;
        throw new UsageError(`${flag} needs a value, and was given an empty one.`, `Give ${flag} a value, or leave it out.`);
      }
    }
  }
}

/**
 * Runs hostctl with these arguments; resolves to the exit code. Never throws. The
 * process's own runtime by default; the in-process tests pass theirs.
 */
export async function main(argv: string[], rt: Runtime = processRuntime()): Promise<number> {
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  if (rt.stdout === process.stdout) {
    // A reader that goes away (`hostctl apps list | head -1`) is not an error: stop quietly
    // and successfully, as git and gh do, rather than with an EPIPE stack trace.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(ExitCode.Ok);
      throw err;
    });
  }
  try {
    // `hostctl __complete` never gets here: bin/hostctl.js runs dist/complete.cjs for it.
    if (argv[0] === 'sandbox') {
      const { sandboxMain } = await import('./sandbox/main.js');
      return await sandboxMain(argv.slice(1), rt);
    }
    const program = buildProgram(rt, argv);
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.Ok;
  } catch (err) {
    return reportError(err, verbose, rt.stderr);
  } finally {
    if (rt.stdout === process.stdout && rt.stderr === process.stderr) flushSinks();
    else releaseSinks(rt.stdout, rt.stderr);
  }
}

export function reportError(err: unknown, verbose: boolean, to: Runtime['stderr'] = process.stderr): number {
  // Through the one sink, like every other byte: an error built anywhere is cleaned here.
  const stderr = guarded(to);
  if (err instanceof CommanderError) {
    // commander has printed its own message (or the help / version) already.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
      return ExitCode.Ok;
    }
    if (err.code !== 'commander.executeSubCommandAsync') {
      stderr.write('Run "hostctl --help" (or "hostctl <command> --help") for usage.\n');
    }
    return ExitCode.Usage;
  }
  if (err instanceof HostctlError) {
    // An empty message: the command has already said what went wrong (`not found: <id>`).
    if (err.message) stderr.write(`hostctl: ${err.message}\n`);
    if (err.hint) stderr.write(`${err.hint}\n`);
    if (verbose && err.stack) stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  stderr.write(`hostctl: unexpected error: ${message}\n`);
  if (verbose && err instanceof Error && err.stack) stderr.write(`${err.stack}\n`);
  else stderr.write('Run again with --verbose for details, and report it if it persists.\n');
  return ExitCode.Error;
}

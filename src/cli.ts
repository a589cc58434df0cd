// The program: assembles the commands (src/commands/, one file per command or per noun
// with its verbs, each holding its definition and its run), the global flags
// (global-options.ts), and error reporting. `main(argv, rt)` builds only the branch that
// argv names, so `hostctl apps list` constructs four commands, not sixty.

import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { VERSION } from './context.js';
import { HostctlError, ExitCode, UsageError, errorData } from './errors.js';
import { flushSinks, guarded, openSinks, releaseSinks, secretsOf, type Secrets } from './io.js';
import { processRuntime, type Runtime } from './runtime.js';
import { oneLine } from './output/sanitize.js';
import { emptyOptionError } from './config/resolve.js';
import { HostctlCommand, TEACHING_HELP } from './commands/command.js';
import { addGlobalOptions } from './global-options.js';
import { bindRuntime } from './commands/define.js';
import { resourceCommand } from './commands/resource/resource.js';
import { RESOURCES } from './resources.js';
import { authCommand } from './commands/auth.js';
import { apiCommand } from './commands/api.js';
import { docsCommand } from './commands/docs.js';
import { rateLimitCommand } from './commands/rate-limit.js';
import { cacheCommand } from './commands/cache.js';
import { configCommand } from './commands/config.js';
import { completionCommand } from './commands/completion.js';
import { sandboxArgv, sandboxCommand } from './commands/sandbox.js';
import { versionCommand } from './commands/version.js';
import { helpCommand } from './commands/help.js';
import { commandsCommand } from './commands/commands.js';
import { mcpCommand } from './commands/mcp.js';
import { linkCommand, unlinkCommand } from './commands/link.js';
import { statusCommand } from './commands/status.js';

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
  named('link', linkCommand),
  named('unlink', unlinkCommand),
  named('status', statusCommand),
  named('api', apiCommand),
  named('docs', docsCommand),
  named('rate-limit', rateLimitCommand),
  named('cache', cacheCommand),
  named('config', configCommand),
  named('completion', completionCommand),
  named('sandbox', sandboxCommand),
  named('mcp', mcpCommand),
  named('version', versionCommand),
  named('commands', () =>
    commandsCommand(async () => {
      const { sandboxProgram, SANDBOX_EXAMPLES } = await import('./sandbox/main.js');
      // The same class at run time; only its typings (commander's own) differ.
      return { program: sandboxProgram() as unknown as CommandUnknownOpts, examples: SANDBOX_EXAMPLES };
    }),
  ),
  named('help', helpCommand),
];

/**
 * The branches these words name, or all of them when they name none (`hostctl --help`,
 * a typo that wants suggestions) or name `help` or `commands` (which list and walk every command). A
 * flag's value that happens to be a command's name only builds one branch more.
 */
function branchesFor(words: readonly string[] | undefined): readonly Branch[] {
  if (words === undefined) return BRANCHES;
  const end = words.indexOf('--');
  const given = new Set(end === -1 ? words : words.slice(0, end));
  const picked = BRANCHES.filter((b) => b.names.some((n) => given.has(n)));
  return picked.length === 0 || picked.some((b) => b.names[0] === 'help' || b.names[0] === 'commands') ? BRANCHES : picked;
}

/**
 * The commander program, with every command, or with only those `words` name (main()).
 * Its commands' actions run with `rt`.
 */
export function buildProgram(rt: Runtime = processRuntime(), words?: readonly string[]): HostctlCommand {
  const out = guarded(rt.stdout);
  const err = guarded(rt.stderr);
  // Under --json the parser's own message is reported as a JSON line (reportError), not here.
  const json = words !== undefined && wantsJson(words);
  const program = new HostctlCommand('hostctl');
  bindRuntime(program, rt);
  program
    .description("Command-line client for the platform's public API (v1, beta).")
    .examples([
      // Pasted as it is, it leaves a sandbox running in the background, its log in a file,
      // and this shell pointed at it; `kill %1` stops it.
      'rm -f sandbox.env; hostctl sandbox > sandbox.env 2> sandbox.log & until [ -s sandbox.env ]; do sleep 0.2; done; set -a; . ./sandbox.env; set +a',
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
    outputError: (s: string, write: (s: string) => void) => (json ? undefined : write(s.replace(/^error: /, 'hostctl: '))),
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
        throw emptyOptionError(flag);
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
  // The run's own list of secrets, empty at its start, whatever runs before it in this process knew.
  openSinks(rt.stdout, rt.stderr);
  if (rt.stdout === process.stdout) {
    // A reader that goes away (`hostctl apps list | head -1`) is not an error: stop quietly
    // and successfully, as git and gh do, rather than with an EPIPE stack trace.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(ExitCode.Ok);
      process.exit(reportWriteFailure(err, rt.stderr));
    });
  }
  if (rt.stderr === process.stderr) routeNodeWarnings(rt.stderr);
  const code = await run(argv, rt, verbose);
  // A write to a file fails at once (a full disk, /dev/full), and the run may end before
  // the stream's error event would be emitted: asked here, no command exits 0 having
  // printed nothing.
  const failed = rt.stdout === process.stdout ? (process.stdout.errored as NodeJS.ErrnoException | null) : null;
  if (failed && failed.code !== 'EPIPE') return reportWriteFailure(failed, rt.stderr);
  return code;
}

/**
 * Node's own warnings (NODE_TLS_REJECT_UNAUTHORIZED=0, a deprecation in a dependency) as
 * hostctl's, through the sink: Node's handler would print `(node:PID) Warning: …` and a
 * hint about --trace-warnings, which is not the user's to act on.
 */
function routeNodeWarnings(to: Runtime['stderr']): void {
  // Silenced as Node would silence them.
  if (process.env.NODE_NO_WARNINGS === '1' || process.execArgv.includes('--no-warnings')) return;
  process.removeAllListeners('warning');
  process.on('warning', (w: Error & { code?: string }) => {
    const kind = w.name === 'Warning' ? '' : ` (${w.name}${w.code ? ` ${w.code}` : ''})`;
    guarded(to).write(`hostctl: warning: ${w.message.replace(/\s*\n\s*/g, ' ')}${kind}\n`);
  });
}

/** One sentence for output that could not be written (not a reader that went away): exit 1. */
function reportWriteFailure(err: NodeJS.ErrnoException, to: Runtime['stderr']): number {
  const why = err.message.replace(/^[A-Z]+: /, '').replace(/, write$/, '');
  guarded(to).write(`hostctl: could not write to standard output: ${why}${err.code ? ` (${err.code})` : ''}.\n`);
  return ExitCode.Error;
}

async function run(argv: string[], rt: Runtime, verbose: boolean): Promise<number> {
  try {
    // `hostctl __complete` never gets here: bin/hostctl.js runs dist/complete.cjs for it.
    const forSandbox = argv.includes('sandbox') ? sandboxArgv(argv) : undefined;
    if (forSandbox !== undefined) {
      const { sandboxMain } = await import('./sandbox/main.js');
      return await sandboxMain(forSandbox, rt);
    }
    const program = buildProgram(rt, argv);
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.Ok;
  } catch (err) {
    return reportError(err, verbose, rt.stderr, wantsJson(argv));
  } finally {
    if (rt.stdout === process.stdout && rt.stderr === process.stderr) flushSinks();
    else releaseSinks(rt.stdout, rt.stderr);
  }
}

/**
 * Whether these words ask for JSON output (--json, -o json or ndjson, before any `--`):
 * then an error is one JSON line on stderr. Read off the words, so that a usage error of
 * the parser itself is reported so too.
 */
export function wantsJson(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--') return false;
    if (a === '--json') return true;
    const value = a === '-o' || a === '--output' ? argv[i + 1] : /^(?:--output=|-o=?)(.+)$/.exec(a)?.[1];
    if (value === 'json' || value === 'ndjson') return true;
  }
  return false;
}

/** One line of JSON, every string in it scrubbed before it is escaped (an escaped secret would not be found). */
export function jsonLine(value: unknown, secrets: Secrets): string {
  return `${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? secrets.scrub(v) : v))}\n`;
}

/** The messages of an error's causes, outermost first; a few at most, whatever the chain. */
function causes(err: Error): string[] {
  const out: string[] = [];
  for (let c: unknown = err.cause; c !== undefined && c !== null && out.length < 5; c = c instanceof Error ? c.cause : undefined) {
    out.push(oneLine(c instanceof Error ? c.message || c.name : String(c), 2000));
  }
  return out;
}

export function reportError(err: unknown, verbose: boolean, to: Runtime['stderr'] = process.stderr, json = false): number {
  // Through the one sink, like every other byte: an error built anywhere is cleaned here.
  const stderr = guarded(to);
  if (err instanceof HostctlError && err.exitCode === ExitCode.Ok) return ExitCode.Ok;
  if (json) {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')) return ExitCode.Ok;
    const usage = 'Run "hostctl --help" (or "hostctl <command> --help") for usage.';
    const data = errorData(err instanceof CommanderError ? new UsageError(err.message.replace(/^error: /, ''), usage) : err);
    // An empty message: the command has said what it had to (`docs diff --exit-status`).
    if (data.message) stderr.write(jsonLine({ error: data }, secretsOf(to)));
    return data.exit;
  }
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
    // What went wrong underneath (the network error's code and text): not in err.stack.
    if (verbose) for (const cause of causes(err)) stderr.write(`Cause: ${cause}\n`);
    if (verbose && err.stack) stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  stderr.write(`hostctl: unexpected error: ${message}\n`);
  if (verbose && err instanceof Error && err.stack) stderr.write(`${err.stack}\n`);
  else stderr.write('Run again with --verbose for details, and report it if it persists.\n');
  return ExitCode.Error;
}

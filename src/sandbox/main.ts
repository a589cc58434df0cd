// `hostctl sandbox`: its own commander parser (its --rate-limit N would clash with the
// global -R/--rate-limit), two lines on stdout for `eval`, then serve until a signal.

import { Command, CommanderError, Help, InvalidArgumentError, Option } from 'commander';
import type { Writable } from 'node:stream';
import { DEFAULTS, SandboxStartError, startSandboxServer, type LogKind, type SandboxOptions } from './server.js';
import { wrapText, wrapWords } from '../help/wrap.js';

export { startSandboxServer, type RunningSandbox, type StartOptions } from './server.js';

function integer(min: number, max: number, what: string) {
  return (value: string): number => {
    const n = /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!(n >= min && n <= max)) throw new InvalidArgumentError(`${what} must be a whole number from ${min} to ${max}, not "${value}".`);
    return n;
  };
}

function nonEmpty(what: string) {
  return (value: string): string => {
    if (value.trim() === '') throw new InvalidArgumentError(`${what} must not be empty.`);
    return value;
  };
}

/** Shown by --help, and in the generated reference (docs/commands.md, man/). */
export const SANDBOX_EXAMPLES: readonly string[] = [
  'rm -f sandbox.env; hostctl sandbox > sandbox.env 2> sandbox.log & until [ -s sandbox.env ]; do sleep 0.2; done; set -a; . ./sandbox.env; set +a',
  'hostctl sandbox --port 8080',
  'hostctl sandbox --rate-limit 5 --window 10 --state ~/.hostctl-sandbox.json',
];

/** Where the sandbox's own output goes: the process's streams, or a test's. */
export interface SandboxStreams {
  stdout: Writable;
  stderr: Writable;
}

/** The sandbox's own parser; also read by the generated reference. */
export function sandboxProgram(out: Writable = process.stdout): Command {
  return new Command('hostctl sandbox')
    .description('Run a local emulator of the platform API on loopback: seeded data, tokens, rate limit and lockout, as the platform document describes.')
    .addOption(new Option('--host <address>', 'address to listen on').default(DEFAULTS.host).argParser(nonEmpty('--host')))
    .addOption(new Option('--port <n>', 'port to listen on; 0 picks a free one').default(DEFAULTS.port).argParser(integer(0, 65535, '--port')))
    .addOption(new Option('--rate-limit <n>', 'requests per token per window').default(DEFAULTS.rateLimit).argParser(integer(1, 1_000_000, '--rate-limit')))
    .addOption(new Option('--window <seconds>', 'length of the sliding rate-limit window').default(DEFAULTS.windowSeconds).argParser(integer(1, 86_400, '--window')))
    .addOption(new Option('--page-size <n>', 'objects per page of a collection').default(DEFAULTS.pageSize).argParser(integer(1, 100, '--page-size')))
    .addOption(new Option('--lockout-after <n>', 'failed authentications from one IP that lock it out').default(DEFAULTS.lockoutAfter).argParser(integer(1, 1_000_000, '--lockout-after')))
    .addOption(new Option('--lockout-seconds <seconds>', 'how long a lockout lasts, and the window failures are counted in').default(DEFAULTS.lockoutSeconds).argParser(integer(1, 86_400, '--lockout-seconds')))
    .addOption(new Option('--seed <n>', 'seed of the generated data').default(DEFAULTS.seed).argParser(integer(0, 4_294_967_295, '--seed')))
    .addOption(new Option('--state <file>', 'keep tokens and data in this file across restarts').argParser(nonEmpty('--state')))
    // hostctl's global options that mean something here; also taken before the word sandbox.
    .option('-q, --quiet', 'log only warnings and errors: no start notes, no request lines')
    .option('-v, --verbose', 'log the stack of an error inside the sandbox')
    .option('--no-color', 'no colour (the sandbox writes none)')
    .helpOption('-h, --help', 'show this help')
    .configureHelp({
      // As the client's help does (src/commands/command.ts): on a terminal too narrow for two
      // columns, each description goes under its option, wrapped.
      formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
        const width = this.helpWidth ?? 80;
        if (description === '' || width - termWidth - 4 >= this.minWidthToWrap) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
        return [`  ${term}`, ...wrapWords(description, width - 6).map((l) => `      ${l}`)].join('\n');
      },
    })
    .addHelpText('after', () => wrapText(HELP_AFTER, helpWidth(out)))
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => out.write(s),
      getOutHelpWidth: () => helpWidth(out),
      // Errors are reworded below into one sentence.
      writeErr: () => undefined,
      outputError: () => undefined,
    });
}

/** The terminal's width, or 80 into a pipe (as the client's help). */
function helpWidth(out: Writable): number {
  const columns = (out as Writable & { columns?: number }).columns;
  return columns !== undefined && columns > 0 ? columns : 80;
}

const HELP_AFTER = `
Prints two lines on stdout, then serves until Ctrl-C (SIGINT, exit 130) or SIGTERM (143):
  HOSTCTL_BASE_URL=http://127.0.0.1:PORT/v1
  HOSTCTL_TOKEN=<a token named "sandbox">
Logs go to stderr, after the "export ..." line to paste into another terminal.

Examples:
${SANDBOX_EXAMPLES.map((l) => `  $ ${l}`).join('\n')}

Admin endpoints (loopback only, no token): POST/GET /_sandbox/tokens, DELETE /_sandbox/tokens/NAME,
GET/DELETE /_sandbox/requests, GET/POST /_sandbox/objects/RESOURCE.

Learn more:
  hostctl help sandbox  how to start it and point hostctl at it
  man hostctl-sandbox   this help as a manual page (also docs/commands.md, docs/sandbox.md)
`;

interface ParsedFlags {
  host: string;
  port: number;
  rateLimit: number;
  window: number;
  pageSize: number;
  lockoutAfter: number;
  lockoutSeconds: number;
  seed: number;
  state?: string;
  quiet?: boolean;
  verbose?: boolean;
}

function usageMessage(err: CommanderError): string {
  if (err.code === 'commander.excessArguments') return 'It takes no arguments, only flags.';
  // commander says "option '--port <n>' argument 'abc' is invalid. <our reason>": keep ours.
  const reason = err.code === 'commander.invalidArgument' ? /is invalid\. (.*)$/s.exec(err.message)?.[1] : undefined;
  const text = reason ?? err.message.replace(/^error: /, '');
  const first = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** The shell line that points hostctl at this sandbox; quoted, so any shell takes it as is. */
function exportLine(url: string, token: string): string {
  return `export HOSTCTL_BASE_URL='${url}' HOSTCTL_TOKEN='${token}'`;
}

export async function sandboxMain(argv: string[], { stdout, stderr }: SandboxStreams = process): Promise<number> {
  // `hostctl sandbox | head -2`: a reader that goes away must not crash the server.
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const cmd = sandboxProgram(stdout);
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help') return 0;
      stderr.write(`hostctl sandbox: ${usageMessage(err)} Run "hostctl sandbox --help" for the flags.\n`);
      return 2;
    }
    throw err;
  }
  const flags = cmd.opts<ParsedFlags>();
  const options: SandboxOptions = {
    host: flags.host,
    port: flags.port,
    rateLimit: flags.rateLimit,
    windowSeconds: flags.window,
    pageSize: flags.pageSize,
    lockoutAfter: flags.lockoutAfter,
    lockoutSeconds: flags.lockoutSeconds,
    seed: flags.seed,
    stateFile: flags.state,
  };

  const quiet = flags.quiet === true;
  const log = (line: string, kind: LogKind, err?: unknown): void => {
    if (quiet && kind === 'request') return;
    stderr.write(`${line}\n`);
    if (flags.verbose && err instanceof Error && err.stack) stderr.write(`${err.stack}\n`);
  };
  // Notes for the person watching; -q leaves stderr to warnings and errors.
  const note = (text: string): void => {
    if (!quiet) stderr.write(text);
  };

  let sandbox;
  try {
    sandbox = await startSandboxServer({ ...options, log });
  } catch (err) {
    if (err instanceof SandboxStartError) {
      stderr.write(`hostctl sandbox: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  // Listening for the signals before the two lines go out: a script that reads them and
  // stops the sandbox at once must get the sandbox's exit code, not the signal's death.
  const running = sandbox;
  const stopped = new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      note(`hostctl sandbox: ${signal} received, stopping.\n`);
      // The contract's codes for a run ended by a signal (128 + its number), the sandbox's too.
      void running.close().then(() => resolve(signal === 'SIGINT' ? 130 : 143));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  stdout.write(`HOSTCTL_BASE_URL=${sandbox.url}\nHOSTCTL_TOKEN=${sandbox.token}\n`);
  // stdout usually goes to a file (`> sandbox.env`); the person at the terminal, or reading
  // the log, gets the line to paste into another shell. It is the sandbox's own
  // throwaway token, the one stdout carries; request log lines never show it.
  note(
    `hostctl sandbox: serving ${sandbox.url} (rate limit ${options.rateLimit} per ${options.windowSeconds}s per token${options.stateFile ? `, state in ${options.stateFile}` : ''}). Stop with Ctrl-C.\n` +
      `hostctl sandbox: to use it from another terminal, run:\n${exportLine(sandbox.url, sandbox.token)}\n`,
  );
  return stopped;
}

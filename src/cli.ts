// The commander program. Commands are declared here (names, flags, help); their work
// lives in src/commands/ and is loaded only when the command runs, so `--version`,
// `--help` and completion stay fast.

import { Command, CommanderError, Option } from 'commander';
import { Context, VERSION, type GlobalOptions } from './context.js';
import { HostctlError, ExitCode, UsageError } from './errors.js';
import { flushSinks, guarded, releaseSinks } from './io.js';
import { processRuntime, type Runtime } from './runtime.js';
import { HostctlCommand, TEACHING_HELP } from './help/command.js';
import { RESOURCES, type Resource } from './resources.js';
import { OUTPUT_FORMATS } from './config/config.js';

type Action = (ctx: Context, cmd: Command) => Promise<void>;

/** The runtime of the program being built; read by action() as each command is declared. */
let runtime: Runtime = processRuntime();

/** Wraps a command's work: builds the context, runs, then saves state and prints -R. */
function action(run: Action) {
  const rt = runtime;
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const ctx = new Context(cmd.optsWithGlobals<GlobalOptions>(), rt);
    try {
      await run(ctx, cmd);
    } finally {
      await ctx.finish();
    }
  };
}

function addResourceCommands(program: HostctlCommand, r: Resource): void {
  const cmd = program.command(r.name).description(`${r.description}: list, get and wait`);
  for (const alias of r.aliases) cmd.alias(alias);
  const idHint = r.prefix ? `${r.prefix}…` : '<publicId>';
  cmd.examples([`hostctl ${r.name} list`, `hostctl ${r.name} get ${idHint}`]).seeAlso(['formatting', 'exit-codes']);

  const list = cmd
    .command('list')
    .alias('ls')
    .description(`List ${r.description.toLowerCase()} (first page unless --all)`)
    .option('--limit <n>', 'stop after N objects')
    .option('--all', 'walk every page')
    .option('--page <n>', 'show page N (from 1)')
    .option('--watch', 'fetch again every interval and print what changed, until Ctrl-C')
    .option('--interval <duration>', 'with --watch: time between rounds (default 5s; longer when the budget needs it)');
  for (const rel of r.relations ?? []) {
    const target = RESOURCES.find((t) => t.name === rel.target);
    list.option(`--${rel.flag} <id>`, `only the ${r.name} of this ${target?.singular ?? rel.flag}${target?.prefix ? ` (${target.prefix}…)` : ''}`);
  }
  list
    .examples([
      `hostctl ${r.name} list`,
      `hostctl ${r.name} list --all --json | jq -r '.[].publicId'`,
      `hostctl ${r.name} list --limit 5 --fields publicId,${r.columns[0] ?? 'name'}`,
      ...(r.relations ?? []).slice(0, 1).map((rel) => `hostctl ${r.name} list --${rel.flag} ${RESOURCES.find((t) => t.name === rel.target)?.prefix ?? ''}…`),
    ])
    .seeAlso(['formatting', 'rate-limit'])
    .action(
      action(async (ctx, c) => {
        const { listRun } = await import('./commands/resource.js');
        await listRun(ctx, r, c.opts());
      }),
    );

  cmd
    .command('get')
    .alias('view')
    .description(`Show one or more ${r.description.toLowerCase()} by public ID (one request for all)`)
    .argument('<publicId...>', `public IDs (${idHint})`)
    .option('--watch', 'fetch again every interval and print what changed, until Ctrl-C')
    .option('--interval <duration>', 'with --watch: time between rounds (default 5s; longer when the budget needs it)')
    .examples([`hostctl ${r.name} get ${idHint}`, `hostctl ${r.name} get ${idHint} ${idHint} --json`, `hostctl ${r.name} get ${idHint} --watch -o ndjson`])
    .seeAlso(['formatting', 'exit-codes'])
    .action(
      action(async (ctx, c) => {
        const { getRun } = await import('./commands/resource.js');
        await getRun(ctx, r, c.args, c.opts());
      }),
    );

  cmd
    .command('wait')
    .description(`Wait until ${r.description.toLowerCase()} meet a condition (one request per round for all; exit 7 at the deadline)`)
    .argument('<publicId...>', `public IDs (${idHint})`)
    .option('--for <FIELD=VALUE>', 'a condition: FIELD=VALUE or FIELD!=VALUE, FIELD a dotted path (repeatable; all must hold)', collect, [])
    .option('--deadline <duration>', 'give up (exit 7) after this long, e.g. 90s, 10m (default 10m)')
    .option('--interval <duration>', 'time between polls (default 5s; longer when the token\'s budget needs it)')
    .examples([`hostctl ${r.name} wait ${idHint} --for status=running`, `hostctl ${r.name} wait ${idHint} ${idHint} --for status!=deploying --deadline 5m`])
    .seeAlso(['rate-limit', 'exit-codes'])
    .action(
      action(async (ctx, c) => {
        const { waitRun } = await import('./commands/wait.js');
        await waitRun(ctx, r, c.args, c.opts());
      }),
    );
}

export function buildProgram(rt: Runtime = processRuntime()): HostctlCommand {
  runtime = rt;
  const out = guarded(rt.stdout);
  const err = guarded(rt.stderr);
  const program = new HostctlCommand('hostctl');
  program
    .configureOutput({
      writeOut: (s) => out.write(s),
      writeErr: (s) => err.write(s),
      getOutHelpWidth: () => rt.stdout.columns ?? 80,
      getErrHelpWidth: () => rt.stderr.columns ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .description("Command-line client for the platform's public API (v1, beta).")
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--base-url <url>', 'API base URL, ending in /v1 (env: HOSTCTL_BASE_URL)')
    .option('--profile <name>', 'named profile: base URL and its token (env: HOSTCTL_PROFILE)')
    .option('--json', 'same as -o json')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('--fields <list>', 'keep only these properties, e.g. publicId,name')
    .option('--jq <expr>', 'filter the JSON output through jq (strings raw, as jq -r)')
    .option('-R, --rate-limit', 'after the command, print the rate-limit state to stderr')
    .option('--no-wait', 'on 429 exit 5 at once instead of waiting')
    .option('--max-wait <seconds>', 'longest total wait for the rate limit (default 120)')
    .option('--cache <duration>', 'accept answers up to this old from the local cache, e.g. 10m (env: HOSTCTL_CACHE)')
    .option('--retries <n>', 'resends of a GET after 502/503/504 or a dropped connection (default 2)')
    .option('--timeout <seconds>', 'per-request timeout (default 30)')
    .option('-v, --verbose', 'log each HTTP exchange to stderr (token redacted)')
    .option('-q, --quiet', 'no spinner, no notes')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .showSuggestionAfterError(true)
    .configureHelp(TEACHING_HELP)
    .exitOverride()
    .examples([
      // Pasted as it is, it leaves a sandbox running in the background, its log in a file,
      // and this shell pointed at it; `kill %1` stops it.
      'hostctl sandbox > sandbox.env 2> sandbox.log & until [ -s sandbox.env ]; do sleep 0.2; done; set -a; . ./sandbox.env; set +a',
      'hostctl apps list',
      'hostctl apps get ap-… ap-… --json',
      'HOSTCTL_TOKEN=… hostctl envs list --all -o ndjson',
      "hostctl api /apps --paginate --json | jq 'length'",
    ]);

  const auth = program
    .command('auth')
    .description('Log in, check and remove the stored token')
    .examples(['hostctl auth login --base-url https://api.example.com/v1', 'hostctl auth status --check', 'hostctl auth logout'])
    .seeAlso(['environment', 'exit-codes']);
  auth
    .command('login')
    .description('Check a token with one request, then store it in the OS keychain')
    .option('--with-token', 'read the token from stdin (for CI)')
    .option('--insecure-storage', 'store the token in a 0600 file instead of the keychain')
    .examples([
      'hostctl auth login --base-url https://api.example.com/v1',
      'hostctl auth login --with-token < token.txt',
      'hostctl --profile staging auth login --base-url https://staging.example.com/v1',
    ])
    .seeAlso(['environment', 'exit-codes'])
    .action(
      action(async (ctx, c) => {
        const { loginRun } = await import('./commands/auth.js');
        await loginRun(ctx, c.opts());
      }),
    );
  auth
    .command('status')
    .description('Show the profile, base URL, token source and …last4 (no request unless --check)')
    .option('--check', 'send one request to check the token')
    .examples(['hostctl auth status', 'hostctl auth status --check', 'hostctl --profile staging auth status --json'])
    .seeAlso(['environment', 'exit-codes'])
    .action(
      action(async (ctx, c) => {
        const { statusRun } = await import('./commands/auth.js');
        await statusRun(ctx, c.opts());
      }),
    );
  auth
    .command('logout')
    .description("Remove the profile's stored token")
    .examples(['hostctl auth logout', 'hostctl --profile staging auth logout'])
    .seeAlso(['environment'])
    .action(
      action(async (ctx) => {
        const { logoutRun } = await import('./commands/auth.js');
        await logoutRun(ctx);
      }),
    );
  auth
    .command('token')
    .description('Print the token to stdout (for piping)')
    .examples(['hostctl auth token | pbcopy', 'curl -H "Authorization: Bearer $(hostctl auth token)" "$(hostctl config get profiles.default.baseUrl)/apps"'])
    .seeAlso(['environment'])
    .action(
      action(async (ctx) => {
        const { tokenRun } = await import('./commands/auth.js');
        await tokenRun(ctx);
      }),
    );

  for (const r of RESOURCES) addResourceCommands(program, r);

  program
    .command('api')
    .description('Call any endpoint with the same auth, rate-limit handling and output')
    .argument('<path|operationId>', "path relative to the base URL (/apps), an absolute URL of the same origin, or an operation's name from the reference (getApp)")
    .option('-X, --method <method>', "HTTP method (default GET, or POST with fields or input; an operationId's from the reference)")
    .option('-f, --raw-field <key=value>', 'add a string field (repeatable)', collect, [])
    .option('-F, --field <key=value>', 'add a typed field: numbers, true/false, null, @file (repeatable)', collect, [])
    .option('--input <file>', 'the request body from a file, or - for stdin')
    .option('-H, --header <"Name: value">', 'add a request header (repeatable)', collect, [])
    .option('-i, --include', 'print the status line and headers before the body')
    .option('--paginate', 'follow next pages and concatenate the arrays')
    .examples([
      'hostctl api /apps',
      "hostctl api '/apps?publicId[]=ap-…' --json | jq '.[0].name'",
      'hostctl api /apps --paginate -o ndjson',
      'hostctl api -X POST /apps -f name=demo -F replicas=2',
      'hostctl api /docs -i',
      'hostctl api getApp -f publicId=ap-…   # method and path from the reference (hostctl docs --operations)',
      'hostctl api listApps -f itemsPerPage=5',
    ])
    .seeAlso(['formatting', 'rate-limit', 'exit-codes'])
    .action(
      action(async (ctx, c) => {
        const { apiRun } = await import('./commands/api.js');
        await apiRun(ctx, c.args[0] ?? '', c.opts());
      }),
    );

  const docs = program
    .command('docs')
    .description('Print the URL of the generated API reference, list its operations, or show what changed')
    .option('--open', 'open the reference in the browser')
    .option('--operations', 'list method, path and summary of each operation (the reference is kept for a day)')
    .option('--refresh', 'fetch the reference again now and keep it')
    .examples(['hostctl docs', 'hostctl docs --operations', 'hostctl docs --operations --json | jq -r ".[].operationId"', 'hostctl docs --refresh', 'hostctl docs diff --exit-status'])
    .seeAlso(['formatting'])
    .action(
      action(async (ctx, c) => {
        const { docsRun } = await import('./commands/docs.js');
        await docsRun(ctx, c.opts());
      }),
    );
  docs
    .command('diff')
    .description('Show operations added, removed and changed since the kept reference, then keep the current one')
    .option('--exit-status', 'exit 1 when something changed (for CI)')
    .examples(['hostctl docs diff', 'hostctl docs diff --json', 'hostctl docs diff --exit-status -o tsv   # in CI: fail when the beta changed'])
    .seeAlso(['formatting', 'exit-codes'])
    .action(
      action(async (ctx, c) => {
        const { docsDiffRun } = await import('./commands/docs.js');
        await docsDiffRun(ctx, c.opts());
      }),
    );

  program
    .command('rate-limit')
    .description('Show the last rate-limit state seen for the current token (no request unless --refresh)')
    .option('--refresh', 'spend one request to update it')
    .examples(['hostctl rate-limit', 'hostctl rate-limit --refresh', 'hostctl rate-limit --json | jq .remaining'])
    .seeAlso(['rate-limit'])
    .action(
      action(async (ctx, c) => {
        const { rateLimitRun } = await import('./commands/rate-limit.js');
        await rateLimitRun(ctx, c.opts());
      }),
    );

  const cache = program
    .command('cache')
    .description('The local response cache of --cache (no request)')
    .examples(['hostctl apps list --all --cache 10m', 'hostctl cache info', 'hostctl cache clear'])
    .seeAlso(['rate-limit']);
  for (const [verb, desc, example] of [
    ['info', 'Show where the cache is, its entries, size and oldest entry', ['hostctl cache info', 'hostctl cache info --json']],
    ['clear', 'Remove every cached answer, for every base URL and token', ['hostctl cache clear', 'hostctl cache clear && hostctl cache info']],
  ] as const) {
    cache
      .command(verb)
      .description(desc)
      .examples(example)
      .seeAlso(['rate-limit'])
      .action(
        action(async (ctx) => {
          const { cacheInfoRun, cacheClearRun } = await import('./commands/cache.js');
          (verb === 'info' ? cacheInfoRun : cacheClearRun)(ctx);
        }),
      );
  }

  const config = program.command('config').description('Read and change settings (profiles, base URL, output)');
  for (const [verb, args, desc, example] of [
    ['list', '', 'show all settings', ['hostctl config list', 'hostctl config list --json']],
    ['get', '<key>', 'print one setting, e.g. profiles.default.baseUrl', ['hostctl config get profiles.default.baseUrl', 'hostctl config get defaultProfile']],
    ['set', '<key> <value>', 'change one setting', ['hostctl config set profiles.default.output json', 'hostctl config set defaultProfile staging']],
    ['unset', '<key>', 'remove one setting', ['hostctl config unset profiles.default.output', 'hostctl config unset defaultProfile']],
    ['path', '', 'print where the config file lives', ['hostctl config path', 'cat "$(hostctl config path)"']],
  ] as const) {
    const sub = config
      .command(`${verb}${args ? ` ${args}` : ''}`)
      .description(desc)
      .examples(example)
      .seeAlso(['environment']);
    sub.action(
      action(async (ctx, c) => {
        const { configRun } = await import('./commands/config.js');
        await configRun(ctx, verb, c.args);
      }),
    );
  }
  config
    .examples([
      'hostctl config set profiles.default.baseUrl https://api.example.com/v1',
      'hostctl config set profiles.default.output json',
      'hostctl config set defaultProfile staging',
      'hostctl config list',
    ])
    .seeAlso(['environment']);

  program
    .command('completion')
    .description('Print the shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    // The same lines as docs/completion.md's, which a test runs in a fresh home directory.
    .examples([
      `echo 'source <(hostctl completion bash)' >> ~/.bashrc`,
      `echo 'source <(hostctl completion zsh)' >> ~/.zshrc`,
      'mkdir -p ~/.config/fish/completions && hostctl completion fish > ~/.config/fish/completions/hostctl.fish',
    ])
    .action(
      action(async (ctx, c) => {
        const { completionRun } = await import('./commands/completion.js');
        await completionRun(ctx, c.args[0] ?? '');
      }),
    );

  // Listed for --help; `main` hands its arguments to the sandbox's own parser, because
  // its flags (such as --rate-limit N) would clash with the global ones.
  program
    .command('sandbox')
    .description('Run the local platform emulator (see hostctl sandbox --help)')
    .allowUnknownOption()
    .allowExcessArguments()
    .seeAlso(['sandbox'])
    // Reached only with options before the word (`hostctl -q sandbox`): main() hands a
    // leading `sandbox` to the sandbox's own parser.
    .action(() => {
      throw new UsageError('The sandbox takes only its own options, after the word sandbox.', 'Run "hostctl sandbox --help" for them, e.g. hostctl sandbox --port 8080.');
    });

  program
    .command('version')
    .description('Print the versions of hostctl and Node.js, and the platform (for bug reports)')
    .examples(['hostctl version', 'hostctl version --json'])
    .action(
      action(async (ctx) => {
        const { versionRun } = await import('./commands/version.js');
        await versionRun(ctx);
      }),
    );

  program
    .command('help')
    .argument('[command-or-topic...]', 'a command (apps list) or a topic below')
    .description('Show the help of a command, or a help topic')
    .examples(['hostctl help exit-codes', 'hostctl help apps list'])
    .action(async (words: string[]) => {
      const { helpFor } = await import('./help/run.js');
      const answer = helpFor(program, words);
      if ('text' in answer) {
        out.write(answer.text);
        return;
      }
      const meant = answer.suggestions.map((s) => `"hostctl help ${s}"`).join(' or ');
      throw new UsageError(
        `There is no help topic or command "${answer.unknown}".`,
        `${meant ? `Did you mean ${meant}? ` : ''}Run "hostctl help" for the commands and topics.`,
      );
    });

  return program;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
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
    const program = buildProgram(rt);
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

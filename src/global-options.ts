// The global flags, which every command takes: written once here, listed by every --help
// as "Inherited Options", completed by Tab and documented in docs/commands.md and the man
// pages. parseGlobalOptions reads them, with the environment variables that stand in for
// them, once, before a command runs: a bad value is a usage error before anything is read
// or sent, and the Context gets typed values, never the strings.

import { Option, type Command } from '@commander-js/extra-typings';
import { OUTPUT_FORMATS, isOutputFormat, type OutputFormat } from './config/config.js';
import { parseDuration, parseSeconds } from './config/duration.js';
import { UsageError } from './errors.js';
import { oneLine } from './output/sanitize.js';
import { MAX_TIMER_MS } from './runtime.js';
import { completes } from './commands/hints.js';

export function addGlobalOptions(program: Command) {
  return program
    .option('--base-url <url>', 'API base URL, ending in /v1 (env: HOSTCTL_BASE_URL)')
    .addOption(completes(new Option('--profile <name>', 'named profile: base URL and its token (env: HOSTCTL_PROFILE)'), 'profiles'))
    .option('--json', 'same as -o json')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS))
    .addOption(completes(new Option('--fields <list>', 'keep only these properties, e.g. publicId,name'), 'fields'))
    .option('--jq <expr>', 'filter the JSON output through jq (strings raw, as jq -r)')
    .option('-R, --rate-limit', 'after the command, print the rate-limit state to stderr')
    .option('--no-wait', 'on 429 exit 5 at once instead of waiting')
    .option('--max-wait <seconds>', 'longest total wait for the rate limit (default 120)')
    .addOption(new Option('--cache <duration>', 'accept answers up to this old from the local cache, e.g. 10m (env: HOSTCTL_CACHE)'))
    .option('--retries <n>', 'resends of a GET after 502/503/504 or a dropped connection (default 2)')
    .option('--timeout <seconds>', 'per-request timeout (default 30)')
    .option('-v, --verbose', 'log each HTTP exchange to stderr (token redacted)')
    .addOption(new Option('--dry-run', 'print the requests the command would send (token masked), and send none'))
    .option('-q, --quiet', 'no spinner, no notes')
    .option('--no-color', 'no colour (also NO_COLOR)');
}

/** The global flags as commander hands them to a command (optsWithGlobals): strings, each may be absent. */
export type GlobalFlags = Partial<ReturnType<ReturnType<typeof addGlobalOptions>['opts']>>;

/** The global options of a run, checked and typed. */
export interface GlobalOptions {
  /**
   * --base-url and --profile as given: config/resolve.ts weighs them against the
   * environment and the config (which the completion engine resolves through too).
   */
  readonly baseUrl?: string;
  readonly profile?: string;
  /** --json or -o; undefined leaves the format to the profile, then to the terminal. */
  readonly output?: OutputFormat;
  readonly fields?: string[];
  readonly jq?: string;
  /** -R */
  readonly rateLimit: boolean;
  /** false with --no-wait. */
  readonly wait: boolean;
  readonly maxWaitMs: number;
  /** --cache, else HOSTCTL_CACHE, in ms; undefined leaves it to the profile. */
  readonly cacheMs?: number;
  /** undefined leaves the client's default (src/http/retry.ts). */
  readonly retries?: number;
  readonly timeoutMs: number;
  readonly verbose: boolean;
  readonly quiet: boolean;
  /** false with --no-color; the environment's colour variables are the IO's to weigh. */
  readonly color: boolean;
  readonly dryRun: boolean;
  /** HOSTCTL_ACCESSIBLE; undefined leaves it to the config. */
  readonly accessible?: boolean;
  /** HOSTCTL_INTERACTIVE; undefined leaves it to the terminals. */
  readonly interactive?: boolean;
}

/** A run's global options from its flags and environment; a bad value is a UsageError. */
export function parseGlobalOptions(flags: GlobalFlags, env: NodeJS.ProcessEnv): GlobalOptions {
  return {
    baseUrl: flags.baseUrl,
    profile: flags.profile,
    output: outputFormat(flags),
    fields: fieldList(flags.fields),
    jq: flags.jq,
    rateLimit: flags.rateLimit === true,
    wait: flags.wait !== false,
    timeoutMs: timeoutMs(flags.timeout),
    // Waits are slept in pieces (sleepChunked), so any finite --max-wait is safe.
    maxWaitMs: parseSeconds(flags.maxWait, '--max-wait', 120) * 1000,
    retries: retries(flags.retries),
    cacheMs: cacheMs(flags.cache, env),
    verbose: flags.verbose === true,
    quiet: flags.quiet === true,
    color: flags.color !== false,
    dryRun: flags.dryRun === true,
    accessible: oneOrZero(env, 'HOSTCTL_ACCESSIBLE', 'Set HOSTCTL_ACCESSIBLE=1 for accessible output, or unset it.'),
    interactive: oneOrZero(env, 'HOSTCTL_INTERACTIVE', 'Set HOSTCTL_INTERACTIVE=1 (a person waits) or 0 (a batch job), or unset it.'),
  };
}

function outputFormat(flags: GlobalFlags): OutputFormat | undefined {
  if (flags.json && flags.output !== undefined && flags.output !== 'json') {
    throw new UsageError(`--json and -o ${flags.output} ask for two different formats.`, 'Give one of them.');
  }
  if (flags.json) return 'json';
  if (flags.output === undefined) return undefined;
  // commander's choices refuse it first; this narrows what a caller built by hand.
  if (!isOutputFormat(flags.output)) throw new UsageError(`Unknown output format "${String(flags.output)}".`, 'Use -o table, json, ndjson or tsv.');
  return flags.output;
}

function fieldList(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = raw.split(',').map((f) => f.trim()).filter(Boolean);
  if (list.length === 0) throw new UsageError('--fields needs at least one field name.', 'For example: --fields publicId,name');
  return list;
}

/**
 * Whole milliseconds (undici takes no fractions), at least 1, and at most the longest
 * delay a Node timer takes (about 24.8 days): a longer timeout means "no timeout" in
 * practice, and past that limit a timer would fire at once.
 */
function timeoutMs(raw: string | undefined): number {
  const ms = Math.round(parseSeconds(raw, '--timeout', 30) * 1000);
  if (ms < 1) throw new UsageError(`--timeout must be at least 0.001 seconds, not "${raw}".`, 'For example: --timeout 30');
  return Math.min(ms, MAX_TIMER_MS);
}

function retries(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) > 10) {
    throw new UsageError(`--retries takes a whole number from 0 to 10, not "${raw}".`, 'For example: --retries 3 (or --retries 0 to never resend).');
  }
  return Number(raw);
}

function cacheMs(flag: string | undefined, env: NodeJS.ProcessEnv): number | undefined {
  if (flag !== undefined) return parseDuration(flag, '--cache');
  // An empty variable is an unset one, as the shell's ${VAR:-…} has it.
  return env.HOSTCTL_CACHE ? parseDuration(env.HOSTCTL_CACHE, 'HOSTCTL_CACHE') : undefined;
}

/** A switch set in the environment: 1 or 0, or unset (or empty). */
function oneOrZero(env: NodeJS.ProcessEnv, name: string, hint: string): boolean | undefined {
  const set = env[name];
  if (set === undefined || set === '') return undefined;
  if (set === '1' || set === '0') return set === '1';
  throw new UsageError(`${name} takes 1 or 0, not "${oneLine(set, 40)}".`, hint);
}

// The global flags, which every command takes: written once here, typed from these
// definitions for the Context (GlobalOptions), listed by every --help as "Inherited
// Options", completed by Tab and documented in docs/commands.md and the man pages.

import { Option, type Command } from '@commander-js/extra-typings';
import { OUTPUT_FORMATS } from './config/config.js';
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

/** The global options as a command receives them (optsWithGlobals); each may be absent. */
export type GlobalOptions = Partial<ReturnType<ReturnType<typeof addGlobalOptions>['opts']>>;

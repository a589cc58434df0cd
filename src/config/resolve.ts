// The precedence of the profile and the base URL, written once: flag > environment >
// linked directory > config > default. Every command (Context) and the completion engine resolve through
// here, so that Tab offers what the command will use.

import { UsageError } from '../errors.js';
import { checkProfileName, type ConfigData } from './config.js';

export interface ProfileInputs {
  /** --profile and --base-url as given on the command line; undefined when absent. */
  readonly profile?: string;
  readonly baseUrl?: string;
  readonly env: NodeJS.ProcessEnv;
  /** The profile a linked directory names (src/config/link.ts); below flag and environment. */
  linkedProfile?(): string | undefined;
  /** The config; called only when flag and environment leave the answer to it. */
  config(): ConfigData;
}

/** Where the base URL came from, for messages: `--base-url`, `HOSTCTL_BASE_URL`, `profile "x"`. */
export interface BaseUrlSource {
  url: string;
  origin: string;
}

/**
 * An option given with an empty value names nothing (often an unset shell variable): say
 * so, rather than fall through to the next source. The one wording for every option: the
 * parser's check (src/cli.ts) and the resolver's, which completion shares.
 */
export function emptyOptionError(flag: string): UsageError {
  return new UsageError(`${flag} needs a value; it was given an empty one.`, `Give ${flag} a value, or leave it out.`);
}

/** The profile of this run; an empty --profile or a name that could not be a profile is a usage error. */
export function resolveProfileName(i: ProfileInputs): string {
  if (i.profile !== undefined) {
    if (i.profile === '') throw emptyOptionError('--profile');
    return checkProfileName(i.profile);
  }
  // An empty variable is an unset one, as the shell's ${VAR:-…} has it.
  if (i.env.HOSTCTL_PROFILE) return checkProfileName(i.env.HOSTCTL_PROFILE);
  const linked = i.linkedProfile?.();
  if (linked !== undefined) return linked;
  return i.config().defaultProfile ?? 'default';
}

/** The base URL and where it came from; undefined when none is set anywhere. */
export function resolveBaseUrl(i: ProfileInputs): BaseUrlSource | undefined {
  if (i.baseUrl !== undefined) {
    if (i.baseUrl.trim() === '') throw emptyOptionError('--base-url');
    return { url: i.baseUrl, origin: '--base-url' };
  }
  if (i.env.HOSTCTL_BASE_URL) return { url: i.env.HOSTCTL_BASE_URL, origin: 'HOSTCTL_BASE_URL' };
  const name = resolveProfileName(i);
  const fromProfile = i.config().profiles[name]?.baseUrl;
  return fromProfile ? { url: fromProfile, origin: `profile "${name}"` } : undefined;
}

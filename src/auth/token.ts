// Where the token of a run comes from, and its fingerprint. The token itself is never
// written anywhere by this module; only the SHA-256 fingerprint is used as a key.

import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { AuthError, UsageError } from '../errors.js';
import { checkProfileName, type ProfileConfig } from '../config/config.js';
import { readTokenFile, tokenFile } from './file-store.js';
import type { IO } from '../io.js';

export type TokenSource = 'env' | 'keychain' | 'file';

export interface Token {
  readonly value: string;
  readonly source: TokenSource;
  readonly fingerprint: string;
}

/**
 * The lowercase hex SHA-256 of the token's UTF-8 bytes: the key of its state (state.json).
 * Every command that sends a request computes it. @noble/hashes (audited, pure
 * JavaScript) rather than node:crypto, whose loading and first digest take about 4 ms,
 * as much as the rest of hostctl's own work on `apps list --json` (measured for issue 15).
 */
export function fingerprint(token: string): string {
  return bytesToHex(sha256(utf8ToBytes(token)));
}

/** `…` and the last four characters, as the dashboard shows a token. */
export function preview(token: string): string {
  return `…${token.slice(-4)}`;
}

/** For logs: `****` and the last four. */
export { redacted as redact } from '../io.js';

export function makeToken(value: string, source: TokenSource): Token {
  return { value, source, fingerprint: fingerprint(value) };
}

/** What HTTP allows in a header value: tab, visible ASCII, space and Latin-1. */
const SENDABLE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

/**
 * A token that cannot be a header value (a line break, another control character: a
 * paste accident, or an attempt to add headers) is a usage error before anything is
 * sent, naming where it came from, never echoing it.
 */
function sendable(token: Token, profile: string, env: NodeJS.ProcessEnv): Token {
  if (SENDABLE.test(token.value)) return token;
  const where = storageLabel(token.source, profile, env);
  throw new UsageError(
    `The token from ${where} holds a line break or another character that cannot be sent in an HTTP header; nothing was sent.`,
    token.source === 'env' ? 'Set HOSTCTL_TOKEN to the token alone, on one line.' : 'Run "hostctl auth login" again and paste the token alone, on one line.',
  );
}

/** Where a profile's stored token lives, for messages. */
export function storageLabel(source: TokenSource, profile: string, env?: NodeJS.ProcessEnv): string {
  if (source === 'env') return 'HOSTCTL_TOKEN';
  if (source === 'keychain') return `the OS keychain (service "hostctl", account "${profile}")`;
  return `the file ${tokenFile(profile, env)}`;
}

/** The token a profile saved with --insecure-storage keeps in its file, if any. */
export function storedFileToken(profile: string, config: ProfileConfig | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (config?.storage !== 'file') return undefined;
  try {
    checkProfileName(profile);
    return readTokenFile(profile, env)?.token;
  } catch {
    return undefined;
  }
}

/**
 * The token for this run: HOSTCTL_TOKEN, then the profile's keychain entry, then its
 * file when the profile was saved with --insecure-storage (a warning at every use).
 * A profile saved to a file does not consult the keychain: that machine has none, and
 * asking could pop up an unlock dialog or wait on D-Bus for nothing.
 */
export async function resolveToken(
  profile: string,
  config: ProfileConfig | undefined,
  env: NodeJS.ProcessEnv = process.env,
  io?: IO,
  /** Warn of a clear-text token even with -q (`auth status`, whose job is to say so). */
  alwaysWarn = false,
): Promise<Token> {
  const fromEnv = env.HOSTCTL_TOKEN?.trim();
  if (fromEnv) return sendable(makeToken(fromEnv, 'env'), profile, env);

  if (config?.storage === 'file') {
    checkProfileName(profile);
    const found = readTokenFile(profile, env);
    if (found) {
      // Said at login and by auth status; -q silences it elsewhere, so that a script that
      // asked for quiet gets it. Loose permissions are a danger: that warning always shows.
      if (io && (alwaysWarn || !io.quiet)) io.warn(
        `using the token of profile "${profile}" stored in clear text in ${found.path} (saved with --insecure-storage). ` +
          'Run "hostctl auth login" where a keychain is available to move it there.',
      );
      if (found.loose) io?.warn(`${found.path} can be read by other users; run: chmod 600 '${found.path}'`);
      return sendable(makeToken(found.token, 'file'), profile, env);
    }
    throw new AuthError(
      `No token for profile "${profile}": it was saved with --insecure-storage, but ${tokenFile(profile, env)} is missing or empty.`,
      'Run "hostctl auth login" again, or set HOSTCTL_TOKEN for this run.',
    );
  }

  const { readKeychain, KeychainUnavailable, keychainUnavailableError } = await import('./keychain.js');
  let stored: string | undefined;
  try {
    stored = await readKeychain(profile);
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    if (config?.storage === 'keychain') {
      throw keychainUnavailableError(err, `Cannot read the token of profile "${profile}" from the OS keychain.`);
    }
    // Nothing was ever stored for this profile: "not logged in" is the useful message.
    stored = undefined;
  }
  if (stored?.trim()) return sendable(makeToken(stored.trim(), 'keychain'), profile, env);
  throw new AuthError(
    config?.storage === 'keychain'
      ? `No token for profile "${profile}": the OS keychain has no entry for it any more (service "hostctl", account "${profile}").`
      : `No token for profile "${profile}".`,
    'Run "hostctl auth login", or set HOSTCTL_TOKEN for this run.',
  );
}

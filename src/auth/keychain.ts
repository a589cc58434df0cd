// The OS keychain through @napi-rs/keyring: service "hostctl", account = profile name.
// The native module is imported here, on first use only, so that commands which never
// touch the keychain (and --version, completion) do not pay for loading it. The
// single-file executable carries it as an asset instead (see embedded-addon.ts).

import envPaths from 'env-paths';
import { join } from 'node:path';
import { AuthError } from '../errors.js';
import { extractAddon, loadAddon } from './embedded-addon.js';

const KEYCHAIN_SERVICE = 'hostctl';

type KeyringModule = typeof import('@napi-rs/keyring');
type Entry = InstanceType<KeyringModule['AsyncEntry']>;

let loaded: Promise<KeyringModule> | undefined;

function keyring(): Promise<KeyringModule> {
  return (loaded ??= loadKeyring());
}

async function loadKeyring(): Promise<KeyringModule> {
  // Not import(): the bundle runs as a script, which has none for built-ins.
  const sea = process.getBuiltinModule('node:sea');
  if (!sea.isSea()) return import('@napi-rs/keyring');
  // The assets scripts/build-sea.mjs embeds: the addon and the SHA-256 it had at build time.
  const bytes = new Uint8Array(sea.getRawAsset('keyring.node') as ArrayBuffer);
  const hash = sea.getAsset('keyring.node.sha256', 'utf8').trim();
  const dir = join(envPaths('hostctl', { suffix: '' }).cache, 'addons');
  return loadAddon(extractAddon(dir, 'keyring', bytes, hash)) as KeyringModule;
}

/** The keychain could not be reached or used; `reason` is the platform's own words. */
export class KeychainUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`The OS keychain is not available: ${reason}`);
  }
}

function reasonOf(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  // One line is enough; D-Bus messages can run long.
  const line = raw.split('\n')[0] ?? raw;
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

async function entry(account: string): Promise<Entry> {
  let mod: KeyringModule;
  try {
    mod = await keyring();
  } catch (err) {
    throw new KeychainUnavailable(`the keyring module could not be loaded (${reasonOf(err)})`);
  }
  // On Linux the default falls back to the kernel keyring (keyutils) when no Secret
  // Service answers. That store forgets everything at logout or reboot and is often
  // denied in containers, so a login "stored" there would silently vanish: require the
  // Secret Service and report its absence instead.
  return new mod.AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
}

async function attempt<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof KeychainUnavailable) throw err;
    throw new KeychainUnavailable(reasonOf(err));
  }
}

/** The stored token, or undefined when there is none. Throws KeychainUnavailable. */
export function readKeychain(account: string): Promise<string | undefined> {
  return attempt(async () => (await (await entry(account)).getPassword()) ?? undefined);
}

/** @public auth.ts reads it off the module it imports only when storing in the keychain, which knip does not follow. */
export function writeKeychain(account: string, token: string): Promise<void> {
  return attempt(async () => (await entry(account)).setPassword(token));
}

/** True when an entry was removed, false when there was none. Throws KeychainUnavailable. */
export function deleteKeychain(account: string): Promise<boolean> {
  return attempt(async () => (await entry(account)).deleteCredential());
}

/**
 * The Secret Service answered but has no default collection (keyring) to keep secrets in:
 * a headless gnome-keyring that never created or unlocked its "login" keyring.
 */
function noDefaultCollection(reason: string): boolean {
  // What @napi-rs/keyring reports for gnome-keyring unlocked with an empty password, and
  // what other Secret Services say of a missing collection.
  return /no result found|default collection|does not exist at path|no such object/i.test(reason);
}

/**
 * What to do when there is no keychain: the three ways out, in one message. `message` says
 * what could not be done; the platform's own reason follows it. `hint` replaces the ways
 * out where they do not fit (logout: storing elsewhere removes nothing).
 */
export function keychainUnavailableError(err: KeychainUnavailable, message: string, hint?: string): AuthError {
  const found = noDefaultCollection(err.reason);
  return new AuthError(
    found
      ? `${message} A Secret Service answers, but it has no default keyring to keep the token in (it said: ${err.reason}).`
      : `${message} The keychain said: ${err.reason}.`,
    hint ??
      (found
        ? 'Give it one: unlock gnome-keyring with a password that is not empty, which creates one (docs/authentication.md), ' +
          'or pass the token for each run in HOSTCTL_TOKEN, or run "hostctl auth login --insecure-storage".'
        : 'Three ways out: start a Secret Service (on Linux, gnome-keyring-daemon in a D-Bus session), ' +
          'or pass the token for each run in HOSTCTL_TOKEN, ' +
          'or run "hostctl auth login --insecure-storage" to keep it in a file readable only by you (0600).'),
  );
}

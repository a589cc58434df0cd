// src/auth/keychain.ts, and the keychain half of resolveToken (src/auth/token.ts), in this
// process against a real Secret Service: gnome-keyring in a D-Bus session this file starts
// for itself, with a throwaway keyring (test/support/secret-service.ts). The addon finds
// D-Bus by the process's own DBUS_SESSION_BUS_ADDRESS and keeps the connection it opened
// for the life of the process, so this file runs in a process of its own (the
// `own-process` project of vitest.config.ts): no other in-process test, and never the
// developer's keychain, is reached. What was stored is read back with libsecret's
// `secret-tool`, not through our code. Where dbus-run-session, gnome-keyring or secret-tool
// is missing these tests skip with the reason, except under CI, where they run (and fail).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteKeychain, readKeychain, writeKeychain } from '../../src/auth/keychain.js';
import { resolveToken } from '../../src/auth/token.js';
import { AuthError, UsageError } from '../../src/errors.js';
import { keychainLookup } from '../support/keychain.js';
import { secretServiceMissing, startSecretService, type SecretService } from '../support/secret-service.js';

const missing = secretServiceMissing();
if (missing) console.warn(`in-process keychain tests skipped: ${missing}.`);

let keyring: SecretService | undefined;
let counter = 0;

/** An account of its own per test, so no test reads another's entry. */
const account = () => `ku-${process.pid}-${++counter}`;

beforeAll(async () => {
  if (missing) return;
  keyring = await startSecretService();
  process.env.DBUS_SESSION_BUS_ADDRESS = keyring.bus;
}, 60_000);
afterAll(async () => {
  await keyring?.stop();
});

describe.skipIf(missing)('the keychain itself', () => {
  it('stores a token under service "hostctl" and the profile as account, reads it back, and removes it once', async () => {
    const profile = account();
    await writeKeychain(profile, 'tok-stored-1');
    expect(keychainLookup(keyring!.bus, profile)).toBe('tok-stored-1');
    await expect(readKeychain(profile)).resolves.toBe('tok-stored-1');
    await expect(deleteKeychain(profile)).resolves.toBe(true);
    expect(keychainLookup(keyring!.bus, profile)).toBeUndefined();
    await expect(deleteKeychain(profile)).resolves.toBe(false);
  });

  it('an account with no entry reads as undefined (not null), and is not created by reading', async () => {
    const profile = account();
    const read = await readKeychain(profile);
    expect(read).toBeUndefined();
    expect(keychainLookup(keyring!.bus, profile)).toBeUndefined();
  });
});

describe.skipIf(missing)('resolveToken from the keychain', () => {
  const env = (): NodeJS.ProcessEnv => ({ HOME: '/nonexistent-home.invalid' });

  it('uses the stored token trimmed, as pasted with a line break, and says it came from the keychain', async () => {
    const profile = account();
    await writeKeychain(profile, '  tok-pasted \n');
    const token = await resolveToken(profile, { storage: 'keychain' }, env());
    expect(token.value).toBe('tok-pasted');
    expect(token.source).toBe('keychain');
  });

  it('a stored token of blanks is no token: "not logged in", never a blank header', async () => {
    const profile = account();
    await writeKeychain(profile, ' \n');
    const err: unknown = await resolveToken(profile, undefined, env()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).message).toBe(`No token for profile "${profile}".`);
  });

  it('a profile saved to the keychain whose entry is gone says so, naming the entry', async () => {
    const profile = account();
    const err: unknown = await resolveToken(profile, { storage: 'keychain' }, env()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).message).toBe(
      `No token for profile "${profile}": the OS keychain has no entry for it any more (service "hostctl", account "${profile}").`,
    );
    expect((err as AuthError).hint).toBe('Run "hostctl auth login", or set HOSTCTL_TOKEN for this run.');
  });

  it('a stored token that cannot be sent in a header names the keychain entry, never the token', async () => {
    const profile = account();
    await writeKeychain(profile, 'tok-one\r\nX-Injected: yes');
    const err: unknown = await resolveToken(profile, { storage: 'keychain' }, env()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      `The token from the OS keychain (service "hostctl", account "${profile}") holds a line break or another character that cannot be sent in an HTTP header; nothing was sent.`,
    );
    expect((err as UsageError).hint).toBe('Run "hostctl auth login" again and paste the token alone, on one line.');
  });
});

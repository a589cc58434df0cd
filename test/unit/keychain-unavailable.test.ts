// What hostctl says when the OS keychain cannot keep the token (src/auth/keychain.ts): the
// platform's reason, and the ways out that fit it. A pure function of the reason; reaching
// a real Secret Service is test/e2e/keychain.test.ts's part.

import { describe, expect, it } from 'vitest';
import { KeychainUnavailable, keychainUnavailableError } from '../../src/auth/keychain.js';
import { AuthError } from '../../src/errors.js';

describe('keychainUnavailableError', () => {
  it('no Secret Service: the reason, then three ways out (start one, HOSTCTL_TOKEN, --insecure-storage)', () => {
    const err = keychainUnavailableError(new KeychainUnavailable('Platform failure: DBus error: no bus'), 'Cannot store the token.');
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toBe('Cannot store the token. The keychain said: Platform failure: DBus error: no bus.');
    expect(err.hint).toMatch(/^Three ways out: start a Secret Service \(on Linux, gnome-keyring-daemon in a D-Bus session\), /);
    expect(err.hint).toContain('or pass the token for each run in HOSTCTL_TOKEN, ');
    expect(err.hint).toContain('or run "hostctl auth login --insecure-storage" to keep it in a file readable only by you (0600).');
  });

  it.each(['No result found.', 'Object does not exist at path “/org/freedesktop/secrets/aliases/default”', 'no such object', 'the default collection is missing'])(
    'a Secret Service with no default keyring (%s): says so, and how to give it one',
    (reason) => {
      const err = keychainUnavailableError(new KeychainUnavailable(reason), 'Cannot store the token.');
      expect(err.message).toBe(`Cannot store the token. A Secret Service answers, but it has no default keyring to keep the token in (it said: ${reason}).`);
      expect(err.hint).toMatch(/^Give it one: unlock gnome-keyring with a password that is not empty, which creates one \(docs\/authentication\.md\), /);
      expect(err.hint).toContain('or pass the token for each run in HOSTCTL_TOKEN, or run "hostctl auth login --insecure-storage".');
    },
  );

  it('a hint of the caller\'s replaces the ways out (logout: storing elsewhere removes nothing)', () => {
    const err = keychainUnavailableError(new KeychainUnavailable('No result found'), 'Cannot remove the token.', 'Nothing was removed.');
    expect(err.hint).toBe('Nothing was removed.');
  });
});

// The token in the real OS keychain: a Secret Service (gnome-keyring) in a D-Bus session
// this file starts for itself, with a throwaway keyring (test/support/secret-service.ts),
// read back with libsecret's `secret-tool` on that bus, never through our code. The
// hostctl runs get that bus and no other: the developer's own keychain is never touched.
// Where dbus-run-session, gnome-keyring or secret-tool is missing these tests skip with
// the reason, except in CI, where they fail.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { filesContaining, sandboxAdmin, type RunResult } from '../support/cli.js';
import type { Env } from '../support/fixtures.js';
import { keychainLookup } from '../support/keychain.js';
import { secretServiceMissing, startSecretService } from '../support/secret-service.js';
import { terminalTest } from '../support/terminal.js';

const missing = secretServiceMissing();
if (missing) console.warn(`keychain tests skipped: ${missing}.`);

let counter = 0;
/** A profile name of its own per test: the file's keyring holds every test's entries. */
function profileName(): string {
  return `kt-${process.pid}-${++counter}`;
}

const test = terminalTest()
  // The sandbox's admin endpoints, its request log cleared for this test.
  .extend('admin', async ({ sandbox }) => {
    const admin = sandboxAdmin(sandbox);
    await admin.clearRequests();
    return admin;
  })
  // The file's Secret Service, started by the first test that names it (a D-Bus session and
  // a gnome-keyring cost a second or so), ended with the file.
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from its first parameter, an object pattern: `{}` is "nothing".
  .extend('keyring', { scope: 'file' }, async ({}, { onCleanup }) => {
    const keyring = await startSecretService();
    onCleanup(() => keyring.stop());
    return keyring;
  })
  /** hostctl with the file's Secret Service, and never another. */
  .extend('withKeyring', ({ hostctl, keyring }) => (args: string[], input?: string, env: Env = {}): Promise<RunResult> => hostctl(args, { DBUS_SESSION_BUS_ADDRESS: keyring.bus, ...env }, { input }))
  .extend('stored', ({ keyring }) => (profile: string) => keychainLookup(keyring.bus, profile));

describe('with no Secret Service', () => {
  const noBus = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };

  test('auth login fails cleanly: exit 4, one message with the three ways out, nothing sent, nothing secret on disk', async ({ hostctl, admin, sandbox, home, config }) => {
    const token = await admin.newToken(`nobus-${process.pid}`);
    const profile = profileName();
    const r = await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], noBus, { input: token });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/keychain/i);
    expect(r.stderr).toMatch(/Secret Service/);
    expect(r.stderr).toMatch(/HOSTCTL_TOKEN/);
    expect(r.stderr).toMatch(/--insecure-storage/);
    expect(r.stderr.match(/^hostctl:/gm)).toHaveLength(1);
    expect(r.stderr).not.toContain(token);
    expect(await admin.requests()).toHaveLength(0);
    expect(filesContaining(home.path, token)).toEqual([]);
    expect(filesContaining(config.path, token)).toEqual([]);
    // Not even a profile or a storage mark was written.
    expect(readdirSync(config.path).filter((f) => f !== 'state.json')).toEqual([]);
  });

  test('a profile stored in the keychain says the keychain is unreachable, with the ways out (exit 4)', async ({ hostctl }) => {
    const profile = profileName();
    expect((await hostctl(['config', 'set', `profiles.${profile}.storage`, 'keychain'])).code).toBe(0);
    const r = await hostctl(['--profile', profile, 'auth', 'token'], noBus);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Cannot read the token of profile/);
    expect(r.stderr).toMatch(/--insecure-storage/);
  });
});

describe.skipIf(missing !== undefined)('with a Secret Service', () => {
  test('login stores the exact token under service "hostctl", account = profile; nothing else holds it', async ({ withKeyring, stored, admin, sandbox, home, config }) => {
    const profile = profileName();
    const token = await admin.newToken(`kc-${profile}`);
    const r = await withKeyring(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], `${token}\n`);
    expect(r.stderr).toMatch(/OS keychain/);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain(token);
    expect(await admin.requests()).toHaveLength(1);

    expect(stored(profile)).toBe(token);
    const cfg = JSON.parse(readFileSync(join(config.path, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    expect(cfg.profiles[profile]).toMatchObject({ baseUrl: sandbox.baseUrl, storage: 'keychain' });
    expect(filesContaining(config.path, token)).toEqual([]);
    expect(filesContaining(home.path, token)).toEqual([]);
  });

  test('later commands work with no HOSTCTL_TOKEN; logout removes the entry', async ({ withKeyring, stored, admin, sandbox }) => {
    const profile = profileName();
    const token = await admin.newToken(`kc-${profile}`);
    expect((await withKeyring(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], token)).code).toBe(0);
    await admin.clearRequests();

    const printed = await withKeyring(['--profile', profile, 'auth', 'token']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${token}\n`);
    expect(printed.stderr).toBe('');

    const status = await withKeyring(['auth', 'status', '--check', '--json'], undefined, { HOSTCTL_PROFILE: profile });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      profile,
      profileFrom: 'HOSTCTL_PROFILE',
      baseUrl: sandbox.baseUrl,
      tokenSource: 'keychain',
      token: `…${token.slice(-4)}`,
      storage: 'keychain',
      rejected: false,
      check: 'accepted',
    });
    const seen = await admin.requests();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.token).toBe(`kc-${profile}`);

    const out = await withKeyring(['--profile', profile, 'auth', 'logout']);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/removed the token from the OS keychain/);
    expect(stored(profile)).toBeUndefined();

    const after = await withKeyring(['--profile', profile, 'auth', 'token']);
    expect(after.code).toBe(4);
    expect(after.stdout).toBe('');
  });

  test('a rejected token is not stored, and a good login later is', async ({ withKeyring, stored, admin, sandbox, config }) => {
    const profile = profileName();
    const bogus = `made-up-token-${profile}-QRST`;
    const r = await withKeyring(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], bogus);
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain(bogus);
    expect(stored(profile)).toBeUndefined();
    expect(filesContaining(config.path, bogus)).toEqual([]);

    const good = await admin.newToken(`kc-${profile}`);
    expect((await withKeyring(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], good)).code).toBe(0);
    expect(stored(profile)).toBe(good);
  });

  test('a second login replaces the entry; a revoked one is refused once, then not sent again', async ({ withKeyring, stored, admin, sandbox }) => {
    const profile = profileName();
    const first = await admin.newToken(`kc1-${profile}`);
    const second = await admin.newToken(`kc2-${profile}`);
    for (const t of [first, second]) {
      expect((await withKeyring(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], t)).code).toBe(0);
    }
    expect(stored(profile)).toBe(second);

    await admin.revoke(`kc2-${profile}`);
    await admin.clearRequests();
    expect((await withKeyring(['--profile', profile, 'auth', 'status', '--check'])).code).toBe(4);
    const again = await withKeyring(['--profile', profile, 'auth', 'status', '--check']);
    expect(again.code).toBe(4);
    expect(again.stdout).toMatch(/Rejected: +yes/);
    expect(await admin.requests()).toHaveLength(1);
  });

  test('a hidden prompt on a terminal stores the token in the keychain without echoing it', async ({ typeInPty, keyring, stored, admin, sandbox }) => {
    const profile = profileName();
    const token = await admin.newToken(`kc-${profile}`);
    const r = await typeInPty(['--profile', profile, 'auth', 'login', '--base-url', sandbox.baseUrl], [{ waitFor: /input is hidden/, send: `${token}\r` }], { DBUS_SESSION_BUS_ADDRESS: keyring.bus });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(token);
    expect(stored(profile)).toBe(token);
  });
});

describe.skipIf(missing !== undefined)("the developer's own keychain", () => {
  test('a run whose test names no D-Bus session never reaches the session of the process that runs the tests', async ({ hostctl, keyring, admin, sandbox }) => {
    // A stand-in for the developer's keychain, in this test process's environment, as a
    // desktop session's would be: the file's Secret Service, where this test's profile has
    // no entry.
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = keyring.bus;
    try {
      const profile = profileName();
      const token = await admin.newToken(`dev-${profile}`);
      const r = await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], {}, { input: token });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/Secret Service/);
      expect(keychainLookup(keyring.bus, profile)).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });
});

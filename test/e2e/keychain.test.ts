// The token in the real OS keychain: a Secret Service (gnome-keyring) in a D-Bus session
// this file starts for itself, with a throwaway keyring (test/support/secret-service.ts),
// read back with libsecret's `secret-tool` on that bus, never through our code. The
// hostctl runs get that bus and no other: the developer's own keychain is never touched.
// Where dbus-run-session, gnome-keyring or secret-tool is missing these tests skip with
// the reason, except in CI, where they fail.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { filesContaining, runCli, runInPtyInteractive, sandboxAdmin, startSandbox, tmpDir, type RunResult, type Sandbox } from '../support/cli.js';
import { keychainLookup } from '../support/keychain.js';
import { secretServiceMissing, startSecretService, type SecretService } from '../support/secret-service.js';

const missing = secretServiceMissing();
if (missing) console.warn(`keychain tests skipped: ${missing}.`);

let sandbox: Sandbox;
let home: { path: string; cleanup(): void };
let config: { path: string; cleanup(): void };
/** The Secret Service of this file's own, while the tests that need one run. */
let keyring: SecretService | undefined;
let counter = 0;

/** A profile name of its own per test. */
function profileName(): string {
  return `kt-${process.pid}-${++counter}`;
}

/** hostctl with this file's Secret Service, if one is running, and never another. */
function hostctl(args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<RunResult> {
  return runCli(args, { input: opts.input, env: { HOME: home.path, HOSTCTL_CONFIG_DIR: config.path, DBUS_SESSION_BUS_ADDRESS: keyring?.bus, ...opts.env } });
}

const stored = (profile: string) => keychainLookup(keyring?.bus ?? '', profile);
const admin = () => sandboxAdmin(sandbox);
const requests = () => admin().requests();
const clearRequests = () => admin().clearRequests();
const newToken = (name: string) => admin().newToken(name);

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});
beforeEach(async () => {
  home = tmpDir('hostctl-home-');
  config = tmpDir('hostctl-config-');
  await clearRequests();
});
afterEach(() => {
  home.cleanup();
  config.cleanup();
});

describe('with no Secret Service', () => {
  const noBus = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };

  it('auth login fails cleanly: exit 4, one message with the three ways out, nothing sent, nothing secret on disk', async () => {
    const token = await newToken(`nobus-${process.pid}`);
    const profile = profileName();
    const r = await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { env: noBus, input: token });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/keychain/i);
    expect(r.stderr).toMatch(/Secret Service/);
    expect(r.stderr).toMatch(/HOSTCTL_TOKEN/);
    expect(r.stderr).toMatch(/--insecure-storage/);
    expect(r.stderr.match(/^hostctl:/gm)).toHaveLength(1);
    expect(r.stderr).not.toContain(token);
    expect(await requests()).toHaveLength(0);
    expect(filesContaining(home.path, token)).toEqual([]);
    expect(filesContaining(config.path, token)).toEqual([]);
    // Not even a profile or a storage mark was written.
    expect(readdirSync(config.path).filter((f) => f !== 'state.json')).toEqual([]);
  });

  it('a profile stored in the keychain says the keychain is unreachable, with the ways out (exit 4)', async () => {
    const profile = profileName();
    expect((await hostctl(['config', 'set', `profiles.${profile}.storage`, 'keychain'])).code).toBe(0);
    const r = await hostctl(['--profile', profile, 'auth', 'token'], { env: noBus });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Cannot read the token of profile/);
    expect(r.stderr).toMatch(/--insecure-storage/);
  });
});

describe.skipIf(missing !== undefined)('with a Secret Service', () => {
  beforeAll(async () => {
    keyring = await startSecretService();
  }, 30_000);
  afterAll(async () => {
    await keyring?.stop();
    keyring = undefined;
  });

  it('login stores the exact token under service "hostctl", account = profile; nothing else holds it', async () => {
    const profile = profileName();
    const token = await newToken(`kc-${profile}`);
    const r = await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: `${token}\n` });
    expect(r.stderr).toMatch(/OS keychain/);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain(token);
    expect(await requests()).toHaveLength(1);

    expect(stored(profile)).toBe(token);
    const cfg = JSON.parse(readFileSync(join(config.path, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    expect(cfg.profiles[profile]).toMatchObject({ baseUrl: sandbox.baseUrl, storage: 'keychain' });
    expect(filesContaining(config.path, token)).toEqual([]);
    expect(filesContaining(home.path, token)).toEqual([]);
  });

  it('later commands work with no HOSTCTL_TOKEN; logout removes the entry', async () => {
    const profile = profileName();
    const token = await newToken(`kc-${profile}`);
    expect((await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: token })).code).toBe(0);
    await clearRequests();

    const printed = await hostctl(['--profile', profile, 'auth', 'token']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${token}\n`);
    expect(printed.stderr).toBe('');

    const status = await hostctl(['auth', 'status', '--check', '--json'], { env: { HOSTCTL_PROFILE: profile } });
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
    const seen = await requests();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.token).toBe(`kc-${profile}`);

    const out = await hostctl(['--profile', profile, 'auth', 'logout']);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/removed the token from the OS keychain/);
    expect(stored(profile)).toBeUndefined();

    const after = await hostctl(['--profile', profile, 'auth', 'token']);
    expect(after.code).toBe(4);
    expect(after.stdout).toBe('');
  });

  it('a rejected token is not stored, and a good login later is', async () => {
    const profile = profileName();
    const bogus = `made-up-token-${profile}-QRST`;
    const r = await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: bogus });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain(bogus);
    expect(stored(profile)).toBeUndefined();
    expect(filesContaining(config.path, bogus)).toEqual([]);

    const good = await newToken(`kc-${profile}`);
    expect((await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: good })).code).toBe(0);
    expect(stored(profile)).toBe(good);
  });

  it('a second login replaces the entry; a revoked one is refused once, then not sent again', async () => {
    const profile = profileName();
    const first = await newToken(`kc1-${profile}`);
    const second = await newToken(`kc2-${profile}`);
    for (const t of [first, second]) {
      expect((await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: t })).code).toBe(0);
    }
    expect(stored(profile)).toBe(second);

    await fetch(`${sandbox.origin}/_sandbox/tokens/${encodeURIComponent(`kc2-${profile}`)}`, { method: 'DELETE' });
    await clearRequests();
    expect((await hostctl(['--profile', profile, 'auth', 'status', '--check'])).code).toBe(4);
    const again = await hostctl(['--profile', profile, 'auth', 'status', '--check']);
    expect(again.code).toBe(4);
    expect(again.stdout).toMatch(/Rejected: +yes/);
    expect(await requests()).toHaveLength(1);
  });

  it('a hidden prompt on a terminal stores the token in the keychain without echoing it', async () => {
    const profile = profileName();
    const token = await newToken(`kc-${profile}`);
    const r = await runInPtyInteractive(
      ['--profile', profile, 'auth', 'login', '--base-url', sandbox.baseUrl],
      [{ waitFor: /input is hidden/, send: `${token}\r` }],
      { env: { HOME: home.path, HOSTCTL_CONFIG_DIR: config.path, DBUS_SESSION_BUS_ADDRESS: keyring?.bus } },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(token);
    expect(stored(profile)).toBe(token);
  });
});

describe.skipIf(missing !== undefined)("the developer's own keychain", () => {
  it('a run whose test names no D-Bus session never reaches the session of the process that runs the tests', { timeout: 60_000 }, async () => {
    // A stand-in for the developer's keychain, in this test process's environment, as a
    // desktop session's would be.
    const developers = await startSecretService();
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = developers.bus;
    try {
      const profile = profileName();
      const token = await newToken(`dev-${profile}`);
      const r = await runCli(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: token, env: { HOME: home.path, HOSTCTL_CONFIG_DIR: config.path } });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/Secret Service/);
      expect(keychainLookup(developers.bus, profile)).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
      await developers.stop();
    }
  });
});

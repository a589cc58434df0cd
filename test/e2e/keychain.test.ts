// The token in the real OS keychain: a Secret Service (gnome-keyring in a D-Bus session,
// as .ci/run sets up), read back with libsecret's `secret-tool`, never through our code.
// Locally: dbus-run-session -- bash -c 'printf pw | gnome-keyring-daemon --unlock
//   --components=secrets >/dev/null; npx vitest run test/e2e/keychain.test.ts'
// Without a Secret Service these tests skip with the reason, except in CI, where they fail.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { filesContaining, runCli, runInPtyInteractive, sandboxAdmin, startSandbox, tmpDir, type RunResult, type Sandbox } from '../support/cli.js';
import { keychainClear, keychainLookup, probeSecretService } from '../support/keychain.js';
import { underCI } from '../support/ci.js';

const unavailable = probeSecretService();
const mustRun = underCI();
if (unavailable && !mustRun) {
  console.warn(`keychain tests skipped: no Secret Service (${unavailable}). Run them inside dbus-run-session with an unlocked gnome-keyring; see .ci/run.`);
}

let sandbox: Sandbox;
let home: { path: string; cleanup(): void };
let config: { path: string; cleanup(): void };
const accounts: string[] = [];
let counter = 0;

/** A profile name of its own per test: the Secret Service is shared by every test file. */
function profileName(): string {
  const name = `kt-${process.pid}-${++counter}`;
  accounts.push(name);
  return name;
}

function hostctl(args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<RunResult> {
  return runCli(args, { input: opts.input, env: { HOME: home.path, HOSTCTL_CONFIG_DIR: config.path, ...opts.env } });
}

const admin = () => sandboxAdmin(sandbox);
const requests = () => admin().requests();
const clearRequests = () => admin().clearRequests();
const newToken = (name: string) => admin().newToken(name);

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
  if (!unavailable) for (const a of accounts) keychainClear(a);
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

describe.skipIf(unavailable !== undefined && !mustRun)('with a Secret Service', () => {
  beforeAll(() => {
    if (unavailable) throw new Error(`under CI (CI=${process.env.CI}) but no Secret Service is usable: ${unavailable}. .ci/run must start gnome-keyring in a D-Bus session.`);
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

    expect(keychainLookup(profile)).toBe(token);
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
    expect(keychainLookup(profile)).toBeUndefined();

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
    expect(keychainLookup(profile)).toBeUndefined();
    expect(filesContaining(config.path, bogus)).toEqual([]);

    const good = await newToken(`kc-${profile}`);
    expect((await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: good })).code).toBe(0);
    expect(keychainLookup(profile)).toBe(good);
  });

  it('a second login replaces the entry; a revoked one is refused once, then not sent again', async () => {
    const profile = profileName();
    const first = await newToken(`kc1-${profile}`);
    const second = await newToken(`kc2-${profile}`);
    for (const t of [first, second]) {
      expect((await hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: t })).code).toBe(0);
    }
    expect(keychainLookup(profile)).toBe(second);

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
      { env: { HOME: home.path, HOSTCTL_CONFIG_DIR: config.path } },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(token);
    expect(keychainLookup(profile)).toBe(token);
  });
});

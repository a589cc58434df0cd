// auth login / status / logout / token end to end, without the OS keychain: the token
// from HOSTCTL_TOKEN or from an --insecure-storage file, the checks before storing, and
// the lockout guard seen from the sandbox's side. The keychain itself: keychain.test.ts.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { filesContaining, sandboxAdmin } from '../support/inproc.js';

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

// hostctl with its own HOME and config dir; no token unless the test gives one.
const test = cliTest()
  .extend('admin', ({ sandbox }) => sandboxAdmin(sandbox))
  .extend('readConfigFile', ({ config }) => (): Record<string, unknown> => JSON.parse(readFileSync(join(config.path, 'config.json'), 'utf8')) as Record<string, unknown>);

test.beforeEach(async ({ admin }) => {
  await admin.clearRequests();
});

describe('auth token and auth status with HOSTCTL_TOKEN', () => {
  test('auth token prints the token from HOSTCTL_TOKEN, with a newline, and sends nothing', async ({ hostctl, admin, sandbox }) => {
    const r = await hostctl(['auth', 'token'], { HOSTCTL_TOKEN: sandbox.token });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${sandbox.token}\n`);
    expect(await admin.requests()).toHaveLength(0);
  });

  test('auth token exits 4 when there is no token anywhere', async ({ hostctl }) => {
    const r = await hostctl(['auth', 'token'], { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/No token for profile "default"/);
    expect(r.stderr).toMatch(/hostctl auth login/);
  });

  test('auth status shows the source, the base URL and where it came from, and …last4 only', async ({ hostctl, admin, sandbox }) => {
    const r = await hostctl(['auth', 'status'], { HOSTCTL_TOKEN: sandbox.token, HOSTCTL_BASE_URL: sandbox.baseUrl });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`…${sandbox.token.slice(-4)} from HOSTCTL_TOKEN`);
    expect(r.stdout).toContain(`${sandbox.baseUrl} (from HOSTCTL_BASE_URL)`);
    expect(r.stdout).toMatch(/Profile: +default \(default\)/);
    expect(r.stdout).toMatch(/Rejected: +no/);
    expect(r.stdout + r.stderr).not.toContain(sandbox.token);
    expect(await admin.requests()).toHaveLength(0);
  });

  test('auth status --json prints one object; --check spends exactly one request', async ({ hostctl, admin, sandbox }) => {
    const r = await hostctl(['auth', 'status', '--check', '--json'], { HOSTCTL_TOKEN: sandbox.token, HOSTCTL_BASE_URL: sandbox.baseUrl });
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(status).toMatchObject({
      profile: 'default',
      baseUrl: sandbox.baseUrl,
      baseUrlFrom: 'HOSTCTL_BASE_URL',
      tokenSource: 'env',
      token: `…${sandbox.token.slice(-4)}`,
      rejected: false,
      check: 'accepted',
    });
    expect(r.stdout).not.toContain(sandbox.token);
    const seen = await admin.requests();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', status: 200, token: 'sandbox' });
  });
});

describe('auth login', () => {
  test('with --with-token and no TTY: one request, then a 0600 file with --insecure-storage, and a warning', async ({ hostctl, admin, readConfigFile, sandbox, config, home }) => {
    const r = await hostctl(['auth', 'login', '-v', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, { input: `${sandbox.token}\n` });
    expect(r.stderr).toMatch(/warning:.*clear text/);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain(sandbox.token);
    expect(await admin.requests()).toHaveLength(1);

    const file = join(config.path, 'tokens', 'default');
    expect(readFileSync(file, 'utf8').trim()).toBe(sandbox.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(config.path, 'tokens')).mode & 0o777).toBe(0o700);
    const cfg = readConfigFile();
    expect(cfg).toMatchObject({ profiles: { default: { baseUrl: sandbox.baseUrl, storage: 'file' } } });
    expect(typeof (cfg.profiles as Record<string, Record<string, unknown>>).default?.storedAt).toBe('string');
    // The opted-in file is the only place the token was written.
    expect(filesContaining(config.path, sandbox.token)).toEqual([file]);
    expect(filesContaining(home.path, sandbox.token)).toEqual([]);
  });

  test("a 429 on the check is waited out on the run's clock (its settings, as every command's), then the token is stored", async ({ hostctl, sandboxes, config }) => {
    // A window of one request per 30 s, spent by a list: the login's check meets a 429.
    const limited = await sandboxes(['--rate-limit', '1', '--window', '30']);
    const env = { HOSTCTL_BASE_URL: limited.baseUrl, HOSTCTL_TOKEN: limited.token };
    const spend = await hostctl(['apps', 'list', '--json'], env);
    expect(spend.stderr).toBe('');
    expect(spend.code).toBe(0);
    const mark = limited.clock.sleeps.length;
    const r = await hostctl(['auth', 'login', '--with-token', '--insecure-storage'], { HOSTCTL_BASE_URL: limited.baseUrl }, { input: limited.token });
    expect(r.stderr).toMatch(/^Rate limit window spent: waiting 3\ds .*\n.*warning:.*clear text/s);
    expect(r.code).toBe(0);
    // The wait went through the run's clock, which the in-process sandbox shares: no
    // real time passed, and the check went out once the window had a free slot.
    expect(limited.clock.sleptSince(mark)).toBeGreaterThanOrEqual(29_000);
    expect(limited.clock.sleptSince(mark)).toBeLessThanOrEqual(32_000);
    expect(readFileSync(join(config.path, 'tokens', 'default'), 'utf8').trim()).toBe(limited.token);
  });

  test('later commands use the file with no HOSTCTL_TOKEN, warning at every use; logout removes it', async ({ hostctl, admin, readConfigFile, sandbox, config }) => {
    expect((await hostctl(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, { input: sandbox.token })).code).toBe(0);

    const token = await hostctl(['auth', 'token']);
    expect(token.code).toBe(0);
    expect(token.stdout).toBe(`${sandbox.token}\n`);
    expect(token.stderr).toMatch(/warning:.*clear text/);

    await admin.clearRequests();
    const status = await hostctl(['auth', 'status', '--check']);
    expect(status.code).toBe(0);
    expect(status.stderr).toMatch(/warning:.*clear text/);
    expect(status.stdout).toMatch(/Token: +…\S{4} from the file /);
    expect(status.stdout).toMatch(/Base URL: .*\(from profile "default"\)/);
    expect(status.stdout).toMatch(/Stored: +\d{4}-\d\d-\d\dT/);
    expect(status.stdout).toMatch(/Check: +accepted/);
    expect(await admin.requests()).toHaveLength(1);

    const out = await hostctl(['auth', 'logout']);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/removed the token from the file/);
    expect(filesContaining(config.path, sandbox.token)).toEqual([]);
    expect(readConfigFile()).toEqual({ profiles: { default: { baseUrl: sandbox.baseUrl } } });

    const after = await hostctl(['auth', 'token'], { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' });
    expect(after.code).toBe(4);
    expect(after.stdout).toBe('');
  });

  test('logout with nothing stored says so and exits 0', async ({ hostctl }) => {
    const r = await hostctl(['auth', 'logout'], { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/nothing to remove/);
  });

  test('without --with-token and with no TTY: a usage error naming --with-token, no request, nothing stored', async ({ hostctl, admin, sandbox, config }) => {
    const r = await hostctl(['auth', 'login', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, { input: sandbox.token });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--with-token/);
    expect(await admin.requests()).toHaveLength(0);
    expect(filesContaining(config.path, sandbox.token)).toEqual([]);
  });

  test('with no base URL anywhere: exit 2 before reading the token', async ({ hostctl, sandbox }) => {
    const r = await hostctl(['auth', 'login', '--with-token', '--insecure-storage'], {}, { input: sandbox.token });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/No base URL/);
  });

  test('refuses a plain-http base URL that is not loopback (exit 2), with no request', async ({ hostctl, sandbox }) => {
    const r = await hostctl(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', 'http://api.example.invalid/v1'], {}, { input: sandbox.token });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/https/);
  });

  test('refuses stdin that is not one token, without echoing it', async ({ hostctl, admin, sandbox }) => {
    const junk = 'abc def\nsecond-line-SECRET';
    const r = await hostctl(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, { input: junk });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('SECRET');
    expect(await admin.requests()).toHaveLength(0);
  });

  test('a rejected token: exit 4, nothing stored, and a second login with it sends nothing', async ({ hostctl, admin, readConfigFile, sandbox, config, home }) => {
    const bogus = `made-up-${uniqueName('tok')}-WXYZ`;
    const first = await hostctl(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, { input: bogus });
    expect(first.code).toBe(4);
    expect(first.stderr).not.toContain(bogus);
    expect(await admin.requests()).toHaveLength(1);
    expect(filesContaining(config.path, bogus)).toEqual([]);
    expect(filesContaining(home.path, bogus)).toEqual([]);
    const cfg = (() => {
      try {
        return readConfigFile();
      } catch {
        return {};
      }
    })();
    expect(JSON.stringify(cfg)).not.toMatch(/storage/);

    const second = await hostctl(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, { input: bogus });
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(/will not send it again/);
    expect(await admin.requests()).toHaveLength(1);
  });

  test('--profile decides where it goes; the other profiles are untouched', async ({ hostctl, readConfigFile, sandbox, config }) => {
    expect((await hostctl(['config', 'set', 'profiles.other.output', 'json'])).code).toBe(0);
    const r = await hostctl(['--profile', 'staging', 'auth', 'login', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, { input: sandbox.token });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/profile "staging"/);
    expect(r.stderr).toMatch(/defaultProfile staging/);
    expect(readConfigFile()).toMatchObject({ profiles: { other: { output: 'json' }, staging: { baseUrl: sandbox.baseUrl, storage: 'file' } } });
    expect(readFileSync(join(config.path, 'tokens', 'staging'), 'utf8').trim()).toBe(sandbox.token);
    expect((await hostctl(['auth', 'token'], { HOSTCTL_PROFILE: 'staging' })).stdout).toBe(`${sandbox.token}\n`);
    expect((await hostctl(['auth', 'token'], { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' })).code).toBe(4);
  });
});

describe('a rejected token: whose advice, and auth status', () => {
  test("on a sandbox (it says so in X-Hostctl-Sandbox): the sandbox's advice, then auth status exits 4", async ({ hostctl, admin, sandbox }) => {
    const name = uniqueName('restart');
    const token = await admin.newToken(name);
    await admin.revoke(name);
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token };
    const first = await hostctl(['teams', 'list'], env);
    expect(first.code).toBe(4);
    expect(first.stderr).toMatch(/hostctl sandbox: its token is the HOSTCTL_TOKEN line it printed/);
    expect(first.stderr).not.toMatch(/dashboard/);
    // The next run sends nothing, and still gives the sandbox's advice.
    await admin.clearRequests();
    const again = await hostctl(['teams', 'list'], env);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/hostctl sandbox/);
    const status = await hostctl(['auth', 'status'], env);
    expect(status.code).toBe(4);
    expect(status.stdout).toMatch(/Rejected:\s+yes/);
    expect(status.stderr).toMatch(/^hostctl: The token of profile default was rejected by the API on .*\nThis base URL is a hostctl sandbox/);
    expect(await admin.requests()).toHaveLength(0);
  });

  test("on another server (no such header): the dashboard's advice; a token not marked: auth status exits 0", async ({ hostctl, alt }) => {
    const server = await alt();
    const ok = await hostctl(['auth', 'status'], { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token });
    expect(ok.code).toBe(0);
    const env = { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: `not-${server.token}` };
    const r = await hostctl(['apps', 'list'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/dashboard \(account menu, "API tokens"\)/);
    expect(r.stderr).not.toMatch(/sandbox/);
    const status = await hostctl(['auth', 'status'], env);
    expect(status.code).toBe(4);
    expect(status.stderr).toMatch(/dashboard/);
  });
});

describe('the lockout guard, seen from the sandbox', () => {
  test('two commands with a revoked token cause exactly one request; the message says how to replace it', async ({ hostctl, admin, sandbox, config }) => {
    const name = uniqueName('revoked');
    const token = await admin.newToken(name);
    await admin.revoke(name);
    const env = { HOSTCTL_TOKEN: token, HOSTCTL_BASE_URL: sandbox.baseUrl };

    const first = await hostctl(['auth', 'status', '--check'], env);
    expect(first.code).toBe(4);
    const second = await hostctl(['auth', 'status', '--check', '-v'], env);
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(/will not send it again/);
    expect(second.stderr).toMatch(/auth login/);
    expect(second.stdout).toMatch(/Rejected: +yes/);

    const seen = await admin.requests();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.status).toBe(401);
    for (const r of [first, second]) expect(r.stdout + r.stderr).not.toContain(token);
    // The state file keeps the fingerprint, never the token.
    expect(filesContaining(config.path, token)).toEqual([]);
  });

  test('holds across commands: status --check, then a resource command, still one request', async ({ hostctl, admin, sandbox }) => {
    const name = uniqueName('revoked');
    const token = await admin.newToken(name);
    await admin.revoke(name);
    const env = { HOSTCTL_TOKEN: token, HOSTCTL_BASE_URL: sandbox.baseUrl };
    expect((await hostctl(['auth', 'status', '--check'], env)).code).toBe(4);
    const list = await hostctl(['apps', 'list', '--json'], env);
    expect(list.code).toBe(4);
    expect(list.stdout).toBe('');
    expect(await admin.requests()).toHaveLength(1);
  });

  test('a stored token revoked in the dashboard: rejected once, then a login with a new token clears the way', async ({ hostctl, admin, sandbox }) => {
    const oldName = uniqueName('old');
    const oldToken = await admin.newToken(oldName);
    expect((await hostctl(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, { input: oldToken })).code).toBe(0);
    await admin.revoke(oldName);
    await admin.clearRequests();

    expect((await hostctl(['auth', 'status', '--check'])).code).toBe(4);
    const blocked = await hostctl(['auth', 'status', '--check', '--json']);
    expect(blocked.code).toBe(4);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ tokenSource: 'file', rejected: true });
    expect(await admin.requests()).toHaveLength(1);

    const newTok = await admin.newToken(uniqueName('new'));
    expect((await hostctl(['auth', 'login', '--with-token', '--insecure-storage'], {}, { input: newTok })).code).toBe(0);
    const ok = await hostctl(['auth', 'status', '--check', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ tokenSource: 'file', token: `…${newTok.slice(-4)}`, rejected: false, check: 'accepted' });
    expect(await admin.requests()).toHaveLength(3);
  });
});

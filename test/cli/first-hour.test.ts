// What a newcomer meets in the first hour (issue 32): messages that name the real cause
// and the real next step. In-process, against the sandbox and the alt server.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { sandboxAdmin } from '../support/inproc.js';
import { cliTest } from '../support/fixtures.js';
import { closedPort, expectCleanFailure } from '../support/hostile-server.js';
import { fingerprint } from '../../src/auth/token.js';

const test = cliTest({ sandbox: ['--rate-limit', '1000'], runOnSandbox: true });

describe('not found', () => {
  test('get of an ID the API did not return: "hostctl: not found", and the command that lists what exists', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'get', 'ap-0000000000']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('hostctl: not found: ap-0000000000\nRun "hostctl apps list" to see the apps this token can see.\n');
  });

  test('wait for an ID the API did not return names the list command too', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'wait', 'ap-0000000000', '--for', 'status=running']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Check the IDs with "hostctl apps list"\./);
  });

  test('a 404 names the real list command, with one full stop after what the server said', async ({ hostctl }) => {
    const r = await hostctl(['api', '/environments/en-0000000000/deployments']);
    expect(r.code).toBe(3);
    expect(r.stderr).not.toMatch(/\.["”]?\./);
    expect(r.stderr).toMatch(/"hostctl environments list" shows the environments this token can see\./);
    expect(r.stderr).not.toContain('<resource>');
    const other = await hostctl(['api', '/no-such-thing']);
    expect(other.code).toBe(3);
    expect(other.stderr).toMatch(/"hostctl docs --operations" lists the paths/);
  });

  test('an ID of the wrong prefix is exit 2 with nothing sent; one of the right prefix goes to the API', async ({ hostctl, sandbox }) => {
    await sandboxAdmin(sandbox).clearRequests();
    expect((await hostctl(['apps', 'get', 'en-xyz'])).code).toBe(2);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
    // hostctl checks only what the API document states, the prefix: never a length or alphabet.
    expect((await hostctl(['apps', 'get', 'ap-xyz'])).code).toBe(3);
  });
});

describe('a stopped server', () => {
  test('names where the base URL came from: the profile, the environment, the flag', async ({ hostctl, sandbox, config }) => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    writeFileSync(join(config.path, 'config.json'), JSON.stringify({ profiles: { staging: { baseUrl: url } } }));
    const fromProfile = await hostctl(['--profile', 'staging', 'teams', 'list'], { HOSTCTL_BASE_URL: undefined });
    expectCleanFailure(fromProfile, 6, sandbox.token);
    expect(fromProfile.stderr).toMatch(/connection refused\.\nIs the server running, and is the base URL right \(from profile "staging"\)\?/);
    const fromEnv = await hostctl(['teams', 'list'], { HOSTCTL_BASE_URL: url });
    expect(fromEnv.stderr).toMatch(/\(from HOSTCTL_BASE_URL\)/);
    const fromFlag = await hostctl(['teams', 'list', '--base-url', url]);
    expect(fromFlag.stderr).toMatch(/\(from --base-url\)/);
  });
});

describe('the base URL', () => {
  test('a wrong scheme: "uses ftp:, not https:"', async ({ hostctl }) => {
    const r = await hostctl(['teams', 'list', '--base-url', 'ftp://127.0.0.1/v1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hostctl: The base URL from --base-url uses ftp:, not https:/);
  });
});

describe('another server', () => {
  test('a 404 there names the list command too', async ({ hostctl, alt }) => {
    const server = await alt();
    const r = await hostctl(['api', '/apps/ap-0000000000'], { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/"hostctl apps list" shows the apps this token can see\./);
  });
});

describe('an option given an empty value', () => {
  test('is a usage error naming the option, for global and command options, before or after the command; nothing sent', async ({ hostctl, sandbox }) => {
    await sandboxAdmin(sandbox).clearRequests();
    const cases: [string[], string][] = [
      [['--base-url', '', 'auth', 'status'], '--base-url'],
      [['auth', 'status', '--base-url', ''], '--base-url'],
      [['--profile', '', 'teams', 'list'], '--profile'],
      [['apps', 'list', '--team', ''], '--team'],
      [['apps', 'list', '--limit', ''], '--limit'],
      [['teams', 'list', '--cache', ''], '--cache'],
      [['api', '/teams', '-H', ''], '--header'],
    ];
    for (const [args, flag] of cases) {
      const r = await hostctl(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(`hostctl: ${flag} needs a value; it was given an empty one.\nGive ${flag} a value, or leave it out.\n`);
    }
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });
});

describe('a token kept with --insecure-storage', () => {
  test('is warned of at login and by auth status, -q included; -q silences it elsewhere', async ({ hostctl, sandbox }) => {
    const env = { HOSTCTL_BASE_URL: undefined, HOSTCTL_TOKEN: undefined };
    const login = await hostctl(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl, '-q'], env, { input: sandbox.token });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/clear text/);
    const status = await hostctl(['auth', 'status', '-q'], env);
    expect(status.code).toBe(0);
    expect(status.stderr).toMatch(/warning: using the token of profile "default" stored in clear text/);
    const quiet = await hostctl(['teams', 'list', '-q'], env);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    const loud = await hostctl(['teams', 'list'], env);
    expect(loud.stderr).toMatch(/warning: using the token of profile "default" stored in clear text/);
  });
});

describe('rate-limit with no readable token', () => {
  test('sends nothing and exits 0, showing the last state of the tokens seen here; --refresh still needs the token', async ({ hostctl, sandbox, config }) => {
    expect((await hostctl(['teams', 'list'])).code).toBe(0);
    writeFileSync(join(config.path, 'config.json'), JSON.stringify({ profiles: { default: { baseUrl: sandbox.baseUrl, storage: 'keychain' } } }));
    const env = { HOSTCTL_TOKEN: undefined, HOSTCTL_BASE_URL: undefined, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' };
    await sandboxAdmin(sandbox).clearRequests();
    const r = await hostctl(['rate-limit', '-o', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as { token: string; remaining: number; limit: number }[];
    expect(shown).toEqual([expect.objectContaining({ token: `sha256:${fingerprint(sandbox.token).slice(0, 8)}`, limit: 1000 })]);
    expect(r.stderr).toMatch(/No token for this run can be read \(Cannot read the token of profile "default" from the OS keychain/);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
    const refresh = await hostctl(['rate-limit', '--refresh'], env);
    expect(refresh.code).toBe(4);
  });
});

describe('relation filters: one rule for all', () => {
  test('a name hostctl has seen, given for --team or --app, is refused before any request, naming the ID', async ({ hostctl, sandbox }) => {
    const teams = JSON.parse((await hostctl(['teams', 'list', '--json'])).stdout) as { publicId: string; name: string }[];
    const apps = JSON.parse((await hostctl(['apps', 'list', '--json'])).stdout) as { publicId: string; name: string }[];
    const team = teams[0];
    const app = apps[0];
    await sandboxAdmin(sandbox).clearRequests();
    const byName = await hostctl(['apps', 'list', '--team', String(team?.name)]);
    expect(byName.code).toBe(2);
    expect(byName.stderr).toBe(`hostctl: --team takes an ID: did you mean ${team?.publicId} ("${team?.name}")?\nRun "hostctl teams list" to see the IDs.\n`);
    const appByName = await hostctl(['envs', 'list', '--app', String(app?.name).toUpperCase()]);
    expect(appByName.code).toBe(2);
    expect(appByName.stderr).toMatch(new RegExp(`^hostctl: --app takes an ID: did you mean ${app?.publicId} `));
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });

  test('a filter that matched nothing says so on stderr, in every format', async ({ hostctl }) => {
    for (const format of ['tsv', 'json']) {
      const r = await hostctl(['apps', 'list', '--team', 'te-nosuchteam', '-o', format]);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^No apps reference the team te-nosuchteam\. --team takes a public ID; "hostctl teams list" shows them\.$/m);
      expect(r.stderr).not.toMatch(/will wait/);
    }
  });

  test('before a walk that must wait for the budget: one line, how many requests and about how long', async ({ hostctl, sandboxes }) => {
    const small = await sandboxes(['--rate-limit', '4', '--page-size', '10']);
    const env = { HOSTCTL_BASE_URL: small.baseUrl, HOSTCTL_TOKEN: small.token };
    // The IDs seen before say how big the collection is.
    expect((await hostctl(['apps', 'list', '--all', '-o', 'tsv', '--max-wait', '3600'], env)).code).toBe(0);
    const r = await hostctl(['apps', 'list', '--team', 'te-nosuchteam', '-o', 'tsv', '--max-wait', '3600'], env);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => /will wait/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Filter --team te-nosuchteam: about \d+ more requests to walk apps; the budget has [0-3] left, so this will wait about \d+s\.$/);
  });
});

// The test layers never use the developer's own hostctl: a run whose test names no HOME
// and no HOSTCTL_CONFIG_DIR gets an empty home of its own, in-process (inproc.ts) and as a
// real process (cli.ts), and the developer's XDG dirs are not inherited. Here the
// "developer" is a temporary home with a config and a token, put in this process's
// environment for the length of each test.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runCli as runProcessCli } from '../support/cli.js';
import { cliTest } from '../support/fixtures.js';
import { runCli } from '../support/inproc.js';

const DEV_URL = 'https://developer.example.invalid/v1';
const DEV_TOKEN = 'hct_developers_own_token_4242';
const KEYS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'HOSTCTL_CONFIG_DIR', 'DBUS_SESSION_BUS_ADDRESS'] as const;

// The runs here name no HOME and no config dir on purpose, so they do not use the
// `hostctl` fixture (which names the test's own): the world is the developer's, below.
const test = cliTest()
  /** The developer's home, config and token, in this process's environment while the test runs: the config file's path. */
  .extend('developer', ({ newDir }, { onCleanup }) => {
    const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
    onCleanup(() => {
      for (const k of KEYS) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    });
    const dev = newDir('hostctl-developer-');
    const dir = join(dev, 'xdg-config', 'hostctl');
    mkdirSync(join(dir, 'tokens'), { recursive: true, mode: 0o700 });
    const devConfig = join(dir, 'config.json');
    writeFileSync(devConfig, `${JSON.stringify({ defaultProfile: 'mine', profiles: { mine: { baseUrl: DEV_URL, storage: 'file' } } })}\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'tokens', 'mine'), `${DEV_TOKEN}\n`, { mode: 0o600 });
    process.env.HOME = dev;
    process.env.XDG_CONFIG_HOME = join(dev, 'xdg-config');
    process.env.XDG_STATE_HOME = join(dev, 'xdg-state');
    delete process.env.HOSTCTL_CONFIG_DIR;
    process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/developers-own-bus';
    return { config: devConfig };
  });

describe.each([
  ['in-process', runCli],
  ['the built CLI', runProcessCli],
])("a run that names no HOME nor config dir (%s)", (_layer, run) => {
  test("neither reads nor writes the developer's config", async ({ developer }) => {
    const before = readFileSync(developer.config, 'utf8');
    const status = await run(['auth', 'status'], { env: { HOSTCTL_TOKEN: undefined } });
    expect(`${status.stdout}${status.stderr}`).not.toMatch(/developer\.example\.invalid|mine/);
    const set = await run(['config', 'set', 'profiles.other.baseUrl', 'https://other.example.invalid/v1']);
    expect(set.code, set.stderr).toBe(0);
    const get = await run(['config', 'get', 'defaultProfile']);
    expect(get.stdout).not.toContain('mine');
    expect(readFileSync(developer.config, 'utf8')).toBe(before);
  });
});

describe('an in-process run that names no D-Bus session', () => {
  // The developer's D-Bus session is in this process's environment while the test runs.
  test("does not reach the developer's keychain through the session it inherited", async ({ developer: _developer }) => {
    const r = await runCli(['auth', 'login', '--with-token', '--base-url', 'http://127.0.0.1:9/v1'], { input: 'hct_isolation_login_token_77' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^hostctl: No OS keychain is reachable/);
    expect(r.stderr).not.toContain('developers-own-bus');
  });
});

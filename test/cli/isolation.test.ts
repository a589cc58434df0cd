// The test layers never use the developer's own hostctl: a run whose test names no HOME
// and no HOSTCTL_CONFIG_DIR gets an empty home of its own, in-process (inproc.ts) and as a
// real process (cli.ts), and the developer's XDG dirs are not inherited. Here the
// "developer" is a temporary home with a config and a token, put in this process's
// environment for the length of each test.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli as runProcessCli } from '../support/cli.js';
import { runCli, tmpDir } from '../support/inproc.js';

const DEV_URL = 'https://developer.example.invalid/v1';
const DEV_TOKEN = 'hct_developers_own_token_4242';
const KEYS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'HOSTCTL_CONFIG_DIR', 'DBUS_SESSION_BUS_ADDRESS'] as const;

let dev: { path: string; cleanup(): void };
let saved: Record<string, string | undefined>;
let devConfig: string;

beforeEach(() => {
  saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  dev = tmpDir('hostctl-developer-');
  const dir = join(dev.path, 'xdg-config', 'hostctl');
  mkdirSync(join(dir, 'tokens'), { recursive: true, mode: 0o700 });
  devConfig = join(dir, 'config.json');
  writeFileSync(devConfig, `${JSON.stringify({ defaultProfile: 'mine', profiles: { mine: { baseUrl: DEV_URL, storage: 'file' } } })}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'tokens', 'mine'), `${DEV_TOKEN}\n`, { mode: 0o600 });
  process.env.HOME = dev.path;
  process.env.XDG_CONFIG_HOME = join(dev.path, 'xdg-config');
  process.env.XDG_STATE_HOME = join(dev.path, 'xdg-state');
  delete process.env.HOSTCTL_CONFIG_DIR;
  process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/developers-own-bus';
});
afterEach(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  dev.cleanup();
});

describe.each([
  ['in-process', runCli],
  ['the built CLI', runProcessCli],
])("a run that names no HOME nor config dir (%s)", (_layer, run) => {
  it("neither reads nor writes the developer's config", async () => {
    const before = readFileSync(devConfig, 'utf8');
    const status = await run(['auth', 'status'], { env: { HOSTCTL_TOKEN: undefined } });
    expect(`${status.stdout}${status.stderr}`).not.toMatch(/developer\.example\.invalid|mine/);
    const set = await run(['config', 'set', 'profiles.other.baseUrl', 'https://other.example.invalid/v1']);
    expect(set.code, set.stderr).toBe(0);
    const get = await run(['config', 'get', 'defaultProfile']);
    expect(get.stdout).not.toContain('mine');
    expect(readFileSync(devConfig, 'utf8')).toBe(before);
  });
});

describe('an in-process run that names no D-Bus session', () => {
  it("does not reach the developer's keychain through the session it inherited", async () => {
    const r = await runCli(['auth', 'login', '--with-token', '--base-url', 'http://127.0.0.1:9/v1'], { input: 'hct_isolation_login_token_77' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^hostctl: No OS keychain is reachable/);
    expect(r.stderr).not.toContain('developers-own-bus');
  });
});

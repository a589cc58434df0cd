// The e2e smoke layer: what an installed hostctl must do, whatever way it was installed
// (the single-file executable, test/e2e/sea.test.ts; the packed npm tarball,
// test/e2e/package.test.ts). It starts its own sandbox, lists and gets, prints and runs
// completion, writes config, fails cleanly, and keeps a token in the real OS keychain.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SCRIPT_FILES } from '../../src/commands/completion.js';
import { ROOT, runCli, runProcess, startSandbox, tmpDir, type RunResult, type Sandbox } from './cli.js';
import { keychainLookup } from './keychain.js';
import { secretServiceMissing, startSecretService } from './secret-service.js';

export interface Installed {
  /** The command that runs it, e.g. ['/tmp/prefix/bin/hostctl']. */
  command: string[];
  /** What its environment must have (PATH, say); HOME, config and cache dirs are set here. */
  env: Record<string, string | undefined>;
}

export interface SmokeContext {
  home: string;
  run(args: string[], opts?: { env?: Record<string, string | undefined>; input?: string }): Promise<RunResult>;
}

const packageVersion = (): string => (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** No stack trace: one `hostctl:` sentence and the next step. */
function expectCleanError(r: RunResult, code: number): void {
  expect(r.code).toBe(code);
  expect(r.stderr).toMatch(/^hostctl: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/**
 * Registers the smoke layer for the hostctl that `installed()` returns (called in
 * beforeAll, after the caller's own beforeAll has built or installed it). `extra` may add
 * tests that share its sandbox and home.
 */
export function smokeLayer(name: string, installed: () => Installed, extra?: (ctx: () => SmokeContext & { sandbox: Sandbox }) => void): void {
  describe(`${name}: the smoke layer`, () => {
    let sandbox: Sandbox;
    let target: Installed;
    let home: { path: string; cleanup(): void };
    const env = (more: Record<string, string | undefined> = {}) => ({
      ...target.env,
      HOME: home.path,
      HOSTCTL_CONFIG_DIR: join(home.path, 'config'),
      XDG_CACHE_HOME: join(home.path, 'cache'),
      XDG_CONFIG_HOME: join(home.path, 'xdg-config'),
      // No keychain but the one a test starts for itself.
      DBUS_SESSION_BUS_ADDRESS: undefined,
      ...more,
    });
    const run: SmokeContext['run'] = (args, opts = {}) => {
      const [cmd = '', ...pre] = target.command;
      return runProcess(cmd, [...pre, ...args], { env: env(opts.env), input: opts.input });
    };
    const withSandbox = (more: Record<string, string | undefined> = {}) => ({ env: { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, ...more } });

    beforeAll(async () => {
      target = installed();
      home = tmpDir('hostctl-smoke-home-');
      sandbox = await startSandbox([], env(), target.command);
    });
    afterAll(async () => {
      await sandbox?.stop();
      home?.cleanup();
    });

    it('prints its version', async () => {
      const r = await run(['--version']);
      expect(r).toMatchObject({ code: 0, stdout: `${packageVersion()}\n`, stderr: '' });
    });

    it('lists and gets apps from the sandbox it started, as node bin/hostctl.js does', async () => {
      const list = await run(['apps', 'list', '--json'], withSandbox());
      expect(list.stderr).toBe('');
      expect(list.code).toBe(0);
      const apps = JSON.parse(list.stdout) as { publicId: string }[];
      expect(apps.length).toBeGreaterThan(0);
      const fromClone = await runCli(['apps', 'list', '--json'], { env: { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: join(home.path, 'clone-config') } });
      expect(list.stdout).toBe(fromClone.stdout);

      const id = apps[0]?.publicId ?? '';
      const get = await run(['apps', 'get', id, '--json'], withSandbox());
      expect(get.code).toBe(0);
      expect(JSON.parse(get.stdout)).toMatchObject({ publicId: id });

      const table = await run(['apps', 'list', '-o', 'table'], withSandbox());
      expect(table.code).toBe(0);
      expect(table.stdout).toContain(id);

      // --jq runs jq in a worker thread, from its engine file (an asset in the executable).
      const jq = await run(['apps', 'list', '--jq', '.[].publicId'], withSandbox());
      expect(jq.stderr).toBe('');
      expect(jq.code).toBe(0);
      expect(jq.stdout).toBe(apps.map((a) => `${a.publicId}\n`).join(''));
    });

    it('prints each shipped completion script byte for byte, and completes IDs it has seen', async () => {
      for (const [shell, file] of Object.entries(SCRIPT_FILES)) {
        const r = await run(['completion', shell]);
        expect(r.code, `${shell}: ${r.stderr}`).toBe(0);
        expect(r.stdout).toBe(readFileSync(join(ROOT, 'completions', file), 'utf8'));
      }
      const list = await run(['apps', 'list', '--json'], withSandbox());
      const ids = (JSON.parse(list.stdout) as { publicId: string }[]).map((a) => a.publicId);
      const offered = await run(['__complete', 'apps', 'get', ''], withSandbox());
      expect(offered.code).toBe(0);
      expect(offered.stdout.split('\n').filter(Boolean).map((line) => line.split('\t')[0])).toEqual(expect.arrayContaining(ids));
      const commands = await run(['__complete', '']);
      expect(commands.stdout).toMatch(/^apps\b/m);
    });

    it('writes config, and fails cleanly without a token (exit 4) or with a bad flag (exit 2)', async () => {
      const set = await run(['config', 'set', 'profiles.smoke.baseUrl', sandbox.baseUrl]);
      expect(set.stderr).not.toMatch(/\n\s+at /);
      expect(set.code).toBe(0);
      expect(JSON.parse(readFileSync(join(home.path, 'config', 'config.json'), 'utf8'))).toMatchObject({ profiles: { smoke: { baseUrl: sandbox.baseUrl } } });
      expectCleanError(await run(['apps', 'list'], { env: { HOSTCTL_BASE_URL: sandbox.baseUrl } }), 4);
      const flag = await run(['apps', 'list', '--no-such-flag'], withSandbox());
      expect(flag.code).toBe(2);
      expect(flag.stderr).not.toMatch(/\n\s+at /);
    });

    const missing = secretServiceMissing();
    if (missing) console.warn(`${name}: keychain smoke test skipped: ${missing}.`);
    it.skipIf(missing !== undefined)('keeps a token in the real OS keychain (a Secret Service of its own): login, use, logout', { timeout: 60_000 }, async () => {
      const keyring = await startSecretService();
      const profile = `smoke-${process.pid}-${name.replace(/\W+/g, '-')}`;
      const bus = { DBUS_SESSION_BUS_ADDRESS: keyring.bus };
      try {
        const login = await run(['--profile', profile, 'auth', 'login', '--with-token', '--base-url', sandbox.baseUrl], { input: `${sandbox.token}\n`, env: bus });
        expect(login.stderr).toMatch(/OS keychain/);
        expect(login.code).toBe(0);
        expect(keychainLookup(keyring.bus, profile)).toBe(sandbox.token);
        const list = await run(['--profile', profile, 'apps', 'list', '--json'], { env: bus });
        expect(list.code).toBe(0);
        expect(JSON.parse(list.stdout)).not.toHaveLength(0);
        const logout = await run(['--profile', profile, 'auth', 'logout'], { env: bus });
        expect(logout.code).toBe(0);
        expect(keychainLookup(keyring.bus, profile)).toBeUndefined();
      } finally {
        await keyring.stop();
      }
    });

    if (extra) {
      let ctx: SmokeContext & { sandbox: Sandbox };
      beforeEach(() => {
        ctx = { home: home.path, run, sandbox };
      });
      extra(() => ctx);
    }
  });
}

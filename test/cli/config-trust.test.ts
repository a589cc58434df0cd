// Issue 31, the config directory, in-process: a config hostctl cannot read is an error
// naming the file, never an empty config, and is never overwritten; hostctl never writes
// through a link there, nor reads a config others can write. (The state file:
// state-trust.test.ts; what needs two users: test/e2e/trust-dirs.test.ts.)

import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startSandbox, tmpDir, type Sandbox } from '../support/inproc.js';
import { behaviours, expectCleanFailure, NO_PROXY_ENV, startHostile } from '../support/hostile-server.js';

const TOKEN = 'hc_configtrusttoken00000000000001';
let config: { path: string; cleanup(): void };
let home: { path: string; cleanup(): void };

beforeEach(() => {
  config = tmpDir('hostctl-ctrust-config-');
  home = tmpDir('hostctl-ctrust-home-');
});
afterEach(() => {
  config.cleanup();
  home.cleanup();
});

function hostctl(args: string[], env: Record<string, string | undefined> = {}, input?: string) {
  return runCli(args, { input, env: { ...NO_PROXY_ENV, HOME: home.path, XDG_STATE_HOME: undefined, XDG_RUNTIME_DIR: undefined, HOSTCTL_CONFIG_DIR: config.path, ...env } });
}

const configFile = () => join(config.path, 'config.json');

describe('a config hostctl cannot read is an error naming the file, never an empty config', () => {
  const broken: [string, string][] = [
    ['not JSON', '{"profiles": {"default": '],
    ['empty (a full disk)', ''],
    ['an array', '[]'],
    ['a string', '"profiles"'],
    ['profiles as a list', '{"profiles": []}'],
    ['a profile that is not an object', '{"profiles": {"prod": 5}}'],
    ['a setting of the wrong type', '{"profiles": {"prod": {"output": 5}}}'],
    ['a default profile that is not a string', '{"defaultProfile": ["prod"]}'],
  ];
  for (const [what, text] of broken) {
    it(`${what}: config list and config set exit 2, and the file stays as it was`, async () => {
      writeFileSync(configFile(), text);
      const list = await hostctl(['config', 'list']);
      expectCleanFailure(list, 2, TOKEN);
      expect(list.stderr).toContain(configFile());
      const set = await hostctl(['config', 'set', 'profiles.prod.output', 'json']);
      expectCleanFailure(set, 2, TOKEN);
      expect(set.stderr).toContain(configFile());
      expect(readFileSync(configFile(), 'utf8')).toBe(text);
    });
  }

  it('a config.json that cannot be read (a directory in its place) is an error, not empty', async () => {
    mkdirSync(configFile());
    const r = await hostctl(['config', 'list']);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(configFile());
  });

  describe('auth login against a damaged config', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox();
    });
    afterAll(async () => {
      await sandbox?.stop();
    });

    it('--insecure-storage fails before anything is stored: no clear-text token is left behind', async () => {
      writeFileSync(configFile(), '{"profiles": []}');
      const r = await hostctl(['auth', 'login', '--insecure-storage', '--with-token', '--base-url', sandbox.baseUrl], {}, `${sandbox.token}\n`);
      expectCleanFailure(r, 2, sandbox.token);
      expect(existsSync(join(config.path, 'tokens'))).toBe(false);
      expect(readFileSync(configFile(), 'utf8')).toBe('{"profiles": []}');
    });

    it('--insecure-storage whose config write is refused (a linked config.json) removes the token file it wrote', async () => {
      const elsewhere = join(home.path, 'dotfiles-config.json');
      writeFileSync(elsewhere, '{"profiles": {}}\n', { mode: 0o600 });
      symlinkSync(elsewhere, configFile());
      const r = await hostctl(['auth', 'login', '--insecure-storage', '--with-token', '--base-url', sandbox.baseUrl], {}, `${sandbox.token}\n`);
      expectCleanFailure(r, 2, sandbox.token);
      expect(existsSync(join(config.path, 'tokens', 'default'))).toBe(false);
      expect(readFileSync(elsewhere, 'utf8')).toBe('{"profiles": {}}\n');
    });
  });
});

describe('the config dir and file are the user\'s alone, and never written through a link', () => {
  it('config set on a config.json that is a symbolic link refuses, and the file it points to is unchanged', async () => {
    const elsewhere = join(home.path, 'not-hostctl.json');
    writeFileSync(elsewhere, '{"profiles": {}}\n');
    symlinkSync(elsewhere, configFile());
    const r = await hostctl(['config', 'set', 'profiles.prod.output', 'json']);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(configFile());
    expect(r.stderr).toMatch(/symbolic link/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{"profiles": {}}\n');
    expect(lstatSync(configFile()).isSymbolicLink()).toBe(true);
  });

  it('a config dir that group or others can write is refused, naming the chmod that fixes it, and nothing is sent', async () => {
    const server = await startHostile(behaviours.ok);
    try {
      writeFileSync(configFile(), JSON.stringify({ profiles: { default: { baseUrl: server.baseUrl } } }), { mode: 0o600 });
      chmodSync(config.path, 0o777);
      const r = await hostctl(['apps', 'list'], { HOSTCTL_TOKEN: TOKEN });
      expectCleanFailure(r, 2, TOKEN);
      expect(r.stderr).toContain(`chmod go-w ${config.path}`);
      expect(server.seen).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('a config.json that group or others can write is refused, naming the file', async () => {
    writeFileSync(configFile(), '{"profiles": {"prod": {"output": "json"}}}');
    chmodSync(configFile(), 0o664);
    const r = await hostctl(['config', 'list']);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(`chmod go-w ${configFile()}`);
  });
});

// Issue 31, the config directory, in-process: a config hostctl cannot read is an error
// naming the file, never an empty config, and is never overwritten; hostctl never writes
// through a link there, nor reads a config others can write. (The state file:
// state-trust.test.ts; what needs two users: test/e2e/trust-dirs.test.ts.)

import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { behaviours, expectCleanFailure } from '../support/hostile-server.js';

const TOKEN = 'hc_configtrusttoken00000000000001';

const test = cliTest().extend('configFile', ({ config }) => join(config.path, 'config.json'));

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
    test(`${what}: config list and config set exit 2, and the file stays as it was`, async ({ hostctl, configFile }) => {
      writeFileSync(configFile, text);
      const list = await hostctl(['config', 'list']);
      expectCleanFailure(list, 2, TOKEN);
      expect(list.stderr).toContain(configFile);
      const set = await hostctl(['config', 'set', 'profiles.prod.output', 'json']);
      expectCleanFailure(set, 2, TOKEN);
      expect(set.stderr).toContain(configFile);
      expect(readFileSync(configFile, 'utf8')).toBe(text);
    });
  }

  test('a config.json that cannot be read (a directory in its place) is an error, not empty', async ({ hostctl, configFile }) => {
    mkdirSync(configFile);
    const r = await hostctl(['config', 'list']);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(configFile);
  });

  describe('auth login against a damaged config', () => {
    test('--insecure-storage fails before anything is stored: no clear-text token is left behind', async ({ hostctl, configFile, config, sandbox }) => {
      writeFileSync(configFile, '{"profiles": []}');
      const r = await hostctl(['auth', 'login', '--insecure-storage', '--with-token', '--base-url', sandbox.baseUrl], {}, { input: `${sandbox.token}\n` });
      expectCleanFailure(r, 2, sandbox.token);
      expect(existsSync(join(config.path, 'tokens'))).toBe(false);
      expect(readFileSync(configFile, 'utf8')).toBe('{"profiles": []}');
    });

    test('--insecure-storage whose config write is refused (a linked config.json) removes the token file it wrote', async ({ hostctl, configFile, config, home, sandbox }) => {
      const elsewhere = join(home.path, 'dotfiles-config.json');
      writeFileSync(elsewhere, '{"profiles": {}}\n', { mode: 0o600 });
      symlinkSync(elsewhere, configFile);
      const r = await hostctl(['auth', 'login', '--insecure-storage', '--with-token', '--base-url', sandbox.baseUrl], {}, { input: `${sandbox.token}\n` });
      expectCleanFailure(r, 2, sandbox.token);
      expect(existsSync(join(config.path, 'tokens', 'default'))).toBe(false);
      expect(readFileSync(elsewhere, 'utf8')).toBe('{"profiles": {}}\n');
    });
  });
});

describe('the config dir and file are the user\'s alone, and never written through a link', () => {
  test('config set on a config.json that is a symbolic link refuses, and the file it points to is unchanged', async ({ hostctl, configFile, home }) => {
    const elsewhere = join(home.path, 'not-hostctl.json');
    writeFileSync(elsewhere, '{"profiles": {}}\n');
    symlinkSync(elsewhere, configFile);
    const r = await hostctl(['config', 'set', 'profiles.prod.output', 'json']);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(configFile);
    expect(r.stderr).toMatch(/symbolic link/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{"profiles": {}}\n');
    expect(lstatSync(configFile).isSymbolicLink()).toBe(true);
  });

  test('a config dir that group or others can write is refused, naming the chmod that fixes it, and nothing is sent', async ({ hostctl, configFile, config, hostile }) => {
    const server = await hostile(behaviours.ok);
    writeFileSync(configFile, JSON.stringify({ profiles: { default: { baseUrl: server.baseUrl } } }), { mode: 0o600 });
    chmodSync(config.path, 0o777);
    const r = await hostctl(['apps', 'list'], { HOSTCTL_TOKEN: TOKEN });
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(`chmod go-w ${config.path}`);
    expect(server.seen).toHaveLength(0);
  });

  test('a config.json that group or others can write is refused, naming the file', async ({ hostctl, configFile }) => {
    writeFileSync(configFile, '{"profiles": {"prod": {"output": "json"}}}');
    chmodSync(configFile, 0o664);
    const r = await hostctl(['config', 'list']);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(`chmod go-w ${configFile}`);
  });
});

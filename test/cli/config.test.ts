// hostctl config end to end: set/get/unset/list/path, validation, the precedence of
// settings, and concurrent writers sharing one config dir.

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest, type Env } from '../support/fixtures.js';
import { runCli } from '../support/inproc.js';

const test = cliTest()
  .extend('ok', ({ hostctl }) => async (args: string[], env: Env = {}): Promise<string> => {
    const r = await hostctl(args, env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return r.stdout;
  })
  .extend('configJson', ({ config }) => () => JSON.parse(readFileSync(join(config.path, 'config.json'), 'utf8')) as Record<string, unknown>)
  .extend('status', ({ hostctl }) => async (args: string[], env: Env = {}): Promise<Record<string, unknown>> => {
    // A token from the environment, so that no keychain is asked; no request is sent.
    const r = await hostctl([...args, 'auth', 'status', '--json'], { HOSTCTL_TOKEN: 'precedence-test-token', ...env });
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  });

describe('config commands', () => {
  test('path prints the config file inside HOSTCTL_CONFIG_DIR', async ({ ok, config }) => {
    expect(await ok(['config', 'path'])).toBe(`${join(config.path, 'config.json')}\n`);
  });

  test('without HOSTCTL_CONFIG_DIR the file is conf\'s "hostctl" directory, with no -nodejs suffix', async ({ home }) => {
    const r = await runCli(['config', 'path'], { env: { HOME: home.path, XDG_CONFIG_HOME: undefined } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${join(home.path, '.config', 'hostctl', 'config.json')}\n`);
  });

  test('set, get, list and unset round-trip, and the file is 0600 JSON', async ({ hostctl, ok, configJson, config }) => {
    await ok(['config', 'set', 'profiles.default.baseUrl', 'https://api.example.invalid/v1/']);
    await ok(['config', 'set', 'profiles.default.output', 'json']);
    await ok(['config', 'set', 'profiles.staging.baseUrl', 'http://127.0.0.1:8080/v1']);
    const storage = await hostctl(['config', 'set', 'profiles.staging.storage', 'file']);
    expect(storage.code).toBe(0);
    expect(storage.stderr).toMatch(/moves nothing/);
    expect(await ok(['config', 'get', 'profiles.default.baseUrl'])).toBe('https://api.example.invalid/v1\n');
    expect(await ok(['config', 'get', 'profiles.default.output'])).toBe('json\n');

    expect(await ok(['config', 'list'])).toBe(
      [
        'profiles.default.baseUrl=https://api.example.invalid/v1',
        'profiles.default.output=json',
        'profiles.staging.baseUrl=http://127.0.0.1:8080/v1',
        'profiles.staging.storage=file',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(await ok(['config', 'list', '--json']))).toEqual(configJson());
    expect(statSync(join(config.path, 'config.json')).mode & 0o777).toBe(0o600);

    await ok(['config', 'unset', 'profiles.default.output']);
    expect(await ok(['config', 'get', 'profiles.default.output'])).toBe('');
    await ok(['config', 'unset', 'profiles.staging.baseUrl']);
    await ok(['config', 'unset', 'profiles.staging.storage']);
    expect(configJson()).toEqual({ profiles: { default: { baseUrl: 'https://api.example.invalid/v1' } } });
  });

  test('defaultProfile is set and read like any key', async ({ ok }) => {
    await ok(['config', 'set', 'profiles.work.baseUrl', 'https://api.example.invalid/v1']);
    await ok(['config', 'set', 'defaultProfile', 'work']);
    expect(await ok(['config', 'get', 'defaultProfile'])).toBe('work\n');
  });

  test('get of a key that is not set prints nothing and exits 0; unset of it too', async ({ ok }) => {
    expect(await ok(['config', 'get', 'profiles.nope.baseUrl'])).toBe('');
    expect(await ok(['config', 'unset', 'profiles.nope.baseUrl'])).toBe('');
  });

  test.for<[string[], RegExp]>([
    [['config', 'set', 'colour', 'red'], /Unknown config key "colour"[\s\S]*defaultProfile[\s\S]*profiles\.<name>\.baseUrl[\s\S]*profiles\.<name>\.output[\s\S]*profiles\.<name>\.storage/],
    [['config', 'get', 'profiles.default.token'], /Unknown config key[\s\S]*Valid keys/],
    [['config', 'unset', 'profiles'], /Unknown config key/],
    [['config', 'set', 'profiles.a.b.baseUrl', 'https://x.invalid/v1'], /Unknown config key/],
    [['config', 'set', 'profiles.default.output', 'xml'], /"xml" is not an output format[\s\S]*table, json, ndjson, tsv/],
    [['config', 'set', 'profiles.default.storage', 'cloud'], /not a token storage[\s\S]*keychain, file/],
    [['config', 'set', 'profiles.default.baseUrl', 'not a url'], /not a valid URL/],
    [['config', 'set', 'profiles.default.baseUrl', 'http://api.example.invalid/v1'], /https/],
    [['config', 'set', 'profiles.default.baseUrl', 'https://user:pw@api.example.invalid/v1'], /credentials/],
    [['config', 'set', 'defaultProfile', 'bad name'], /not a valid profile name/],
    [['config', 'set', 'profiles.bad$name.output', 'json'], /not a valid profile name/],
    [['config', 'set', 'profiles.default.storedAt', 'yesterday'], /set by "hostctl auth login"/],
  ])('%j is a usage error (exit 2) that changes nothing', async ([args, message], { ok, hostctl, config }) => {
    await ok(['config', 'set', 'profiles.default.output', 'table']);
    const before = readFileSync(join(config.path, 'config.json'), 'utf8');
    const r = await hostctl(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(readFileSync(join(config.path, 'config.json'), 'utf8')).toBe(before);
  });

  test('a damaged config file is reported, not silently replaced', async ({ hostctl, config }) => {
    writeFileSync(join(config.path, 'config.json'), '{"profiles": {"default": ');
    const r = await hostctl(['config', 'set', 'profiles.default.output', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(readFileSync(join(config.path, 'config.json'), 'utf8')).toBe('{"profiles": {"default": ');
  });

  test('10 concurrent `config set` processes sharing one config dir lose no profile and leave valid JSON', async ({ hostctl, ok, configJson }) => {
    const n = 10;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => hostctl(['config', 'set', `profiles.p${i}.baseUrl`, `http://127.0.0.1:${9000 + i}/v1`])),
    );
    for (const r of results) expect(r).toMatchObject({ code: 0, stderr: '' });
    const cfg = configJson() as { profiles: Record<string, { baseUrl: string }> };
    expect(Object.keys(cfg.profiles).sort()).toEqual(Array.from({ length: n }, (_, i) => `p${i}`).sort());
    for (let i = 0; i < n; i++) expect(cfg.profiles[`p${i}`]?.baseUrl).toBe(`http://127.0.0.1:${9000 + i}/v1`);
    expect(await ok(['config', 'list'])).toMatch(/p9\.baseUrl=/);
  });
});

describe('precedence: flag > environment > profile in config > default', () => {
  test('the profile: --profile, then HOSTCTL_PROFILE, then defaultProfile, then "default"', async ({ hostctl, status }) => {
    expect(await status([])).toMatchObject({ profile: 'default', profileFrom: 'default' });
    const set = await hostctl(['config', 'set', 'defaultProfile', 'fromconfig']);
    expect(set.code).toBe(0);
    expect(set.stderr).toMatch(/Profile "fromconfig" has no settings yet/);
    expect(await status([])).toMatchObject({ profile: 'fromconfig', profileFrom: 'defaultProfile in config' });
    expect(await status([], { HOSTCTL_PROFILE: 'fromenv' })).toMatchObject({ profile: 'fromenv', profileFrom: 'HOSTCTL_PROFILE' });
    expect(await status(['--profile', 'fromflag'], { HOSTCTL_PROFILE: 'fromenv' })).toMatchObject({ profile: 'fromflag', profileFrom: '--profile' });
  });

  test('the base URL: --base-url, then HOSTCTL_BASE_URL, then the profile', async ({ ok, status }) => {
    expect(await status([])).toMatchObject({ baseUrl: null });
    await ok(['config', 'set', 'profiles.default.baseUrl', 'http://127.0.0.1:1/v1']);
    expect(await status([])).toMatchObject({ baseUrl: 'http://127.0.0.1:1/v1', baseUrlFrom: 'profile "default"' });
    expect(await status([], { HOSTCTL_BASE_URL: 'http://127.0.0.1:2/v1' })).toMatchObject({ baseUrl: 'http://127.0.0.1:2/v1', baseUrlFrom: 'HOSTCTL_BASE_URL' });
    expect(await status(['--base-url', 'http://127.0.0.1:3/v1'], { HOSTCTL_BASE_URL: 'http://127.0.0.1:2/v1' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:3/v1',
      baseUrlFrom: '--base-url',
    });
  });

  test("a profile's base URL is used only for that profile", async ({ ok, status }) => {
    await ok(['config', 'set', 'profiles.other.baseUrl', 'http://127.0.0.1:4/v1']);
    expect(await status([])).toMatchObject({ baseUrl: null });
    expect(await status(['--profile', 'other'])).toMatchObject({ baseUrl: 'http://127.0.0.1:4/v1' });
  });

  describe('the output format, against the sandbox', () => {
    test('-o beats the profile, the profile beats the default (tsv when piped)', async ({ ok, sandbox }) => {
      const env = { HOSTCTL_TOKEN: sandbox.token };
      await ok(['config', 'set', 'profiles.default.baseUrl', sandbox.baseUrl]);
      const piped = await ok(['apps', 'list', '--limit', '2'], env);
      expect(() => JSON.parse(piped)).toThrow();
      expect(piped).toContain('\t');

      await ok(['config', 'set', 'profiles.default.output', 'json']);
      const fromProfile = JSON.parse(await ok(['apps', 'list', '--limit', '2'], env)) as unknown[];
      expect(fromProfile).toHaveLength(2);

      const fromFlag = await ok(['apps', 'list', '--limit', '2', '-o', 'tsv'], env);
      expect(fromFlag).toBe(piped);
    });
  });
});

describe('profiles.<name>.redisUrl (a fleet\'s shared store, issue 26)', () => {
  test('is set and kept as given, shown with its password masked by list, list --json and get', async ({ ok, configJson }) => {
    await ok(['config', 'set', 'profiles.ci.redisUrl', 'rediss://:s3cret-pw@redis.example.invalid:6380/2']);
    expect((configJson().profiles as Record<string, Record<string, string>>).ci!.redisUrl).toBe('rediss://:s3cret-pw@redis.example.invalid:6380/2');
    expect(await ok(['config', 'get', 'profiles.ci.redisUrl'])).toBe('rediss://:****@redis.example.invalid:6380/2\n');
    expect(await ok(['config', 'list'])).toBe('profiles.ci.redisUrl=rediss://:****@redis.example.invalid:6380/2\n');
    const json = await ok(['config', 'list', '--json']);
    expect(json).toContain('rediss://:****@redis.example.invalid:6380/2');
    expect(json).not.toContain('s3cret-pw');
  });

  test('a hand-edited one that does not parse is shown without its password by list, list --json and get', async ({ ok, config }) => {
    for (const broken of ['redis://:hun/ter2@127.0.0.1:port/0', 'redis:ci:hunter2@127.0.0.1:6379', 'redis://:hunter2:x:y']) {
      writeFileSync(join(config.path, 'config.json'), JSON.stringify({ profiles: { ci: { redisUrl: broken } } }), { mode: 0o600 });
      for (const args of [['config', 'list'], ['config', 'list', '--json'], ['config', 'get', 'profiles.ci.redisUrl']]) {
        const shown = await ok(args);
        expect(shown).toContain('****');
        expect(shown).not.toMatch(/hun|ter2/);
      }
    }
  });

  test('plain redis:// to a host that is not loopback is refused (exit 2) naming rediss://; loopback is fine', async ({ hostctl, ok }) => {
    const r = await hostctl(['config', 'set', 'profiles.ci.redisUrl', 'redis://:pw-here@redis.example.invalid:6379']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('rediss://redis.example.invalid:6379');
    expect(r.stderr).not.toContain('pw-here');
    await ok(['config', 'set', 'profiles.ci.redisUrl', 'redis://127.0.0.1:6379/0']);
    const bad = await hostctl(['config', 'set', 'profiles.ci.redisUrl', 'http://127.0.0.1:6379']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/must be rediss:\/\//);
  });
});

// Shell completion in-process: the `__complete` engine (the function bin/hostctl.js runs
// for a Tab press) and `hostctl completion <shell>`. The real bash, zsh and fish, and what
// a completion loads, are in test/e2e/completion.test.ts.

import { describe, expect } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliTest, type Env } from '../support/fixtures.js';
import { completionHome, lines, OTHER, PROD_APPS, SCRIPTS, values } from '../support/completion-fixture.js';

// No server: what Tab offers comes from the config and the IDs seen before, in the file's
// completion home (completion-fixture.ts), which Tab and these commands only read; the test
// that needs a damaged state file makes its own.
const test = cliTest()
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from an object pattern: `{}` is "nothing".
  .extend('completion', { scope: 'file' }, ({}, { onCleanup }) => {
    const home = completionHome();
    onCleanup(home.cleanup);
    return home;
  })
  /** Runs hostctl in the completion home (`extra` on top of its environment). */
  .extend('run', ({ hostctl, completion }) => (args: string[], extra: Env = {}) => hostctl(args, completion.shellEnv(extra)))
  /** What Tab offers after these words. */
  .extend('engine', ({ run }) => (words: string[], extra: Env = {}) => run(['__complete', ...words], extra));

describe('hostctl __complete (the engine, through the CLI)', () => {
  test('completes a partial command', async ({ engine }) => {
    expect(values(await engine(['ap']))).toEqual(expect.arrayContaining(['apps', 'app', 'api']));
    expect(values(await engine(['ap']))).toHaveLength(3);
  });

  test("lists a resource's verbs and aliases, also after a command alias", async ({ engine }) => {
    expect(values(await engine(['apps', '']))).toEqual(['list', 'ls', 'get', 'view', 'wait']);
    for (const alias of ['envs', 'env', 'environment', 'app', 'person', 'payment-method']) {
      expect(values(await engine([alias, ''])), alias).toEqual(['list', 'ls', 'get', 'view', 'wait']);
    }
    expect(values(await engine(['']))).toEqual(
      expect.arrayContaining(['apps', 'app', 'environments', 'envs', 'env', 'environment', 'deployment', 'domain', 'team', 'person', 'payment-method', 'auth', 'config', 'completion', 'version', 'help', 'commands']),
    );
  });

  test('completes help topics and commands after "help", and subcommands after a command', async ({ engine }) => {
    const topics = ['environment', 'exit-codes', 'formatting', 'rate-limit', 'sandbox'];
    expect(values(await engine(['help', '']))).toEqual(expect.arrayContaining([...topics, 'apps', 'auth', 'version']));
    expect(values(await engine(['help', 'ex']))).toEqual(['exit-codes']);
    expect(values(await engine(['help', 'apps', '']))).toEqual(['list', 'ls', 'get', 'view', 'wait']);
  });

  test('prints a description after a tab, on one line', async ({ engine }) => {
    const apps = lines(await engine(['app'])).find((l) => l.startsWith('apps\t'));
    expect(apps).toBe('apps\tApps: list, get and wait');
  });

  test("completes a command's own flags and the global flags, before or after the command", async ({ engine }) => {
    expect(values(await engine(['apps', 'list', '--l']))).toEqual(['--limit']);
    expect(values(await engine(['apps', 'list', '--ret']))).toEqual(['--retries']);
    expect(values(await engine(['apps', 'wait', 'ap-1', '--']))).toEqual(expect.arrayContaining(['--for', '--deadline', '--interval']));
    expect(values(await engine(['apps', 'wait', 'ap-1', '--for', 'st']))).toEqual(['status=']);
    expect(values(await engine(['deployments', 'list', '--env']))).toEqual(['--environment']);
    expect(values(await engine(['apps', 'list', '--verb']))).toEqual(['--verbose']);
    expect(values(await engine(['apps', 'list', '--dry']))).toEqual(['--dry-run']);
    expect(values(await engine(['api', '/apps', '--dr']))).toEqual(['--dry-run']);
    expect(values(await engine(['--pro']))).toEqual(['--profile']);
    expect(values(await engine(['apps', 'get', '--l']))).toEqual([]);
  });

  test('skips a global option and its value before the command', async ({ engine }) => {
    expect(values(await engine(['-o', 'json', '--profile', 'staging', 'apps', '']))).toEqual(['list', 'ls', 'get', 'view', 'wait']);
  });

  test('completes -o / --output values, also as --output=', async ({ engine }) => {
    expect(values(await engine(['apps', 'list', '-o', '']))).toEqual(['table', 'json', 'ndjson', 'tsv']);
    expect(values(await engine(['--output', 'nd']))).toEqual(['ndjson']);
    expect(values(await engine(['apps', 'list', '--output=t']))).toEqual(['--output=table', '--output=tsv']);
  });

  test('completes --profile with the profiles in the config', async ({ engine }) => {
    expect(values(await engine(['--profile', '']))).toEqual(['default', 'prod', 'staging']);
  });

  test('completes --environment with the environment IDs seen before', async ({ engine }) => {
    expect(values(await engine(['deployments', 'list', '--environment', '']))).toEqual(['en-prod-1', 'en-prod-2']);
  });

  test('completes config keys and values', async ({ engine }) => {
    const keys = values(await engine(['config', 'get', '']));
    expect(keys).toEqual(expect.arrayContaining(['defaultProfile', 'profiles.prod.baseUrl', 'profiles.staging.output', 'profiles.default.storage']));
    expect(values(await engine(['config', 'set', 'profiles.prod.o']))).toEqual(['profiles.prod.output']);
    // A fleet's shared store (issue 26).
    expect(values(await engine(['config', 'set', 'profiles.prod.r']))).toEqual(['profiles.prod.redisUrl']);
    expect(values(await engine(['config', 'set', 'profiles.prod.output', '']))).toEqual(['table', 'json', 'ndjson', 'tsv']);
    expect(values(await engine(['config', 'set', 'defaultProfile', 'st']))).toEqual(['staging']);
  });

  test('completes the shells of `completion` and asks for files after --input', async ({ engine }) => {
    expect(values(await engine(['completion', '']))).toEqual(['bash', 'zsh', 'fish']);
    expect(lines(await engine(['api', '/apps', '--input', '']))).toEqual([':files']);
  });

  test('completes `get` with the IDs seen before, for the current profile, never hostile ones', async ({ engine }) => {
    expect(values(await engine(['apps', 'get', '']))).toEqual(PROD_APPS);
    expect(values(await engine(['app', 'view', '']))).toEqual(PROD_APPS);
    expect(values(await engine(['apps', 'get', 'ap-7f3k-']))).toEqual(['ap-7f3k-x2q9', 'ap-7f3k-b001']);
    expect(values(await engine(['apps', 'get', 'ap-7f3k-x2q9', '']))).toEqual(['ap-7f3k-b001', 'ap-zz-9']);
  });

  test('keys the IDs by base URL: --base-url, then HOSTCTL_BASE_URL, then the profile\'s', async ({ engine }) => {
    const noEnv = { HOSTCTL_BASE_URL: undefined };
    expect(values(await engine(['apps', 'get', '']))).toEqual(PROD_APPS);
    expect(values(await engine(['--base-url', OTHER, 'apps', 'get', '']))).toEqual(['ap-other-1']);
    expect(values(await engine(['apps', 'get', ''], { ...noEnv, HOSTCTL_PROFILE: 'staging' }))).toEqual(['ap-staging-1']);
    expect(values(await engine(['apps', 'get', '--profile=staging', ''], noEnv))).toEqual(['ap-staging-1']);
    expect(values(await engine(['apps', 'get', ''], noEnv))).toEqual(PROD_APPS);
    // A profile on another base URL, with HOSTCTL_BASE_URL set, still gets that URL's IDs, as its requests would go there.
    expect(values(await engine(['apps', 'get', ''], { HOSTCTL_PROFILE: 'staging' }))).toEqual(PROD_APPS);
    // No base URL anywhere: nothing to offer.
    expect(values(await engine(['--profile', 'default', 'apps', 'get', ''], noEnv))).toEqual([]);
  });

  test('an empty --profile or --base-url (a usage error for the command): offers nothing, and never fails', async ({ engine, run }) => {
    const noEnv = { HOSTCTL_BASE_URL: undefined };
    for (const words of [['--profile', '', 'apps', 'get', ''], ['--profile=', 'apps', 'get', ''], ['--base-url', '', 'apps', 'get', ''], ['apps', 'get', '--profile', 'not a name', '']]) {
      const r = await engine(words, noEnv);
      expect(r.code, words.join(' ')).toBe(0);
      expect(r.stderr).toBe('');
      expect(values(r), words.join(' ')).toEqual([]);
    }
    // The command those words begin stops where Tab offered nothing, naming the option.
    for (const [flag, env] of [['--profile', noEnv], ['--base-url', {}]] as const) {
      const r = await run([flag, '', 'apps', 'list'], env);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^hostctl: ${flag} needs a value; it was given an empty one\\.`));
    }
  });

  test('shows the name seen beside each ID, on one harmless line', async ({ engine }) => {
    const got = lines(await engine(['apps', 'get', '']));
    expect(got.slice(0, 2)).toEqual(['ap-7f3k-x2q9\tweb', 'ap-7f3k-b001']);
    expect(got[2]).toMatch(/^ap-zz-9\tevil [^\u001b\t]*name$/);
    expect(lines(await engine(['deployments', 'list', '--environment', 'en-prod-1']))).toEqual(['en-prod-1\tproduction']);
    expect(values(await engine(['environments', 'list', '--app', '']))).toEqual(PROD_APPS);
  });

  test('completes --fields after a comma, from the declared columns and the fields seen, zero requests', async ({ engine }) => {
    expect(values(await engine(['apps', 'list', '--fields', 'publicId,te']))).toEqual(['publicId,team', 'publicId,teamId']);
    expect(values(await engine(['apps', 'list', '--fields=name,pu']))).toEqual(['--fields=name,publicId']);
    expect(values(await engine(['apps', 'list', '--fields', 'publicId,']))).not.toContain('publicId,publicId');
    expect(values(await engine(['apps', 'list', '--fields', '']))).not.toContain('bad\tfield');
  });

  test('answers nothing, with exit 0, for words it does not know or a damaged state file', async ({ engine, newDir }) => {
    expect(values(await engine(['nosuchcommand', '']))).toEqual([]);
    const broken = newDir('hostctl-broken-');
    writeFileSync(join(broken, 'config.json'), '{not json');
    writeFileSync(join(broken, 'state.json'), '[1,2');
    expect(values(await engine(['apps', 'get', ''], { HOSTCTL_CONFIG_DIR: broken }))).toEqual([]);
    expect(values(await engine(['--profile', ''], { HOSTCTL_CONFIG_DIR: broken }))).toEqual(['default']);
  });
});

describe('hostctl completion <shell>', () => {
  test.for([
    ['bash', 'hostctl.bash'],
    ['zsh', '_hostctl'],
    ['fish', 'hostctl.fish'],
  ] as const)('prints the shipped script for %s byte for byte', async ([shell, file], { run }) => {
    const r = await run(['completion', shell]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(SCRIPTS, file), 'utf8'));
  });

  test('refuses an unknown shell with exit 2', async ({ run }) => {
    const r = await run(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bash, zsh or fish');
    expect(r.stdout).toBe('');
  });
});

// Shell completion in-process: the `__complete` engine (the function bin/hostctl.js runs
// for a Tab press) and `hostctl completion <shell>`. The real bash, zsh and fish, and what
// a completion loads, are in test/e2e/completion.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpDir } from '../support/inproc.js';
import { completionHome, lines, OTHER, PROD_APPS, SCRIPTS, values, type CompletionHome } from '../support/completion-fixture.js';

let home: CompletionHome;
const shellEnv = (extra: Record<string, string | undefined> = {}) => home.shellEnv(extra);
const engine = (words: string[], env: Record<string, string | undefined> = {}) => runCli(['__complete', ...words], { env: shellEnv(env) });

beforeAll(() => {
  home = completionHome();
});
afterAll(() => home.cleanup());

describe('hostctl __complete (the engine, through the CLI)', () => {
  it('completes a partial command', async () => {
    expect(values(await engine(['ap']))).toEqual(expect.arrayContaining(['apps', 'app', 'api']));
    expect(values(await engine(['ap']))).toHaveLength(3);
  });

  it("lists a resource's verbs and aliases, also after a command alias", async () => {
    expect(values(await engine(['apps', '']))).toEqual(['list', 'ls', 'get', 'view', 'wait']);
    for (const alias of ['envs', 'env', 'environment', 'app', 'person', 'payment-method']) {
      expect(values(await engine([alias, ''])), alias).toEqual(['list', 'ls', 'get', 'view', 'wait']);
    }
    expect(values(await engine(['']))).toEqual(
      expect.arrayContaining(['apps', 'app', 'environments', 'envs', 'env', 'environment', 'deployment', 'domain', 'team', 'person', 'payment-method', 'auth', 'config', 'completion', 'version', 'help', 'commands']),
    );
  });

  it('completes help topics and commands after "help", and subcommands after a command', async () => {
    const topics = ['environment', 'exit-codes', 'formatting', 'rate-limit', 'sandbox'];
    expect(values(await engine(['help', '']))).toEqual(expect.arrayContaining([...topics, 'apps', 'auth', 'version']));
    expect(values(await engine(['help', 'ex']))).toEqual(['exit-codes']);
    expect(values(await engine(['help', 'apps', '']))).toEqual(['list', 'ls', 'get', 'view', 'wait']);
  });

  it('prints a description after a tab, on one line', async () => {
    const apps = lines(await engine(['app'])).find((l) => l.startsWith('apps\t'));
    expect(apps).toBe('apps\tApps: list, get and wait');
  });

  it("completes a command's own flags and the global flags, before or after the command", async () => {
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

  it('skips a global option and its value before the command', async () => {
    expect(values(await engine(['-o', 'json', '--profile', 'staging', 'apps', '']))).toEqual(['list', 'ls', 'get', 'view', 'wait']);
  });

  it('completes -o / --output values, also as --output=', async () => {
    expect(values(await engine(['apps', 'list', '-o', '']))).toEqual(['table', 'json', 'ndjson', 'tsv']);
    expect(values(await engine(['--output', 'nd']))).toEqual(['ndjson']);
    expect(values(await engine(['apps', 'list', '--output=t']))).toEqual(['--output=table', '--output=tsv']);
  });

  it('completes --profile with the profiles in the config', async () => {
    expect(values(await engine(['--profile', '']))).toEqual(['default', 'prod', 'staging']);
  });

  it('completes --environment with the environment IDs seen before', async () => {
    expect(values(await engine(['deployments', 'list', '--environment', '']))).toEqual(['en-prod-1', 'en-prod-2']);
  });

  it('completes config keys and values', async () => {
    const keys = values(await engine(['config', 'get', '']));
    expect(keys).toEqual(expect.arrayContaining(['defaultProfile', 'profiles.prod.baseUrl', 'profiles.staging.output', 'profiles.default.storage']));
    expect(values(await engine(['config', 'set', 'profiles.prod.o']))).toEqual(['profiles.prod.output']);
    // A fleet's shared store (issue 26).
    expect(values(await engine(['config', 'set', 'profiles.prod.r']))).toEqual(['profiles.prod.redisUrl']);
    expect(values(await engine(['config', 'set', 'profiles.prod.output', '']))).toEqual(['table', 'json', 'ndjson', 'tsv']);
    expect(values(await engine(['config', 'set', 'defaultProfile', 'st']))).toEqual(['staging']);
  });

  it('completes the shells of `completion` and asks for files after --input', async () => {
    expect(values(await engine(['completion', '']))).toEqual(['bash', 'zsh', 'fish']);
    expect(lines(await engine(['api', '/apps', '--input', '']))).toEqual([':files']);
  });

  it('completes `get` with the IDs seen before, for the current profile, never hostile ones', async () => {
    expect(values(await engine(['apps', 'get', '']))).toEqual(PROD_APPS);
    expect(values(await engine(['app', 'view', '']))).toEqual(PROD_APPS);
    expect(values(await engine(['apps', 'get', 'ap-7f3k-']))).toEqual(['ap-7f3k-x2q9', 'ap-7f3k-b001']);
    expect(values(await engine(['apps', 'get', 'ap-7f3k-x2q9', '']))).toEqual(['ap-7f3k-b001', 'ap-zz-9']);
  });

  it('keys the IDs by base URL: --base-url, then HOSTCTL_BASE_URL, then the profile\'s', async () => {
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

  it('an empty --profile or --base-url (a usage error for the command): offers nothing, and never fails', async () => {
    const noEnv = { HOSTCTL_BASE_URL: undefined };
    for (const words of [['--profile', '', 'apps', 'get', ''], ['--profile=', 'apps', 'get', ''], ['--base-url', '', 'apps', 'get', ''], ['apps', 'get', '--profile', 'not a name', '']]) {
      const r = await engine(words, noEnv);
      expect(r.code, words.join(' ')).toBe(0);
      expect(r.stderr).toBe('');
      expect(values(r), words.join(' ')).toEqual([]);
    }
    // The command those words begin stops where Tab offered nothing, naming the option.
    for (const [flag, env] of [['--profile', noEnv], ['--base-url', {}]] as const) {
      const r = await runCli([flag, '', 'apps', 'list'], { env: shellEnv(env) });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^hostctl: ${flag} needs a value; it was given an empty one\\.`));
    }
  });

  it('shows the name seen beside each ID, on one harmless line', async () => {
    const got = lines(await engine(['apps', 'get', '']));
    expect(got.slice(0, 2)).toEqual(['ap-7f3k-x2q9\tweb', 'ap-7f3k-b001']);
    expect(got[2]).toMatch(/^ap-zz-9\tevil [^\u001b\t]*name$/);
    expect(lines(await engine(['deployments', 'list', '--environment', 'en-prod-1']))).toEqual(['en-prod-1\tproduction']);
    expect(values(await engine(['environments', 'list', '--app', '']))).toEqual(PROD_APPS);
  });

  it('completes --fields after a comma, from the declared columns and the fields seen, zero requests', async () => {
    expect(values(await engine(['apps', 'list', '--fields', 'publicId,te']))).toEqual(['publicId,team', 'publicId,teamId']);
    expect(values(await engine(['apps', 'list', '--fields=name,pu']))).toEqual(['--fields=name,publicId']);
    expect(values(await engine(['apps', 'list', '--fields', 'publicId,']))).not.toContain('publicId,publicId');
    expect(values(await engine(['apps', 'list', '--fields', '']))).not.toContain('bad\tfield');
  });

  it('answers nothing, with exit 0, for words it does not know or a damaged state file', async () => {
    expect(values(await engine(['nosuchcommand', '']))).toEqual([]);
    const broken = tmpDir();
    try {
      writeFileSync(join(broken.path, 'config.json'), '{not json');
      writeFileSync(join(broken.path, 'state.json'), '[1,2');
      expect(values(await engine(['apps', 'get', ''], { HOSTCTL_CONFIG_DIR: broken.path }))).toEqual([]);
      expect(values(await engine(['--profile', ''], { HOSTCTL_CONFIG_DIR: broken.path }))).toEqual(['default']);
    } finally {
      broken.cleanup();
    }
  });
});

describe('hostctl completion <shell>', () => {
  it.each([
    ['bash', 'hostctl.bash'],
    ['zsh', '_hostctl'],
    ['fish', 'hostctl.fish'],
  ])('prints the shipped script for %s byte for byte', async (shell, file) => {
    const r = await runCli(['completion', shell], { env: shellEnv() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(SCRIPTS, file), 'utf8'));
  });

  it('refuses an unknown shell with exit 2', async () => {
    const r = await runCli(['completion', 'tcsh'], { env: shellEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bash, zsh or fish');
    expect(r.stdout).toBe('');
  });
});

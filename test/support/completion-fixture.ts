// The home every completion test runs in, in-process (test/cli) or through the real shells
// (test/e2e): a config with two profiles, and a state file of IDs, names and fields seen
// before, hostile ones included, keyed by base URL.

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { StateStore } from '../../src/config/state.js';
import { BIN, ROOT, tmpDir, type RunResult } from './cli.js';

export const SCRIPTS = join(ROOT, 'completions');
const UNREACHABLE = 'https://api.hostctl-completion.invalid/v1';
export const PROD_APPS = ['ap-7f3k-x2q9', 'ap-7f3k-b001', 'ap-zz-9'];
const STAGING = 'https://staging.hostctl-completion.invalid/v1';
export const OTHER = 'https://other.hostctl-completion.invalid/v1';

export interface CompletionHome {
  path: string;
  /** Holds a `hostctl` that runs the built CLI, first on the PATH of shellEnv(). */
  binDir: string;
  configDir: string;
  /** The environment every completion runs in: our `hostctl` first on PATH, a private HOME and config. */
  shellEnv(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
  cleanup(): void;
}

export function completionHome(): CompletionHome {
  const home = tmpDir('hostctl-completion-');
  const binDir = join(home.path, 'bin');
  mkdirSync(binDir);
  const wrapper = join(binDir, 'hostctl');
  writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(wrapper, 0o755);

  const configDir = join(home.path, 'hostctl-config');
  mkdirSync(configDir);
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      defaultProfile: 'prod',
      profiles: { prod: { baseUrl: UNREACHABLE }, staging: { baseUrl: `${STAGING}/` } },
    }),
  );
  // The ID cache is keyed by base URL, not by profile.
  const state = new StateStore(join(configDir, 'state.json'));
  state.rememberIds(new URL(UNREACHABLE), 'apps', PROD_APPS);
  // Written from API data, so it may hold anything; these two must never be offered.
  state.rememberIds(new URL(UNREACHABLE), 'apps', ['ap-bad\nline', 'ap-\u001b[31mred']);
  state.rememberIds(new URL(UNREACHABLE), 'environments', ['en-prod-1', 'en-prod-2']);
  state.rememberNames(new URL(UNREACHABLE), new Map([['ap-7f3k-x2q9', 'web'], ['ap-zz-9', 'evil\u001b[31m\tname'], ['en-prod-1', 'production']]));
  state.rememberFields(new URL(UNREACHABLE), 'apps', ['publicId', 'name', 'teamId', 'bad\tfield']);
  state.rememberIds(new URL(STAGING), 'apps', ['ap-staging-1']);
  state.rememberIds(new URL(OTHER), 'apps', ['ap-other-1']);
  state.save();

  return {
    path: home.path,
    binDir,
    configDir,
    shellEnv: (extra = {}) => ({
      PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home.path,
      XDG_CONFIG_HOME: join(home.path, '.config'),
      XDG_DATA_HOME: join(home.path, '.local', 'share'),
      HOSTCTL_CONFIG_DIR: configDir,
      HOSTCTL_BASE_URL: UNREACHABLE,
      HOSTCTL_TOKEN: 'completion-test-token-never-sent',
      ...extra,
    }),
    cleanup: home.cleanup,
  };
}

export function lines(r: RunResult): string[] {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

/** Candidates only, without the descriptions. */
export function values(r: RunResult): string[] {
  return lines(r).map((l) => l.split('\t')[0] ?? '');
}

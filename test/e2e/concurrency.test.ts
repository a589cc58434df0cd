// Concurrent runs (issue 8): ten hostctl processes at once sharing one config dir, each
// writing the state file (rate state, IDs seen), the config file, or a token file, must
// leave every file whole and lose nothing: no profile, no token file, no state entry.
// Ten concurrent `config set` alone: config.test.ts.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, sandboxAdmin, startSandbox, tmpDir, type RunResult, type Sandbox } from '../support/cli.js';

let sandbox: Sandbox;
let config: { path: string; cleanup(): void };

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

const newToken = (name: string) => sandboxAdmin(sandbox).newToken(name);

function hostctl(args: string[], env: Record<string, string> = {}, input?: string): Promise<RunResult> {
  return runCli(args, { env: { HOSTCTL_CONFIG_DIR: config.path, HOME: config.path, ...env }, input });
}

function json(file: string): Record<string, unknown> {
  // JSON.parse throws on a half-written or interleaved file: that is the corruption check.
  return JSON.parse(readFileSync(join(config.path, file), 'utf8')) as Record<string, unknown>;
}

beforeAll(async () => {
  sandbox = await startSandbox();
  config = tmpDir('hostctl-concurrency-');
});
afterAll(async () => {
  await sandbox?.stop();
  config?.cleanup();
});

describe('10 hostctl processes at once, one config dir', () => {
  it('never corrupt config or state, and never lose a profile, a token file or a state entry', { timeout: 120_000 }, async () => {
    expect((await hostctl(['config', 'set', 'profiles.keep.baseUrl', sandbox.baseUrl])).code).toBe(0);
    expect((await hostctl(['config', 'set', 'profiles.keep.output', 'json'])).code).toBe(0);

    const rounds = 4;
    const listTokens: string[] = [];
    const logins: { profile: string; token: string }[] = [];
    const setProfiles: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const runs: Promise<RunResult>[] = [];
      for (let i = 0; i < 10; i++) {
        const tag = `r${round}n${i}`;
        if (i < 6) {
          // State writers: rate state under this token's fingerprint, and the IDs seen.
          const token = await newToken(`list-${tag}`);
          listTokens.push(token);
          runs.push(hostctl(['apps', 'list', '--limit', '3', '--json'], { HOSTCTL_TOKEN: token, HOSTCTL_BASE_URL: sandbox.baseUrl }));
        } else if (i < 8) {
          // Config writers.
          setProfiles.push(`set-${tag}`);
          runs.push(hostctl(['config', 'set', `profiles.set-${tag}.baseUrl`, `http://127.0.0.1:${9000 + round * 10 + i}/v1`]));
        } else {
          // Config, token file and state writers at once.
          const profile = `login-${tag}`;
          const token = await newToken(profile);
          logins.push({ profile, token });
          runs.push(hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--insecure-storage', '--base-url', sandbox.baseUrl], {}, token));
        }
      }
      const results = await Promise.all(runs);
      results.forEach((r, i) => expect(r.code, `round ${round}, process ${i}: ${r.stderr}`).toBe(0));
    }

    const cfg = json('config.json') as { profiles: Record<string, Record<string, unknown>> };
    expect(cfg.profiles.keep).toEqual({ baseUrl: sandbox.baseUrl, output: 'json' });
    expect(Object.keys(cfg.profiles).sort()).toEqual(['keep', ...setProfiles, ...logins.map((l) => l.profile)].sort());
    for (const { profile, token } of logins) {
      expect(cfg.profiles[profile]).toMatchObject({ baseUrl: sandbox.baseUrl, storage: 'file' });
      const file = join(config.path, 'tokens', profile);
      expect(readFileSync(file, 'utf8').trim()).toBe(token);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(statSync(join(config.path, 'tokens')).mode & 0o777).toBe(0o700);
    expect(statSync(join(config.path, 'config.json')).mode & 0o777).toBe(0o600);

    const state = json('state.json') as { ids: Record<string, Record<string, string[]>> };
    // Every process that sent a request left its token's rate state (in the token's budget file): no write was lost.
    for (const token of [...listTokens, ...logins.map((l) => l.token)]) expect((json(`budget/${sha(token)}.json`) as { rate?: unknown }).rate, `rate state of …${token.slice(-4)}`).toBeDefined();
    // The ID cache is keyed by base URL, not by profile.
    expect(state.ids[sandbox.baseUrl]?.apps?.length).toBeGreaterThanOrEqual(3);
    expect(statSync(join(config.path, 'state.json')).mode & 0o777).toBe(0o600);

    // No temporary file or lock left behind.
    expect(readdirSync(config.path).sort()).toEqual(['budget', 'config.json', 'state.json', 'tokens']);
    // The shared request budget: one whole file per token fingerprint, no lock or temporary file.
    const budgets = readdirSync(join(config.path, 'budget'));
    expect(budgets.length).toBeGreaterThanOrEqual(listTokens.length);
    for (const f of budgets) {
      expect(f).toMatch(/^[0-9a-f]{64}\.json$/);
      expect(() => json(join('budget', f))).not.toThrow();
    }
    expect(readdirSync(join(config.path, 'tokens')).sort()).toEqual(logins.map((l) => l.profile).sort());

    // And the stored profiles work.
    const last = logins[logins.length - 1]!;
    const token = await hostctl(['--profile', last.profile, 'auth', 'token']);
    expect(token.stdout).toBe(`${last.token}\n`);
  });
});

// The lockout guard fails closed, and a config that cannot be written says so, when the
// config dir (or every place) is read-only for the user who runs hostctl. One test whoever
// runs it: the built CLI in a process of its own, from a copy any user can read
// (test/support/cli-copy.ts). Root writes through any mode bits, so as root the copy runs
// as `nobody` (setpriv), for whom the directories are read-only; anyone else runs it as
// themselves, with the same directories made read-only by mode. CI runs as root.

import { chmodSync, chownSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runProcess, type RunResult } from '../support/cli.js';
import { copyFixture } from '../support/cli-copy.js';
import { e2eTest, type Env } from '../support/fixtures.js';
import { answer, expectCleanFailure, NO_PROXY_ENV } from '../support/hostile-server.js';

const TOKEN = 'hct_e2e_UNWRITABLE_token_r4t8';
const AS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

/** Gives back what a test made read-only, so that it can be removed. */
function openUp(path: string): void {
  try {
    chmodSync(path, 0o700);
    for (const e of readdirSync(path, { withFileTypes: true })) if (e.isDirectory()) openUp(join(path, e.name));
  } catch {
    // gone already
  }
}

/** Makes `dir` readable but not writable for the user hostctl runs as. */
function readOnlyDir(dir: string): void {
  chmodSync(dir, AS_ROOT ? 0o755 : 0o500);
}

/** Makes `dir` the private, writable directory of the user hostctl runs as. */
function writableDir(dir: string): void {
  if (AS_ROOT) chownSync(dir, NOBODY, NOBODY);
  chmodSync(dir, 0o700);
}

const test = e2eTest()
  // A copy of the built CLI that any user can read and run.
  .extend('copy', { scope: 'file' }, copyFixture)
  .extend('server', ({ hostile }) => hostile(answer(401, { 'content-type': 'application/json' }, '{"detail":"bad token"}')))
  // The test's home and config dir, which the other user must reach: searchable by all (the
  // parents are the system's /tmp). Opened up again after the test, so that they can go.
  .extend('dirs', ({ home, config }, { onCleanup }) => {
    for (const d of [config.path, home.path]) chmodSync(d, 0o755);
    onCleanup(() => [config.path, home.path].forEach(openUp));
    return { home: home.path, config: config.path };
  })
  /** The built CLI (the copy), as `nobody` under root, as oneself otherwise. */
  .extend('run', ({ copy, dirs }) => (args: string[], env: Env = {}): Promise<RunResult> => {
    const full = { ...NO_PROXY_ENV, HOME: dirs.home, HOSTCTL_CONFIG_DIR: dirs.config, HOSTCTL_TOKEN: TOKEN, XDG_CONFIG_HOME: undefined, XDG_STATE_HOME: undefined, XDG_CACHE_HOME: undefined, XDG_RUNTIME_DIR: undefined, ...env };
    const node = [process.execPath, copy.bin, ...args];
    return AS_ROOT
      ? runProcess('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...node], { env: full, cwd: copy.dir })
      : runProcess(node[0]!, node.slice(1), { env: full, cwd: copy.dir });
  });

function expectNoToken(r: RunResult): void {
  const all = `${r.stdout}\n${r.stderr}`.toLowerCase();
  expect(all, all).not.toContain(TOKEN.toLowerCase());
  expect(all, all).not.toContain(TOKEN.slice(0, 12).toLowerCase());
}

describe(`the lockout guard fails closed (the built CLI, as ${AS_ROOT ? 'nobody' : 'the user running the tests'})`, () => {
  test('on a read-only config dir, any number of runs with a rejected token send exactly one request', async ({ run, server, dirs: { home, config } }) => {
    readOnlyDir(config);
    writableDir(home);
    const runs: RunResult[] = [];
    for (let i = 0; i < 4; i++) runs.push(await run(['apps', 'list', '--base-url', server.baseUrl]));
    expect(server.seen.length).toBe(1);
    for (const r of runs) expectCleanFailure(r, 4, TOKEN);
    expect(runs[0]?.stderr).toMatch(/will not send this token again/);
    // The mark went to a private place of this user's, and nothing into the config dir.
    const state = join(home, '.local', 'state', 'hostctl');
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(readdirSync(state)).not.toEqual([]);
    for (const f of readdirSync(state)) expect(statSync(join(state, f)).mode & 0o777).toBe(0o600);
    expect(readdirSync(config)).toEqual([]);
  });

  test('when nothing is writable, every such run says so plainly', async ({ run, server, dirs: { home, config } }) => {
    const tmp = join(home, 'tmp');
    mkdirSync(tmp);
    for (const dir of [config, home, tmp]) readOnlyDir(dir);
    for (let i = 0; i < 2; i++) {
      const r = await run(['apps', 'list', '--base-url', server.baseUrl], { TMPDIR: tmp });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/could not record/i);
      expect(r.stderr).not.toMatch(/will not send this token again/);
      expectNoToken(r);
    }
  });
});

describe('a config dir that cannot be written', () => {
  test('config set: EACCES in one sentence naming the dir, exit 1', async ({ run, dirs: { home, config } }) => {
    readOnlyDir(config);
    writableDir(home);
    const denied = await run(['config', 'set', 'defaultProfile', 'staging']);
    expectCleanFailure(denied, 1, TOKEN);
    expect(denied.stderr).toMatch(/^hostctl: Cannot write the config in .*: permission denied \(EACCES\)\./);
    expect(denied.stderr).toContain(config);
    expect(readdirSync(config)).toEqual([]);
  });
});

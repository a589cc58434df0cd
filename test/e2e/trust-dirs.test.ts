// Issue 31, what takes two users or the real process: a config dir another user owns or can
// write is refused before anything is sent; a state.json root left behind (`sudo -E
// hostctl …`) fails closed and is never replaced; with SNAP set (snap-packaged terminals)
// config.json is still replaced atomically. The built CLI runs as `nobody` through
// setpriv, from a copy of the built CLI that nobody can read wherever the checkout lies (cli-copy.ts).
// Setting up another user's files takes root: without it these tests skip with the
// reason (and fail under CI, where a skip is a failure).

import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runProcess, type RunResult } from '../support/cli.js';
import { copyFixture } from '../support/cli-copy.js';
import { e2eTest, type Env } from '../support/fixtures.js';
import { behaviours, expectCleanFailure, NO_PROXY_ENV } from '../support/hostile-server.js';

const AS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
/** Another local user: only its uid matters (root may chown to any). */
const STRANGER = 12345;
const TOKEN = 'hc_trustdirstoken00000000000000001';

if (!AS_ROOT) console.log('trust-dirs: the two-user tests need root (to give files to another user); skipped.');

const test = e2eTest()
  // A copy of the built CLI that the other user can read and run.
  .extend('copy', { scope: 'file' }, copyFixture)
  .extend('server', ({ hostile }) => hostile(behaviours.ok))
  // The test's directory, which the other user can enter.
  .extend('work', ({ newDir }) => {
    const dir = newDir('hostctl-trustdirs-');
    chmodSync(dir, 0o755);
    return dir;
  })
  /** The built CLI as `nobody`, with a home of its own (in `work`) and this config dir. */
  .extend('asNobody', ({ copy, work }) => (args: string[], configDir: string, env: Env = {}): Promise<RunResult> => {
    const home = join(work, 'home');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    chownSync(home, NOBODY, NOBODY);
    const full = { ...NO_PROXY_ENV, HOME: home, HOSTCTL_CONFIG_DIR: configDir, HOSTCTL_TOKEN: TOKEN, XDG_STATE_HOME: undefined, XDG_RUNTIME_DIR: undefined, XDG_CONFIG_HOME: undefined, ...env };
    return runProcess('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, copy.bin, ...args], { env: full, cwd: copy.dir });
  })
  /** A config dir `owner` made in `work`, with a config.json sending the default profile to the test's server. */
  .extend('plantedConfig', ({ work, server }) => (owner: number, dirMode: number): string => {
    const dir = join(work, 'shared', 'hostctl');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { baseUrl: server.baseUrl } } }), { mode: 0o644 });
    chownSync(join(dir, 'config.json'), owner, owner);
    chownSync(dir, owner, owner);
    chmodSync(dir, dirMode);
    return dir;
  });

describe.skipIf(!AS_ROOT)('a config dir of another user (two users)', () => {
  test('one another user owns is refused (exit 2, naming it and the chown), and the token is sent nowhere', async ({ asNobody, plantedConfig, server }) => {
    const dir = plantedConfig(STRANGER, 0o755);
    const r = await asNobody(['apps', 'list'], dir);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(dir);
    expect(r.stderr).toContain(`chown ${NOBODY}`);
    expect(server.seen).toHaveLength(0);
    // Control: the same config, once the user's own and private, is used.
    chownSync(dir, NOBODY, NOBODY);
    chownSync(join(dir, 'config.json'), NOBODY, NOBODY);
    chmodSync(dir, 0o700);
    const mine = await asNobody(['apps', 'list', '-o', 'json'], dir);
    expect(mine.code, mine.stderr).toBe(0);
    expect(server.seen).toHaveLength(1);
  });

  test('found through XDG_CONFIG_HOME too', async ({ asNobody, plantedConfig, server, work }) => {
    const dir = plantedConfig(STRANGER, 0o755);
    const r = await asNobody(['apps', 'list'], '', { HOSTCTL_CONFIG_DIR: undefined, XDG_CONFIG_HOME: join(work, 'shared') });
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(dir);
    expect(server.seen).toHaveLength(0);
  });

  test('one of the user\'s own that others can write is refused, naming the chmod', async ({ asNobody, plantedConfig, server }) => {
    const dir = plantedConfig(NOBODY, 0o777);
    const r = await asNobody(['apps', 'list'], dir);
    expectCleanFailure(r, 2, TOKEN);
    expect(r.stderr).toContain(`chmod go-w ${dir}`);
    expect(server.seen).toHaveLength(0);
  });
});

describe.skipIf(!AS_ROOT)('a state.json root left behind (two users)', () => {
  test('fails closed: exit 4 naming the file and the chown, no token sent, the file still root\'s and unchanged', async ({ asNobody, plantedConfig, server }) => {
    const dir = plantedConfig(NOBODY, 0o700);
    const state = join(dir, 'state.json');
    const rootState = JSON.stringify({ rejected: { 'some-fingerprint': { at: 1764000000000, status: 401 } }, ids: {}, names: {}, fields: {} });
    // As `sudo -E hostctl …` leaves it: root's, 0600, in the user's own config dir.
    writeFileSync(state, rootState, { mode: 0o600 });
    const r = await asNobody(['apps', 'list'], dir);
    expectCleanFailure(r, 4, TOKEN);
    expect(r.stderr).toContain(state);
    expect(r.stderr).toContain(`chown ${NOBODY}`);
    expect(server.seen).toHaveLength(0);
    expect(statSync(state).uid).toBe(0);
    expect(readFileSync(state, 'utf8')).toBe(rootState);
  });
});

describe('with SNAP set (snap-packaged terminals)', () => {
  test('config set replaces config.json by rename (a new file), never rewriting it in place', async ({ hostctl, config }) => {
    const file = join(config.path, 'config.json');
    const run = (value: string) => hostctl(['config', 'set', 'profiles.snap.output', value], { SNAP: '/snap/hostctl/1', SNAP_NAME: 'hostctl' });
    expect((await run('json')).code).toBe(0);
    const before = statSync(file).ino;
    const r = await run('tsv');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ profiles: { snap: { output: 'tsv' } } });
    // A rewrite in place keeps the inode, and a full disk then leaves a truncated file.
    expect(statSync(file).ino).not.toBe(before);
  });
});

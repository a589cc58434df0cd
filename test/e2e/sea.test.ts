// The single-file executable (`npm run build:sea` → dist/hostctl-linux-x64) on a PATH with
// no node on it: the smoke layer, plus the keychain addon it carries, which it writes to a
// private cache (0700, named by its SHA-256) and checks before loading. `npm run test:ci`
// (what .ci/run runs) builds it first; locally, without it, these tests skip with the
// reason, and under CI=true they fail.

import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runProcess } from '../support/cli.js';
import { smokeLayer } from '../support/smoke.js';
import { underCI } from '../support/ci.js';

const EXE = join(ROOT, 'dist', `hostctl-${process.platform}-${process.arch}`);
const missing = existsSync(EXE) ? undefined : `${EXE} is not built (run "npm run build:sea")`;
const mustRun = underCI();
if (missing && !mustRun) console.warn(`single-file executable tests skipped: ${missing}.`);

/** PATH without any directory that holds a node, so that nothing can fall back on one. */
function pathWithoutNode(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '' && !existsSync(join(dir, 'node')))
    .join(delimiter);
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const keyringAddon = () => createRequire(join(ROOT, 'package.json')).resolve('@napi-rs/keyring-linux-x64-gnu/keyring.linux-x64-gnu.node');

describe.skipIf(missing !== undefined && !mustRun)('the single-file executable', () => {
  const env = { PATH: pathWithoutNode() };

  beforeAll(() => {
    if (missing) throw new Error(`under CI (CI=${process.env.CI}) but ${missing}. .ci/run runs "npm run test:ci", which builds it.`);
  });

  it('is one file, and the PATH it runs on has no node', async () => {
    expect(statSync(EXE).isFile()).toBe(true);
    // By absolute path: the directory that holds sh may have been dropped with node.
    const which = await runProcess('/bin/sh', ['-c', 'command -v node || echo none'], { env });
    expect(which.stdout.trim()).toBe('none');
  });

  smokeLayer('executable', () => ({ command: [EXE], env }), (ctx) => {
    const addonDir = () => join(ctx().home, 'cache', 'hostctl', 'addons');
    // A keychain profile and no D-Bus session: the addon is written and loaded, then the
    // keychain itself is unreachable (exit 4), with or without a Secret Service here.
    const useKeychain = () =>
      ctx().run(['--profile', 'addon', 'auth', 'token'], { env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent.invalid' } });

    it('writes the keychain addon to a 0700 cache, named by its hash, and loads it', async () => {
      expect((await ctx().run(['config', 'set', 'profiles.addon.storage', 'keychain'])).code).toBe(0);
      const r = await useKeychain();
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/OS keychain/);
      expect(r.stderr).not.toMatch(/could not be loaded/);

      const dir = addonDir();
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      const hash = sha256(readFileSync(keyringAddon()));
      expect(readdirSync(dir)).toEqual([`keyring-${hash}.node`]);
      expect(sha256(readFileSync(join(dir, `keyring-${hash}.node`)))).toBe(hash);
    });

    it('replaces a damaged addon file before loading it, and makes a loose directory private again', async () => {
      const dir = addonDir();
      mkdirSync(dir, { recursive: true });
      const hash = sha256(readFileSync(keyringAddon()));
      const file = join(dir, `keyring-${hash}.node`);
      writeFileSync(file, 'not an addon');
      chmodSync(dir, 0o755);

      const r = await useKeychain();
      expect(r.code).toBe(4);
      expect(r.stderr).not.toMatch(/could not be loaded/);
      expect(sha256(readFileSync(file))).toBe(hash);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    });
  });
});

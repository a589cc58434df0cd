// How bin/hostctl.js starts the built CLI (docs/performance.md): the --version answer it
// gives itself, and the V8 code caches of dist/hostctl.cjs (the program) and
// dist/complete.cjs (`hostctl __complete`), which may be missing, damaged or unwritable
// without changing what hostctl does. Each test runs a private copy of the package, so
// that it can break a cache without touching dist/.

import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, runProcess, tmpDir, type RunResult } from '../support/cli.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let dirs: Array<{ cleanup(): void }> = [];

afterEach(() => {
  for (const d of dirs) d.cleanup();
  dirs = [];
});

/** A copy of the installed package: bin/, dist/, completions/, package.json, node_modules linked. */
function copyPackage(bundle: string): { root: string; cache: string; config: string } {
  const dir = tmpDir('hostctl-startup-');
  dirs.push(dir);
  const root = join(dir.path, 'hostctl');
  mkdirSync(root);
  for (const part of ['bin', 'dist', 'completions', 'package.json']) cpSync(join(ROOT, part), join(root, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  const config = join(dir.path, 'config');
  mkdirSync(config);
  return { root, cache: join(root, 'dist', `${bundle}.cache`), config };
}

function run(root: string, config: string, args: string[]): Promise<RunResult> {
  return runProcess(process.execPath, [join(root, 'bin', 'hostctl.js'), ...args], { env: { HOSTCTL_CONFIG_DIR: config } });
}

/** What a command prints with the package as built: the reference for the broken copies. */
async function reference(args: string[]): Promise<RunResult> {
  const config = tmpDir();
  dirs.push(config);
  return runCli(args, { env: { HOSTCTL_CONFIG_DIR: config.path } });
}

const mtime = (path: string) => statSync(path).mtimeMs;

describe('hostctl --version', () => {
  it('prints the version in package.json, as the commander program does', async () => {
    const fast = await runCli(['--version']);
    expect(fast).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    // With another flag first, the word reaches commander's own --version.
    const parsed = await runCli(['-q', '--version']);
    expect(parsed).toEqual(fast);
  });
});

/** Each bundle bin/hostctl.js compiles with a code cache, and a command that runs it. */
const BUNDLES = [
  { bundle: 'hostctl.cjs', args: ['--help'] },
  { bundle: 'complete.cjs', args: ['__complete', 'apps', ''] },
];

describe.each(BUNDLES)('the code cache of dist/$bundle', ({ bundle, args }) => {
  it('ships with the build and is used as it is', async () => {
    const pkg = copyPackage(bundle);
    expect(existsSync(pkg.cache), `npm run build made dist/${bundle}.cache`).toBe(true);
    const before = mtime(pkg.cache);
    const r = await run(pkg.root, pkg.config, args);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toBe('');
    expect(r).toEqual(await reference(args));
    // Rewritten only when V8 rejects it.
    expect(mtime(pkg.cache)).toBe(before);
  });

  it('damaged: the same output, and a good cache replaces it', async () => {
    const pkg = copyPackage(bundle);
    writeFileSync(pkg.cache, 'not a V8 code cache'.repeat(100));
    const r = await run(pkg.root, pkg.config, args);
    expect(r).toEqual(await reference(args));
    expect(readFileSync(pkg.cache, 'utf8')).not.toContain('not a V8 code cache');
    const written = mtime(pkg.cache);
    expect((await run(pkg.root, pkg.config, args)).code).toBe(0);
    expect(mtime(pkg.cache), 'the new cache was accepted, so not rewritten').toBe(written);
  });

  it('missing: the same output, and the run saves one', async () => {
    const pkg = copyPackage(bundle);
    rmSync(pkg.cache);
    expect(await run(pkg.root, pkg.config, args)).toEqual(await reference(args));
    expect(existsSync(pkg.cache)).toBe(true);
  });

  it('where it cannot be written: the same output, and no stray file', async () => {
    const pkg = copyPackage(bundle);
    rmSync(pkg.cache);
    // A directory in its place: neither readable as a cache nor replaceable by rename.
    mkdirSync(pkg.cache);
    writeFileSync(join(pkg.cache, 'keep'), '');
    expect(await run(pkg.root, pkg.config, args)).toEqual(await reference(args));
    expect(statSync(pkg.cache).isDirectory()).toBe(true);
    expect(readdirSync(join(pkg.root, 'dist')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a missing bundle is one plain message and exit 1, not a stack trace', async () => {
    const pkg = copyPackage(bundle);
    rmSync(join(pkg.root, 'dist', bundle));
    const r = await run(pkg.root, pkg.config, args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^hostctl: this installation is incomplete .*\nReinstall hostctl/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

// How the built CLI starts (bin/hostctl.js): the --version answer it gives itself; the V8
// code caches the package ships for dist/hostctl.cjs (the program) and dist/complete.cjs
// (`hostctl __complete`), which may be missing or rejected (another Node, damage) without
// changing what hostctl does; an installation that is read-only, or that a package
// manager owns, into which no run writes anything; and a command that loads only the files
// it uses. Each test runs a private copy of the package (test/support/cli-copy.ts).

import { chmodSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect } from 'vitest';
import { ROOT, runCli, runProcess, tmpDir, type RunResult } from '../support/cli.js';
import { cliCopy, type CliCopy } from '../support/cli-copy.js';
import { e2eTest, type Env } from '../support/fixtures.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

// eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from an object pattern: `{}` is "nothing".
const test = e2eTest({ sandbox: ['--rate-limit', '100000'] }).extend('copy', ({}, { onCleanup }): CliCopy => {
  const copy = cliCopy();
  onCleanup(() => {
    writable(copy.dir);
    copy.cleanup();
  });
  return copy;
})
  // The checkout's answers to a sequence of commands against the file's sandbox, each
  // sequence in a new config dir: the same for every test that asks, so run once.
  .extend('reference', { scope: 'file' }, ({ sandbox }) => {
    const known = new Map<string, Promise<RunResult[]>>();
    return (commands: string[][]): Promise<RunResult[]> => {
      const key = JSON.stringify(commands);
      const answers = known.get(key) ?? session(undefined, commands, { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token });
      known.set(key, answers);
      return answers;
    };
  });

/** Every entry under `dir` (symbolic links not followed), with its kind, size and mtime. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    const st = lstatSync(path);
    out[relative(dir, path) || '.'] = `${st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other'} ${st.size} ${st.mtimeMs}`;
    if (st.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(dir);
  return out;
}

/** chmod -R a-w: what a package manager's read-only or shared installation looks like. */
function readOnly(path: string): void {
  const st = lstatSync(path);
  if (st.isDirectory()) for (const entry of readdirSync(path)) readOnly(join(path, entry));
  if (!st.isSymbolicLink()) chmodSync(path, st.mode & ~0o222);
}

/** Gives back the owner's write permission, so that the copy can be removed. */
function writable(path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  chmodSync(path, st.mode | 0o200);
  if (st.isDirectory()) for (const entry of readdirSync(path)) writable(join(path, entry));
}

/** The bundles, each with a command that runs it. */
const BUNDLES = [
  { bundle: 'hostctl.cjs', args: ['--help'] },
  { bundle: 'complete.cjs', args: ['__complete', 'apps', ''] },
];

/**
 * Runs these commands in order, each in its own new config dir (the same for the whole
 * sequence), with `bin` (a copy's) or the checkout's; returns what each printed.
 */
async function session(bin: string | undefined, commands: string[][], env: Env): Promise<RunResult[]> {
  const config = tmpDir('hostctl-startup-config-');
  try {
    const results: RunResult[] = [];
    for (const args of commands) {
      const full = { ...env, HOSTCTL_CONFIG_DIR: config.path };
      results.push(bin === undefined ? await runCli(args, { env: full }) : await runProcess(process.execPath, [bin, ...args], { env: full }));
    }
    return results;
  } finally {
    config.cleanup();
  }
}

describe('hostctl --version', () => {
  test('prints the version in package.json, as the commander program does', async () => {
    const fast = await runCli(['--version']);
    expect(fast).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    // With another flag first, the word reaches commander's own --version.
    const parsed = await runCli(['-q', '--version']);
    expect(parsed).toEqual(fast);
  });
});

/** What a user does after installing: a request, a table, a Tab press on its IDs, help, version. */
const USE = [['apps', 'list', '--json'], ['apps', 'list'], ['__complete', 'apps', 'get', ''], ['--help'], ['--version']];

/** The code caches as the package may hold them: as built, rejected by V8 (another Node, damage), or gone. */
const CACHES = [
  { state: 'as built', change: () => undefined },
  { state: 'that V8 rejects', change: (file: string) => writeFileSync(file, 'not a V8 code cache'.repeat(100)) },
  { state: 'missing', change: (file: string) => rmSync(file) },
];

describe('a read-only installation', () => {
  test.for(CACHES)('with code caches $state: every command works, and no run writes into it', async ({ change }, { copy, sandbox, reference: answers }) => {
    for (const { bundle } of BUNDLES) change(join(copy.dir, 'dist', `${bundle}.cache`));
    readOnly(copy.dir);
    const before = listing(copy.dir);
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token };
    const [runs, reference] = [await session(copy.bin, USE, env), await answers(USE)];
    for (const [i, r] of runs.entries()) {
      expect(r.code, `${USE[i]?.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).not.toBe('');
      expect(r, USE[i]?.join(' ')).toEqual(reference[i]);
    }
    expect(listing(copy.dir)).toEqual(before);
  });
});

describe.each(BUNDLES)('dist/$bundle', ({ bundle, args }) => {
  test('missing: one plain message and exit 1, not a stack trace', async ({ copy }) => {
    rmSync(join(copy.dir, 'dist', bundle));
    const r = await runProcess(process.execPath, [copy.bin, ...args], { env: { HOSTCTL_CONFIG_DIR: copy.dir } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^hostctl: this installation is incomplete .*\nReinstall hostctl/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a command loads only what it uses', () => {
  test('a Tab press needs neither the program nor any chunk', async ({ copy, sandbox, reference: answers }) => {
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token };
    const tab = [['apps', 'list', '--json'], ['__complete', 'apps', 'get', ''], ['__complete', ''], ['__complete', 'apps', 'list', '--']];
    const reference = await answers(tab);
    // The first command fills the IDs the Tab press offers; then the program goes.
    const config = tmpDir('hostctl-startup-config-');
    try {
      const full = { ...env, HOSTCTL_CONFIG_DIR: config.path };
      expect(await runProcess(process.execPath, [copy.bin, ...tab[0]!], { env: full })).toEqual(reference[0]);
      rmSync(join(copy.dir, 'dist', 'hostctl.cjs'));
      rmSync(join(copy.dir, 'dist', 'chunks'), { recursive: true });
      for (const [i, args] of tab.entries()) {
        if (i === 0) continue;
        const r = await runProcess(process.execPath, [copy.bin, ...args], { env: full });
        expect(r.stdout, args.join(' ')).not.toBe('');
        expect(r, args.join(' ')).toEqual(reference[i]);
      }
    } finally {
      config.cleanup();
    }
  });

  test("a request, help and the config need none of the chunks (tables, spinner, Redis, sandbox, MCP, help topics, jq), nor node:child_process or node:crypto", async ({ copy, sandbox, reference: answers }) => {
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token };
    const commands = [['apps', 'list', '--json'], ['apps', 'get', '--json', 'ap-none'], ['--help'], ['apps', 'list', '--help'], ['config', 'list'], ['apps', 'list', '--dry-run']];
    const reference = await answers(commands);
    // undici's HTTP parser stays: every request needs it.
    for (const f of readdirSync(join(copy.dir, 'dist', 'chunks'))) if (f.endsWith('.cjs')) rmSync(join(copy.dir, 'dist', 'chunks', f));
    const log = join(copy.dir, 'builtins.log');
    const preload = join(copy.dir, 'record-builtins.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').appendFileSync(${JSON.stringify(log)}, process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).join('\\n') + '\\n'));\n`,
    );
    const config = tmpDir('hostctl-startup-config-');
    try {
      for (const [i, args] of commands.entries()) {
        const r = await runProcess(process.execPath, ['--require', preload, copy.bin, ...args], { env: { ...env, HOSTCTL_CONFIG_DIR: config.path } });
        expect(r, args.join(' ')).toEqual(reference[i]);
      }
    } finally {
      config.cleanup();
    }
    const builtins = readFileSync(log, 'utf8').split('\n');
    expect(builtins.filter((m) => m === 'NativeModule child_process' || m === 'NativeModule crypto')).toEqual([]);
    // One list per run: the record was made.
    expect(builtins.filter((m) => m === 'NativeModule fs')).toHaveLength(commands.length);
  });
});

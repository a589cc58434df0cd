// How bin/hostctl.js starts the built CLI (docs/performance.md): the --version answer it
// gives itself, and the V8 code caches of dist/hostctl.cjs (the program) and
// dist/complete.cjs (`hostctl __complete`), which may be missing, damaged or unwritable
// without changing what hostctl does. Each test runs a private copy of the package, so
// that it can break a cache without touching dist/.

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, runCli, runProcess, tmpDir, type RunResult } from '../support/cli.js';
import { startSandboxHere } from '../support/sandbox-here.js';

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

/**
 * What a command prints with the package as built: the reference for the broken copies.
 * Run once per command (in an empty config dir of its own) and shared by the tests.
 */
const references = new Map<string, Promise<RunResult>>();
const referenceDirs: Array<{ cleanup(): void }> = [];
afterAll(() => {
  for (const d of referenceDirs) d.cleanup();
});
function reference(args: string[]): Promise<RunResult> {
  const key = JSON.stringify(args);
  let ran = references.get(key);
  if (ran === undefined) {
    const config = tmpDir();
    referenceDirs.push(config);
    ran = runCli(args, { env: { HOSTCTL_CONFIG_DIR: config.path } });
    references.set(key, ran);
  }
  return ran;
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

describe("the program's built-ins", () => {
  // bin/hostctl.js sets a V8 flag (--liftoff-only) before it compiles the program. Node's
  // own modules come with a code cache that V8 rejects once a flag has changed, so the
  // ones a command needs are loaded before the flag, not compiled from their source after.
  /** What a run loaded, recorded by a preload: the program's V8 flags and Node's module list, split where they were set. */
  async function recordLoads(args: string[], env: Record<string, string>): Promise<{ flags?: string; before: string[]; after: string[] }> {
    const dir = tmpDir('hostctl-builtins-');
    dirs.push(dir);
    const log = join(dir.path, 'loads.json');
    const preload = join(dir.path, 'preload.cjs');
    writeFileSync(
      preload,
      [
        "'use strict';",
        "const v8 = require('node:v8');",
        'const set = v8.setFlagsFromString;',
        'let atFlag;',
        'v8.setFlagsFromString = (flags) => {',
        '  atFlag ??= { flags, loaded: process.moduleLoadList.length };',
        '  return set.call(v8, flags);',
        '};',
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, JSON.stringify({ atFlag, loads: process.moduleLoadList })));`,
      ].join('\n'),
    );
    const r = await runProcess(process.execPath, ['--require', preload, BIN, ...args], { env: { HOSTCTL_CONFIG_DIR: dir.path, ...env } });
    expect(r.code, r.stderr).toBe(0);
    const { atFlag, loads } = JSON.parse(readFileSync(log, 'utf8')) as { atFlag?: { flags: string; loaded: number }; loads: string[] };
    const builtins = (list: string[]) => list.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
    return { flags: atFlag?.flags, before: builtins(loads.slice(0, atFlag?.loaded)), after: builtins(loads.slice(atFlag?.loaded)) };
  }

  it('that a request needs are loaded before the V8 flag is set', async () => {
    const sandbox = await startSandboxHere();
    let run: Awaited<ReturnType<typeof recordLoads>>;
    try {
      run = await recordLoads(['apps', 'list', '--json'], { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token });
    } finally {
      await sandbox.stop();
    }
    const { flags, before, after } = run;
    expect(flags?.split(' ')).toContain('--liftoff-only');
    // The request went out through these.
    for (const id of ['http', 'net', '_http_client']) {
      expect(before, `${id} before the flag`).toContain(id);
      expect(after, `${id} after the flag`).not.toContain(id);
    }
    // The token's fingerprint is hashed without node:crypto, which a first page never needs.
    expect([...before, ...after]).not.toContain('crypto');
  });

  /** Node's built-ins a run loaded before the program's V8 flag was set. */
  async function builtinsBeforeFlag(args: string[], env: Record<string, string> = {}): Promise<string[]> {
    return (await recordLoads(args, { HOSTCTL_TOKEN: 'hc_test', ...env })).before;
  }

  it('are chosen by dist/start.json, which the build generates from the marks in src/', async () => {
    const { buildProgram } = await import('../../src/cli.js');
    const { startupFacts } = await import('../../src/help/startup.js');
    const start = JSON.parse(readFileSync(join(ROOT, 'dist', 'start.json'), 'utf8')) as { parser: { simd: string; plain: string } };
    expect(start).toMatchObject(startupFacts(buildProgram()));
    for (const file of [start.parser.simd, start.parser.plain]) expect(existsSync(join(ROOT, 'dist', 'chunks', file)), file).toBe(true);
    // A command marked sendsNothing, and the flag so marked, skip the early load; a flag
    // marked hashes (given with its value after "=") loads node:crypto early.
    expect(await builtinsBeforeFlag(['config', 'path'])).not.toContain('http');
    expect(await builtinsBeforeFlag(['apps', 'list', '--dry-run', '--base-url', 'http://127.0.0.1:9/v1'])).not.toContain('http');
    const hashing = await builtinsBeforeFlag(['apps', 'list', '--limit=2', '--dry-run', '--base-url', 'http://127.0.0.1:9/v1']);
    expect(hashing).toContain('crypto');
    expect(await builtinsBeforeFlag(['apps', 'list', '--dry-run', '--base-url', 'http://127.0.0.1:9/v1'], { HOSTCTL_CACHE: '10m' })).toContain('crypto');
  });
});

describe("undici's HTTP parser", () => {
  // bin/hostctl.js compiles undici's parser (WebAssembly) on a background thread before it
  // compiles the program, so that undici, compiling the same bytes on its first connection,
  // gets the module V8 already made instead of compiling it on the main thread.
  function preload(dir: string, log: string): string {
    const file = join(dir, 'preload.cjs');
    writeFileSync(
      file,
      [
        "'use strict';",
        "const { createHash } = require('node:crypto');",
        "const vm = require('node:vm');",
        'const events = [];',
        "const digest = (bytes) => createHash('sha256').update(new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength)).digest('hex');",
        'const compile = WebAssembly.compile;',
        "WebAssembly.compile = (bytes, ...rest) => { events.push({ what: 'compile', digest: digest(bytes) }); return compile(bytes, ...rest); };",
        'const Module = WebAssembly.Module;',
        "WebAssembly.Module = function (bytes, ...rest) { events.push({ what: 'module', digest: digest(bytes) }); return new Module(bytes, ...rest); };",
        'const Script = vm.Script;',
        "vm.Script = function (source, options) { events.push({ what: 'script', file: require('node:path').basename(options.filename) }); return new Script(source, options); };",
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, JSON.stringify(events)));`,
      ].join('\n'),
    );
    return file;
  }

  it('is compiled ahead, before the program, from the bytes undici compiles', async () => {
    const dir = tmpDir('hostctl-parser-');
    dirs.push(dir);
    const log = join(dir.path, 'events.json');
    const sandbox = await startSandboxHere();
    try {
      const r = await runProcess(process.execPath, ['--require', preload(dir.path, log), BIN, 'apps', 'list', '--json'], {
        env: { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: dir.path },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).not.toEqual([]);
    } finally {
      await sandbox.stop();
    }
    const events = JSON.parse(readFileSync(log, 'utf8')) as Array<{ what: string; digest?: string; file?: string }>;
    expect(events.map((e) => (e.what === 'script' ? `script ${e.file}` : e.what))).toEqual(['compile', 'script hostctl.cjs', 'module']);
    const [ahead, , undici] = events;
    expect(ahead?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(undici?.digest).toBe(ahead?.digest);
  });

  it('is not compiled by a command that sends nothing', async () => {
    const dir = tmpDir('hostctl-parser-');
    dirs.push(dir);
    const log = join(dir.path, 'events.json');
    const r = await runProcess(process.execPath, ['--require', preload(dir.path, log), BIN, 'config', 'path'], { env: { HOSTCTL_CONFIG_DIR: dir.path } });
    expect(r.code, r.stderr).toBe(0);
    const events = JSON.parse(readFileSync(log, 'utf8')) as Array<{ what: string }>;
    expect(events.map((e) => e.what)).toEqual(['script']);
  });
});

// The build refuses to make a client that cannot do its job (issue 25): it is run on a copy
// of the project whose undici is a real copy with one change, as a newer undici would
// bring, and must then fail with one clear sentence and write nothing. The unchanged copy
// builds, so each failure is the change's; it builds on a terminal, as `npm install` runs
// it (prepare), and is silent there: its training runs of hostctl must not show hostctl's
// spinner or notes among npm's output. One build per way of failing that the build reports
// (its smoke test, a patch that no longer applies, an error of the bundler's); another
// check the bundler reports is tested on the plugin alone, without the build around it.

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build as esbuild, type Plugin } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runProcess, tmpDir, type RunResult } from '../support/cli.js';

let scratch: { path: string; cleanup(): void } | undefined;
afterEach(() => scratch?.cleanup());

/**
 * The project's sources in a scratch directory, with node_modules linked package by
 * package but for undici, which is copied and then changed by `change` (a file under
 * undici's directory and what to do to its text).
 */
function projectWith(file?: string, change?: (text: string) => string): string {
  scratch = tmpDir('hostctl-build-check-');
  const dir = scratch.path;
  for (const part of ['bin', 'scripts', 'src', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === 'undici') cpSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), { recursive: true });
    else symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
  }
  if (file && change) {
    const path = join(dir, 'node_modules', 'undici', file);
    const before = readFileSync(path, 'utf8');
    const after = change(before);
    expect(after, `the change to undici's ${file} found its text`).not.toBe(before);
    writeFileSync(path, after);
  }
  return dir;
}

function build(dir: string): Promise<RunResult> {
  return runProcess(process.execPath, ['scripts/build.mjs', '--out', join(dir, 'out')], { cwd: dir, timeoutMs: 180_000 });
}

/** A failed build: exit 1, `build: …` sentences and no stack trace of the build's, nothing written. */
function expectRefused(dir: string, r: RunResult, said: RegExp): void {
  expect(r.code, r.stderr).not.toBe(0);
  expect(r.stderr).toMatch(said);
  expect(r.stderr).toMatch(/^build: failed; nothing was written to /m);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(existsSync(join(dir, 'out'))).toBe(false);
  expect(readdirSync(dir).filter((f) => f.startsWith('out.'))).toEqual([]);
}

describe('node scripts/build.mjs against a changed undici', () => {
  it('builds from the unchanged copy (the control), and on a terminal writes nothing', async () => {
    const dir = projectWith();
    const out = join(dir, 'out');
    const command = `stty cols 80 rows 24 2>/dev/null; '${process.execPath}' scripts/build.mjs --out '${out}'`;
    // CI=true turns spinners off (see IO): this is about a person's terminal.
    const r = await runProcess('script', ['-qfec', command, '/dev/null'], { cwd: dir, timeoutMs: 180_000, env: { TERM: 'xterm-256color', CI: undefined } });
    expect(r.code, r.stdout).toBe(0);
    expect(existsSync(join(out, 'hostctl.cjs'))).toBe(true);
    expect(existsSync(join(out, 'hostctl.cjs.cache'))).toBe(true);
    expect(r.stdout.replace(/\r?\n/g, '')).toBe('');
  }, 200_000);

  it('fails when the client it built cannot make a request, and shows what hostctl said', async () => {
    const dir = projectWith('lib/api/api-request.js', (text) =>
      text.replace(/function request \(opts, callback\) \{/, "$&\n  throw new Error('this undici cannot send (test/e2e/build-check.test.ts)')"),
    );
    const r = await build(dir);
    expectRefused(dir, r, /^build: dist\/hostctl\.cjs failed its smoke test/m);
    // hostctl's own error, as the smoke test's run printed it.
    expect(r.stderr).toContain('"hostctl apps list --json" exited with 6');
  }, 200_000);

  it('fails when a patch of scripts/trim.mjs no longer finds its text, naming it', async () => {
    const dir = projectWith('lib/dispatcher/client.js', (text) => text.replace("require('./client-h2.js')", "require('./client-h2')"));
    const r = await build(dir);
    expectRefused(dir, r, /client\.js no longer contains "const connectH2 = require\('\.\/client-h2\.js'\)": check scripts\/trim\.mjs against this undici/);
  }, 200_000);

  it('fails when a file a patch applies to has moved, so that the patch would silently not apply', async () => {
    const dir = projectWith('lib/dispatcher/client.js', (text) => text.replace("require('./client-h1.js')", "require('./client-http1.js')"));
    const lib = join(dir, 'node_modules', 'undici', 'lib', 'dispatcher');
    renameSync(join(lib, 'client-h1.js'), join(lib, 'client-http1.js'));
    const r = await build(dir);
    expectRefused(dir, r, /patch "extractBody = require\('\.\.\/web\/fetch\/body\.js'\)\.extractBody" found no file matching .*client-h1.* in the undici it bundled/);
  }, 200_000);

  it("fails when undici's index no longer exports what the slim index requires, naming it", async () => {
    // The check runs when the bundler starts on the program; the build says what the
    // bundler reports as for a patch that no longer finds its text (above). Here the
    // bundler runs the copy's own plugin over the copy's undici.
    const dir = projectWith('index.js', (text) => text.replace('module.exports.Agent = Agent', 'module.exports.HttpAgent = Agent'));
    const { trimDependencies } = (await import(pathToFileURL(join(dir, 'scripts', 'trim.mjs')).href)) as { trimDependencies(outdir: string): Plugin };
    const bundled = esbuild({
      stdin: { contents: "require('undici')", resolveDir: dir },
      bundle: true,
      platform: 'node',
      write: false,
      logLevel: 'silent',
      plugins: [trimDependencies(join(dir, 'out'))],
    });
    await expect(bundled).rejects.toThrow(/slim undici does not fit the undici in .*: its index\.js no longer exports Agent from \.\/lib\/dispatcher\/agent/);
  });
});

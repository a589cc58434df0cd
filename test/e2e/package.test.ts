// The npm package as a user gets it: `npm pack` (of the dist/ that `npm test` just built),
// then `npm install -g <tarball>` into an empty prefix, from the local npm cache where it
// can. The tarball holds what a user needs and nothing of the build machine; the install
// pulls a handful of packages; the installed hostctl passes the smoke layer, and its
// completion scripts and every man page package.json declares are in place.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_FILES } from '../../src/commands/completion.js';
import { filesContaining, ROOT, tmpDir } from '../support/cli.js';
import { smokeLayer } from '../support/smoke.js';

interface PackageJson {
  version: string;
  dependencies?: Record<string, string>;
  man?: string | string[];
  directories?: { man?: string };
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** npm's own environment (npm test sets npm_config_*), which must not steer these npm runs. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && !k.startsWith('HOSTCTL_')) env[k] = v;
  return env;
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, env: npmEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
}

/** The man pages package.json declares: `man` (a file or a list), or every file in `directories.man`. */
function declaredManPages(): string[] {
  if (pkg.man !== undefined) return ([] as string[]).concat(pkg.man).map((p) => p.replace(/^\.\//, ''));
  const dir = pkg.directories?.man;
  if (!dir) return [];
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.\d\w*$/.test(e.name))
    .map((e) => join(e.parentPath, e.name).slice(ROOT.length + 1));
}

/** npm links hostctl.1 (or hostctl.1.gz) as <prefix>/share/man/man1/hostctl.1. */
const manLink = (prefix: string, page: string) => join(prefix, 'share', 'man', `man${/\.(\d)\w*(\.gz)?$/.exec(page)?.[1] ?? '1'}`, basename(page));

let scratch: { path: string; cleanup(): void };
let prefix: string;
let installedDir: string;
let tarballFiles: string[];
let unpacked: string;

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'hostctl.cjs'))) throw new Error('dist/ is not built: run "npm run build" (npm test does).');
  scratch = tmpDir('hostctl-package-');
  // --ignore-scripts: `prepare` would rebuild dist/ under the tests that are running it.
  const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch.path], ROOT)) as { filename: string; files: { path: string }[] }[];
  const tarball = join(scratch.path, packed[0]?.filename ?? '');
  tarballFiles = (packed[0]?.files ?? []).map((f) => f.path);
  unpacked = join(scratch.path, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);

  prefix = join(scratch.path, 'prefix');
  npm(['install', '-g', tarball, '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund'], scratch.path);
  installedDir = join(prefix, 'lib', 'node_modules', 'hostctl');
}, 240_000);
afterAll(() => scratch?.cleanup());

describe('the packed tarball', () => {
  it('holds the built program, the completions, the man pages and the guides the help points to, and nothing else', () => {
    const allowed = /^(package\.json|README\.md|LICENSE(\.\w+)?|bin\/[^/]+|dist\/[^/]+\.cjs(\.cache)?|dist\/chunks\/[^/]+\.(cjs|wasm)|completions\/[^/]+|man\/.+|docs\/(authentication|commands|economy|fleet|install|mcp|sandbox|status)\.md)$/;
    expect(tarballFiles.filter((f) => !allowed.test(f))).toEqual([]);
    expect(tarballFiles).toEqual(expect.arrayContaining(['bin/hostctl.js', 'dist/hostctl.cjs', 'dist/hostctl.cjs.cache', 'dist/complete.cjs', 'dist/complete.cjs.cache']));
    expect(tarballFiles.filter((f) => /\.(map|ts)$/.test(f) || f.startsWith('dist/hostctl-'))).toEqual([]);
    for (const file of Object.values(SCRIPT_FILES)) expect(tarballFiles).toContain(`completions/${file}`);
    for (const page of declaredManPages()) expect(tarballFiles).toContain(page);
  });

  it('carries no path of the machine that built it', () => {
    expect(filesContaining(unpacked, ROOT)).toEqual([]);
  });
});

describe('npm install -g <tarball> into an empty prefix', () => {
  it('installs only the run-time dependencies (the keychain addon), not what dist/ bundles', () => {
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['@napi-rs/keyring']);
    const modules = join(installedDir, 'node_modules');
    const names = readdirSync(modules).flatMap((d) => (d.startsWith('@') ? readdirSync(join(modules, d)).map((s) => `${d}/${s}`) : d.startsWith('.') ? [] : [d]));
    expect(names.sort()).toEqual(expect.arrayContaining(['@napi-rs/keyring']));
    expect(names.every((n) => n.startsWith('@napi-rs/keyring'))).toBe(true);
  });

  it('puts the completion scripts and every declared man page in place', () => {
    for (const file of Object.values(SCRIPT_FILES)) {
      expect(readFileSync(join(installedDir, 'completions', file), 'utf8')).toBe(readFileSync(join(ROOT, 'completions', file), 'utf8'));
    }
    const pages = declaredManPages();
    // Every page npm run build made (man/*.1) is declared, hostctl.1 among them: a missing
    // list would install no man page at all.
    const built = readdirSync(join(ROOT, 'man')).filter((f) => /\.\d$/.test(f)).map((f) => `man/${f}`);
    expect(built).toContain('man/hostctl.1');
    expect([...pages].sort()).toEqual(built.sort());
    for (const page of pages) {
      expect(readFileSync(join(installedDir, page))).toEqual(readFileSync(join(ROOT, page)));
      expect(existsSync(manLink(prefix, page)), `${manLink(prefix, page)} (npm links declared man pages there)`).toBe(true);
    }
  });
});

smokeLayer('npm install -g', () => ({ command: [join(prefix, 'bin', 'hostctl')], env: {} }));

// `npm run build:sea`: the single-file executable, dist/hostctl-<platform>-<arch>[.exe],
// which runs hostctl with no Node installed. Built for the machine it runs on (macOS and
// Windows: see docs/install.md), with Node's single executable application support:
//
//   1. Node 24, the newest 24.x, into a cache (scripts/node-dist.mjs): the executable is
//      that binary with hostctl injected, whatever Node runs this script.
//   2. dist/ built again by that Node (scripts/build.mjs --out), so that the V8 code caches
//      it trains are ones the executable's V8 accepts.
//   3. The main script, scripts/build-sea-main.cjs with bin/hostctl.js's loader, bundled
//      into one CommonJS file (the executable's require() reaches only built-ins).
//   4. The preparation blob: that script with its own code cache (useCodeCache), and as
//      assets the bundles and caches of step 2, the completion scripts, and the keychain
//      addon with its SHA-256 (src/auth/embedded-addon.ts).
//   5. A copy of the node binary (stripped on Linux) with the blob injected by postject,
//      signed ad hoc on macOS, checked with --version, and renamed into dist/ in one step,
//      with its SHA-256 beside it (dist/hostctl-<platform>-<arch>.sha256).
//
// Options: --out FILE (default dist/hostctl-<platform>-<arch>), --node-major N (24).
// Exits 1 with one line on stderr when something fails.

import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { nodeDist } from './node-dist.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { platform, arch } = process;
// The fuse postject flips, so that Node looks for the blob (Node's SEA documentation).
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** @napi-rs/keyring's addon package for this machine: its optional dependency that npm installed here. */
const KEYRING_TARGETS = {
  'linux-x64': 'linux-x64-gnu',
  'linux-arm64': 'linux-arm64-gnu',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-x64-msvc',
  'win32-arm64': 'win32-arm64-msvc',
};

function run(cmd, args, options = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options });
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

function keyringAddon() {
  const target = KEYRING_TARGETS[`${platform}-${arch}`];
  if (!target) throw new Error(`@napi-rs/keyring has no addon for ${platform}-${arch}.`);
  const req = createRequire(join(ROOT, 'package.json'));
  try {
    return req.resolve(`@napi-rs/keyring-${target}/keyring.${target}.node`);
  } catch {
    throw new Error(`@napi-rs/keyring-${target} is not installed: run "npm ci" on this machine.`);
  }
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'node-major': { type: 'string', default: '24' } } });
  const exe = values.out ?? join(ROOT, 'dist', `hostctl-${platform}-${arch}${platform === 'win32' ? '.exe' : ''}`);
  const log = (line) => process.stderr.write(`build-sea: ${line}\n`);

  const node = nodeDist(values['node-major'], { log });
  const nodeVersion = run(node, ['--version']).trim();
  log(`building with Node ${nodeVersion} (${node})`);

  const work = join(ROOT, '.tmp', `sea-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const dist = join(work, 'dist');
    run(node, [join(ROOT, 'scripts', 'build.mjs'), '--out', dist], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });

    const main = join(work, 'main.cjs');
    await build({
      absWorkingDir: ROOT,
      entryPoints: ['scripts/build-sea-main.cjs'],
      outfile: main,
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      minify: true,
      legalComments: 'none',
      logLevel: 'warning',
    });

    const assets = {};
    for (const file of filesUnder(dist)) assets[`dist/${relative(dist, file).split('\\').join('/')}`] = file;
    for (const file of filesUnder(join(ROOT, 'completions'))) assets[`completions/${relative(join(ROOT, 'completions'), file)}`] = file;
    const addon = keyringAddon();
    assets['keyring.node'] = addon;
    const hashFile = join(work, 'keyring.node.sha256');
    writeFileSync(hashFile, `${createHash('sha256').update(readFileSync(addon)).digest('hex')}\n`);
    assets['keyring.node.sha256'] = hashFile;

    const blob = join(work, 'sea.blob');
    const config = join(work, 'sea-config.json');
    writeFileSync(config, JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, useSnapshot: false, assets }, null, 2));
    run(node, ['--experimental-sea-config', config], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });

    const tmpExe = join(work, platform === 'win32' ? 'hostctl.exe' : 'hostctl');
    copyFileSync(node, tmpExe);
    chmodSync(tmpExe, 0o755);
    // The Linux binary comes with its symbol table (about 18 MB of 120), which only
    // native debugging reads. Without binutils it stays.
    if (platform === 'linux') {
      try {
        run('strip', [tmpExe]);
      } catch {
        log('strip (binutils) is not installed: the executable keeps its symbol table.');
      }
    }
    // The official macOS and Windows binaries are signed; injecting breaks the signature,
    // so it goes first (on Windows the executable runs either way).
    if (platform === 'darwin') run('codesign', ['--remove-signature', tmpExe]);
    if (platform === 'win32') {
      try {
        run('signtool', ['remove', '/s', tmpExe]);
      } catch {
        log('signtool (Windows SDK) is not on PATH: Node\'s signature stays in the executable, broken by the injection; sign it (docs/install.md).');
      }
    }
    const { inject } = createRequire(import.meta.url)('postject');
    await inject(tmpExe, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: FUSE, ...(platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}) });
    // Apple silicon runs no unsigned code: an ad-hoc signature here; a release is signed
    // with a Developer ID instead (docs/install.md).
    if (platform === 'darwin') run('codesign', ['--sign', '-', tmpExe]);

    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    const reported = run(tmpExe, ['--version'], { env: { PATH: '' } }).trim();
    if (reported !== version) throw new Error(`the executable printed "${reported}" for --version, not ${version}.`);

    mkdirSync(dirname(exe), { recursive: true });
    // In sha256sum's format, for `sha256sum -c` (docs/install.md).
    const digest = createHash('sha256').update(readFileSync(tmpExe)).digest('hex');
    writeFileSync(`${exe}.sha256`, `${digest}  ${basename(exe)}\n`);
    renameSync(tmpExe, exe);
    const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
    log(`wrote ${relative(process.cwd(), exe) || exe}: ${mib(statSync(exe).size)} (Node ${nodeVersion} ${mib(statSync(node).size)}, blob ${mib(statSync(blob).size)})`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`build-sea: ${err instanceof Error ? err.message : err}\n`);
  process.exitCode = 1;
});

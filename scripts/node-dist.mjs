// `node scripts/node-dist.mjs <major> [--platform P] [--arch A]`: fetches the newest
// Node <major>.x for this machine (or P/A) into a cache and prints the path of its `node`
// binary. scripts/build-sea.mjs builds the single-file executable with it; CI can run the
// suite on another Node with PATH="$(dirname "$(node scripts/node-dist.mjs 22)"):$PATH".
//
// Node comes from the npm registry's node-<platform>-<arch> packages (the ones the `node`
// package installs; their versions are Node's), through npm itself: the registry, proxy
// and cache settings a developer already has apply, and npm checks the tarball's
// integrity against the registry's metadata. It is not a dependency of hostctl, so a plain
// `npm install` stays light.
//
// The cache is ${HOSTCTL_BUILD_CACHE:-${XDG_CACHE_HOME:-~/.cache}/hostctl-build}/node-v<version>-<platform>-<arch>/.
// Offline, the newest cached <major>.x is used. Exits 1 with one line on stderr when
// there is neither.

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const WINDOWS = process.platform === 'win32';

/**
 * A cache of the project's scripts, outside the checkout so that no clone carries it: the
 * directory the environment variable `override` names, else `name` under the XDG cache home.
 */
export function userCache(name, override, env = process.env) {
  if (env[override]) return env[override];
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), name);
}

export function cacheRoot(env = process.env) {
  return userCache('hostctl-build', 'HOSTCTL_BUILD_CACHE', env);
}

/** The npm package's name for a platform: the `node` package's own naming. */
function packageName(platform, arch) {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

/** Where the binary sits in the package: bin/node, or node.exe at its top on Windows. */
function binaryIn(dir, platform) {
  for (const rel of platform === 'win32' ? ['node.exe', 'bin/node.exe'] : ['bin/node']) {
    if (existsSync(join(dir, rel))) return join(dir, rel);
  }
  return undefined;
}

function npm(args, options = {}) {
  // npm is a .cmd script on Windows, which execFile runs only through a shell.
  return execFileSync(WINDOWS ? 'npm.cmd' : 'npm', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: WINDOWS, ...options });
}

const byVersion = (a, b) => {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
};

/** The newest published <major>.x.y, or undefined when the registry cannot be asked. */
function newestPublished(name, major) {
  let versions;
  try {
    versions = JSON.parse(npm(['view', name, 'versions', '--json']));
  } catch {
    return undefined;
  }
  const matching = [].concat(versions).filter((v) => new RegExp(`^${major}\\.\\d+\\.\\d+$`).test(v));
  return matching.sort(byVersion).pop();
}

function newestCached(root, major, platform, arch) {
  if (!existsSync(root)) return undefined;
  const re = new RegExp(`^node-v(${major}\\.\\d+\\.\\d+)-${platform}-${arch}$`);
  const versions = readdirSync(root)
    .map((d) => re.exec(d)?.[1])
    .filter((v) => v && binaryIn(join(root, `node-v${v}-${platform}-${arch}`), platform));
  return versions.sort(byVersion).pop();
}

/**
 * The path of a cached node binary for Node <major>.x, fetched first if needed. Throws
 * with one sentence when there is no way to get one.
 */
export function nodeDist(major, { platform = process.platform, arch = process.arch, env = process.env, log = () => {} } = {}) {
  if (!/^\d+$/.test(String(major))) throw new Error(`The Node major version must be a number, not "${major}".`);
  const root = cacheRoot(env);
  const name = packageName(platform, arch);
  const version = newestPublished(name, major) ?? newestCached(root, major, platform, arch);
  if (!version) throw new Error(`No Node ${major}.x for ${platform}-${arch}: the registry did not answer for ${name} and ${root} holds none.`);
  const dir = join(root, `node-v${version}-${platform}-${arch}`);
  const cached = binaryIn(dir, platform);
  if (cached) return cached;

  mkdirSync(root, { recursive: true });
  // Fetched and unpacked beside its final place, then renamed: a second build running at
  // the same time, or one stopped half-way, never sees a partial directory.
  const scratch = mkdtempSync(join(root, '.fetch-'));
  try {
    log(`node-dist: fetching ${name}@${version} into ${root}`);
    const tarball = JSON.parse(npm(['pack', `${name}@${version}`, '--json', '--pack-destination', scratch]))[0]?.filename;
    if (!tarball) throw new Error(`npm pack ${name}@${version} wrote no tarball.`);
    const unpacked = join(scratch, 'unpacked');
    mkdirSync(unpacked);
    const members = execFileSync('tar', ['-tzf', join(scratch, tarball)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\n');
    // Only the binary and its licence: the package also holds headers and docs (2800 files).
    const wanted = members.filter((m) => /^package\/(bin\/node|bin\/node\.exe|node\.exe|LICENSE)$/.test(m));
    execFileSync('tar', ['-xzf', join(scratch, tarball), '-C', unpacked, ...wanted]);
    const bin = binaryIn(join(unpacked, 'package'), platform);
    if (!bin) throw new Error(`${name}@${version} holds no node binary.`);
    if (!WINDOWS) chmodSync(bin, 0o755);
    if (platform === process.platform && arch === process.arch) {
      const reported = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
      if (reported !== `v${version}`) throw new Error(`${name}@${version} says it is ${reported}.`);
    }
    try {
      renameSync(join(unpacked, 'package'), dir);
    } catch (err) {
      // Another build got there first; theirs is as good.
      if (!binaryIn(dir, platform)) throw err;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binaryIn(dir, platform);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { platform: { type: 'string' }, arch: { type: 'string' } } });
    if (parsed.positionals.length !== 1) throw new Error('Give one Node major version.');
  } catch (err) {
    process.stderr.write(`node-dist: ${err.message}\nUsage: node scripts/node-dist.mjs <major> [--platform linux|darwin|win32] [--arch x64|arm64]\n`);
    process.exit(2);
  }
  try {
    const bin = nodeDist(parsed.positionals[0], { ...parsed.values, log: (line) => process.stderr.write(`${line}\n`) });
    process.stdout.write(`${bin}\n`);
  } catch (err) {
    process.stderr.write(`node-dist: ${err instanceof Error ? err.message : err}\n`);
    process.exit(1);
  }
}

// The main script of the single-file executable (scripts/build-sea.mjs bundles it with
// bin/hostctl.js's loader). Node runs it from the executable, where require() reaches
// only Node's built-in modules; everything else is an asset embedded next to it:
//   dist/…         the bundles and their V8 code caches, as `npm run build` lays them out
//                  (the caches made by the same Node the executable is built from);
//   completions/…  the shell scripts `hostctl completion` prints;
//   keyring.node   the keychain addon, which src/auth/embedded-addon.ts loads.
// The bundles run as they do from an installed package, at a made-up root inside the
// executable's own path (`/usr/local/bin/hostctl/dist/hostctl.cjs`): no real file can be
// there, since the executable is a file, and stack traces name the executable.

/* global require */
/* eslint-disable @typescript-eslint/no-require-imports */
'use strict';

const fs = require('node:fs');
const { dirname, isAbsolute, join, relative, resolve, sep } = require('node:path');
const sea = require('node:sea');
const { loadBundle, run } = require('../bin/hostctl.js');

const ROOT = process.execPath;
const KEYS = new Set(sea.getAssetKeys());

/** The asset key of an absolute path under ROOT ('dist/hostctl.cjs'), or undefined. */
function assetKey(path) {
  if (typeof path !== 'string') return undefined;
  const rel = relative(ROOT, resolve(path));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

function notFound(path) {
  return Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT', errno: -2, syscall: 'open', path });
}

const ASSETS = {
  source: (file) => {
    const key = assetKey(file);
    if (!key || !KEYS.has(key)) throw notFound(file);
    return sea.getAsset(key, 'utf8');
  },
  // A view of the executable's own memory, not a copy.
  cache: (file) => {
    const key = `${assetKey(file)}.cache`;
    return KEYS.has(key) ? Buffer.from(sea.getRawAsset(key)) : undefined;
  },
};

/**
 * node:fs as the bundles see it: the same module, except that readFileSync and existsSync
 * answer for paths under ROOT from the assets (the completion scripts, undici's
 * WebAssembly parser), and only from them.
 */
let fsView;
function assetFs() {
  if (fsView) return fsView;
  // The descriptors, not a spread: a spread reads every getter, and fs.promises loads a
  // module of its own.
  fsView = Object.defineProperties({}, Object.getOwnPropertyDescriptors(fs));
  Object.assign(fsView, {
    readFileSync(path, options) {
      const key = assetKey(path);
      if (key === undefined) return fs.readFileSync(path, options);
      if (!KEYS.has(key)) throw notFound(path);
      const bytes = Buffer.from(sea.getAsset(key));
      const encoding = typeof options === 'string' ? options : options?.encoding;
      return encoding ? bytes.toString(encoding) : bytes;
    },
    existsSync(path) {
      const key = assetKey(path);
      if (key === undefined) return fs.existsSync(path);
      return KEYS.has(key) || [...KEYS].some((k) => k.startsWith(`${key}/`));
    },
  });
  return fsView;
}

const chunks = new Map();

/** require() for the bundles: built-ins, node:fs as assetFs, and the bundles' own chunks. */
function bundleRequire(id) {
  if (id === 'node:fs' || id === 'fs') return assetFs();
  const key = assetKey(id);
  if (key === undefined) return require(id);
  if (!chunks.has(key)) chunks.set(key, loadBundle(key.split('/').pop(), dirname(id), { from: ASSETS, require: bundleRequire }).exports);
  return chunks.get(key);
}

run(process.argv.slice(2), join(ROOT, 'dist'), { from: ASSETS, require: bundleRequire });

#!/usr/bin/env node
// The hostctl command. Scripts call it in loops and the shell calls `hostctl __complete`
// on every Tab press, so it starts as little as it can:
//   hostctl --version    answered here, from package.json;
//   hostctl __complete   dist/complete.cjs, the completion engine alone;
//   everything else      dist/hostctl.cjs.
// Both are compiled with the V8 code cache the build made and the package ships
// (loadBundle); nothing here ever writes into the package, which a package manager owns
// and which may be read-only. The single-file executable runs this same loader on the
// bundles it carries (scripts/build-sea-main.cjs). All of it is CommonJS
// (bin/package.json): an ES module anywhere on the way makes Node start its ES module
// loader, which costs about a fifth of a bare `node -e 0`.

/* global require, module, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports */
'use strict';

const { readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');

/** The bundles and their code caches, on disk. */
const FILES = {
  source: (file) => readFileSync(file, 'utf8'),
  cache: (file) => {
    try {
      return readFileSync(`${file}.cache`);
    } catch {
      return undefined; // no cache: compile from the source
    }
  },
};

/** Node's own CommonJS wrapper: the code cache belongs to the wrapped text. */
const WRAPPER = ['(function (exports, require, module, __filename, __dirname) { ', '\n})'];

/**
 * Loads dist/<name> as Node loads a CommonJS module, but through vm.Script with the V8 code
 * cache the build made (dist/<name>.cache), so that the program is not parsed and compiled
 * again on every run. A missing, stale (another Node) or damaged cache costs only that
 * saving: V8 checks it and compiles from the source. `cache()` makes one from what this
 * run compiled, for the build. `as` is the directory the file will have once installed,
 * because V8 keeps the script's name in the cache and stack traces show it. `from` is
 * where the files come from (FILES: the disk; the single-file executable passes its
 * embedded assets) and `require` what the bundle gets as require().
 */
function loadBundle(name, dir, { as = dir, from = FILES, require: bundleRequire = require } = {}) {
  const file = join(dir, name);
  const { Script } = require('node:vm');
  const script = new Script(`${WRAPPER[0]}${from.source(file)}${WRAPPER[1]}`, { filename: join(as, name), cachedData: from.cache(file) });
  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, bundleRequire, mod, file, dir);
  return { exports: mod.exports, cache: () => script.createCachedData() };
}

/**
 * The V8 flags the program runs with, set before it is compiled: V8 ties a code cache to
 * its flags, and the build makes the program's cache under these (it loads the program
 * through loadProgram too). Set at launch only: a flag changed later would make V8 reject
 * that cache on the next run.
 * - --liftoff-only: undici parses HTTP in WebAssembly, and V8 optimises hot WebAssembly
 *   on background threads, which Node waits for before it exits: about 100 ms on two
 *   cores, after the output is printed. The baseline compiler is ample for HTTP headers.
 * - --no-wasm-lazy-compilation: that parser compiled whole, once, rather than each
 *   function on its first call in the middle of the first response.
 * - --wasm-num-compilation-tasks=1: on one background thread, so that on a machine with
 *   two cores the program keeps the other.
 */
const PROGRAM_FLAGS = '--liftoff-only --no-wasm-lazy-compilation --wasm-num-compilation-tasks=1';

/**
 * Node's own modules that a request loads: HTTP (undici builds on node:http and node:net),
 * node:os (the config's paths) and node:vm (loadBundle). Node ships them compiled in a code cache of its own, which V8 accepts only
 * while its flags are the ones Node was built with: loaded after PROGRAM_FLAGS, each would
 * be compiled from source on every run (measured: `apps list` about 17 ms slower).
 */
const PROGRAM_BUILTINS = ['node:http', 'node:os', 'node:vm'];

/** dist/hostctl.cjs: the program. */
function loadProgram(dir = DIST, options = {}) {
  for (const id of PROGRAM_BUILTINS) require(id);
  require('node:v8').setFlagsFromString(PROGRAM_FLAGS);
  return loadBundle('hostctl.cjs', dir, options);
}

/** dist/complete.cjs: the completion engine, without the program's V8 flags (it runs no WebAssembly). */
function loadCompletion(dir = DIST, options = {}) {
  return loadBundle('complete.cjs', dir, options);
}

/** Writes to stdout's file descriptor: cheaper than setting up process.stdout for one line. */
function writeOut(text) {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(1, bytes, done);
  } catch (err) {
    // A non-blocking pipe that is full: the stream waits for it.
    if (err.code === 'EAGAIN') return void process.stdout.write(bytes.subarray(done));
    // A reader that went away is no error (as in the program, src/cli.ts); a full disk is.
    if (err.code === 'EPIPE') return;
    process.stderr.write(`hostctl: could not write to standard output: ${String(err.message).replace(/^[A-Z]+: /, '').replace(/, write$/, '')} (${err.code}).\n`);
    process.exitCode = 1;
  }
}

/**
 * SIGUSR1 would open Node's inspector on 127.0.0.1:9229 while the token is in memory: any
 * process of the same user could then read it. A listener of its own takes the signal
 * from the inspector on Node 20, 22 and 24 (--disable-sigusr1 exists only from 22.14 and
 * cannot be set from here); it ignores the signal. A run started with --inspect keeps it.
 */
function refuseInspectorSignal() {
  if ([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith('--inspect'))) return;
  process.on('SIGUSR1', () => undefined);
}

/** Runs hostctl with `argv`; `dir` and `options` say where the bundles are (see loadBundle). */
function run(argv, dir = DIST, options = {}) {
  refuseInspectorSignal();
  if (argv.length === 1 && argv[0] === '--version') {
    writeOut(`${require('../package.json').version}\n`);
    return;
  }
  const completion = argv[0] === '__complete';
  let started;
  try {
    if (completion) started = loadCompletion(dir, options).exports.completeMain(argv.slice(1));
    else started = loadProgram(dir, options).exports.main(argv);
  } catch (err) {
    started = Promise.reject(err);
  }
  // main() reports its own errors and never rejects: what lands here is a missing or
  // broken dist/.
  started.then(
    (code) => {
      process.exitCode = code;
      // The program is done once main() resolves: exit now rather than wait while Node
      // tears the heap down (about 3 ms), unless something is still unwritten (a pipe is
      // asynchronous on macOS). The completion engine writes straight to the file
      // descriptor and never makes process.stdout, which reading it here would.
      if (!completion && process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
    },
    (err) => {
      process.stderr.write(`hostctl: this installation is incomplete (${err instanceof Error ? err.message : err}).\n`);
      process.stderr.write('Reinstall hostctl, or run "npm run build" in its source folder.\n');
      process.exitCode = 1;
    },
  );
}

module.exports = { loadBundle, loadProgram, loadCompletion, run };

if (require.main === module) run(process.argv.slice(2));

#!/usr/bin/env node
// The hostctl command. Scripts call it in loops and the shell calls `hostctl __complete`
// on every Tab press, so it starts as little as it can (docs/performance.md):
//   hostctl --version    answered here, from package.json;
//   hostctl __complete   dist/complete.cjs, the completion engine alone;
//   everything else      dist/hostctl.cjs.
// Both are compiled with the V8 code cache the build made (loadBundle). The single-file
// executable runs this same loader on the bundles it carries (scripts/build-sea-main.cjs).
// All of it is CommonJS (bin/package.json): an ES module anywhere on the way makes Node
// start its ES module loader, which costs about a fifth of a bare `node -e 0`.

/* global require, module, __dirname, setImmediate, WebAssembly */
/* eslint-disable @typescript-eslint/no-require-imports */
'use strict';

const { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');

/**
 * One buffer for a bundle's text and then its code cache (about 320 and 510 KB for the
 * program), rather than a new one for each: the first touch of each page of memory costs
 * the process a page fault, and on some virtual machines, this project's among them, a
 * page fault costs 10 µs or more (docs/performance.md). The text is copied out of it into
 * a string before the cache is read in; the cache is used before anything else is read.
 */
let shared;
function readShared(file, room = 0) {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (shared === undefined || shared.length < size) shared = Buffer.allocUnsafeSlow(Math.max(size, room));
    let done = 0;
    while (done < size) {
      const n = readSync(fd, shared, done, size - done, done);
      if (n === 0) break;
      done += n;
    }
    return shared.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/** The bundles on disk, where a run may save a fresh code cache. */
const FILES = {
  source: (file) => readShared(file, statSync(`${file}.cache`, { throwIfNoEntry: false })?.size).toString('latin1'),
  bytes: (file) => readFileSync(file),
  cache: (file) => {
    try {
      return readShared(`${file}.cache`);
    } catch {
      return undefined; // no cache: compile from the source
    }
  },
  saves: true,
};

/**
 * Node's own CommonJS wrapper, which the build writes around each bundle it makes for
 * loadBundle (scripts/build.mjs), so that V8 compiles the file's text as read: wrapped
 * here, the text would be copied whole into a second string (for the program about 370 KB
 * of new heap on every run, which brings V8's first garbage collection that much sooner).
 */
const WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

/**
 * Loads dist/<name> as Node loads a CommonJS module, but through vm.Script with V8's code
 * cache (dist/<name>.cache), so that what the last run compiled is not parsed and
 * compiled again. A missing, stale or damaged cache costs only that saving: V8 checks it
 * and compiles from the source. Then, if the package directory is writable, a fresh cache
 * is saved at exit (a Node upgrade makes V8 reject the old one). `train` (the build) skips
 * the cache and leaves saving it to the caller; `as` is the directory the file will have
 * once installed, because V8 keeps the script's name in the cache and stack traces show it.
 * `from` is where the files come from (FILES: the disk; the single-file executable passes
 * its embedded assets) and `require` what the bundle gets as require().
 */
function loadBundle(name, dir, { train = false, as = dir, from = FILES, require: bundleRequire = require } = {}) {
  const file = join(dir, name);
  const { Script } = require('node:vm');
  const source = from.source(file);
  const cachedData = train ? undefined : from.cache(file);
  // The build writes the wrapper into the file; one without it is wrapped here, a line
  // above its own line 1.
  const wrapped = source.startsWith(WRAPPER[0]);
  const script = new Script(wrapped ? source : `${WRAPPER[0]}\n${source}${WRAPPER[1]}`, {
    filename: join(as, name),
    lineOffset: wrapped ? 0 : -1,
    cachedData,
  });
  const saveCache = () => {
    const cacheFile = `${file}.cache`;
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // A read-only installation keeps the cache it shipped with, or none.
      rmSync(tmp, { force: true });
    }
  };
  // Command-line or NODE_OPTIONS flags change what V8 accepts; a cache made under them
  // would be rejected by the next plain run.
  const plainNode = process.execArgv.length === 0 && !process.env.NODE_OPTIONS;
  if (!train && from.saves && plainNode && (cachedData === undefined || script.cachedDataRejected)) process.once('exit', saveCache);

  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, bundleRequire, mod, file, dir);
  return { exports: mod.exports, saveCache };
}

/**
 * Node's own modules that the program's commands load: HTTP (undici builds on node:http
 * and node:net), node:os (the config's paths), node:process (env-paths) and node:vm
 * (loadBundle). Node ships them compiled, in a
 * code cache of its own, which V8 accepts only while its flags are the ones Node was built
 * with: loaded after the flag below, each would be compiled from its source on every run.
 */
const PROGRAM_BUILTINS = ['node:http', 'node:os', 'node:process', 'node:vm'];

/**
 * What the loader knows of the command line before it loads the program, generated by the
 * build (scripts/build.mjs) from the marks in src/ (src/help/startup.ts) into
 * dist/start.json: `local`, the commands and flags that never send a request nor need a
 * token's fingerprint; `hashes`, those that hash with node:crypto; `parser`, the file
 * names of undici's parser in dist/chunks/.
 */
function readStart(dir, from) {
  return JSON.parse(Buffer.from(from.bytes(join(dir, 'start.json'))).toString('latin1'));
}

/** `flags` as given, alone or with their value (`--limit=5`). */
const hasFlag = (argv, flags) => argv.some((a) => flags.includes(a.includes('=') ? a.slice(0, a.indexOf('=')) : a));

/**
 * A run that sends nothing skips loading PROGRAM_BUILTINS (about 12 ms, measured against a
 * bare `node -e`). A command missing from the list only loads them for nothing.
 */
function isLocal(argv, { local }) {
  return argv.length === 0 || local.commands.includes(argv[0]) || hasFlag(argv, local.flags);
}

/**
 * Whether this run will likely hash with node:crypto: a walk over pages compares their
 * digests, the response cache names its files by digest, `docs` hashes the reference. The
 * token's fingerprint does not need it (src/auth/token.ts), and most runs never load it;
 * these load it with the others, before the flag. A cache set in a profile only loads it
 * later, which costs time, not a result.
 */
function usesCrypto(argv, env, { hashes }) {
  return hashes.commands.includes(argv[0]) || hashes.env.some((name) => Boolean(env[name])) || hasFlag(argv, hashes.flags);
}

/**
 * On Node 22 and later, Node keeps a code cache of what require() compiles
 * (module.enableCompileCache), in dist/.compile-cache where dist/ is writable: here the
 * files in dist/chunks/ that some commands require (tables, config writes, the spinner,
 * the sandbox), which have no cache of their own. The program itself keeps loadBundle's:
 * Node's holds only what compiling a file compiles, not what running it did, and measured
 * slower for it (docs/performance.md).
 */
function enableChunkCache(dir, from) {
  if (from !== FILES) return; // the single-file executable's chunks are its own assets
  // Node 20 has no compile cache, and loading node:module to learn so costs about 0.6 ms.
  if (Number(process.versions.node.split('.')[0]) < 22) return;
  const { enableCompileCache } = require('node:module');
  if (typeof enableCompileCache === 'function') enableCompileCache(join(dir, '.compile-cache'));
}

/**
 * The V8 flags the program runs with, set before it is compiled: V8 ties a code cache to
 * its flags, and the build trains the program's cache under these (it loads the program
 * through loadProgram too).
 * - --liftoff-only: undici parses HTTP in WebAssembly, and V8 optimises hot WebAssembly
 *   on background threads, which Node waits for before it exits: about 100 ms on two
 *   cores, after the output is printed. The baseline compiler is ample for HTTP headers.
 * - --no-wasm-lazy-compilation: that parser compiled whole, rather than each function on
 *   its first call, which on Node 20 cost about 9 ms of the main thread in the middle of
 *   the first response; whole, it can be compiled ahead, off the main thread
 *   (precompileParser).
 * - --wasm-num-compilation-tasks=1: on one background thread, so that on a machine with
 *   two cores the program keeps the other.
 */
const PROGRAM_FLAGS = '--liftoff-only --no-wasm-lazy-compilation --wasm-num-compilation-tasks=1';

/**
 * undici compiles its HTTP parser (llhttp, WebAssembly: dist/chunks/llhttp_simd-wasm.wasm,
 * written there by scripts/trim.mjs, named in dist/start.json's `parser`) when its first
 * connection opens, on the main thread.
 * Started here, before the program is compiled, V8 compiles the same bytes on a background
 * thread while the program loads and runs, and hands undici that module when it compiles
 * them in turn (V8 keeps compiled modules by their bytes while they are alive: the promise
 * keeps this one until exit). If it is not finished by then, undici compiles the parser
 * itself, as it always did. undici takes the build without SIMD when UNDICI_NO_WASM_SIMD=1
 * says so (and on ppc64 before Node 24.12, where the work here is simply spare).
 */
let _parser; // held, never read: V8 keeps a compiled module only while something refers to it
function precompileParser(dir, from, parser) {
  const file = join(dir, 'chunks', process.env.UNDICI_NO_WASM_SIMD === '1' ? parser.plain : parser.simd);
  let bytes;
  try {
    bytes = from.bytes(file);
  } catch {
    return false; // undici reads the file itself, and says what is wrong with it
  }
  _parser = WebAssembly.compile(bytes).catch(() => undefined);
  return true;
}

/**
 * dist/hostctl.cjs: the program. A command that sends requests (not `local`) starts
 * compiling undici's parser first (`parser`: its files, from dist/start.json), and its
 * main() waits one turn of the event loop before it runs: V8 starts a background compile
 * from a task of the main thread, and without that turn it would start only once the
 * first connection is made, too late to gain anything.
 */
function loadProgram(dir = DIST, options = {}) {
  const from = options.from ?? FILES;
  if (!options.local) for (const id of PROGRAM_BUILTINS) require(id);
  if (options.crypto) require('node:crypto');
  if (!options.train) enableChunkCache(dir, from);
  require('node:v8').setFlagsFromString(PROGRAM_FLAGS);
  const ahead = !options.local && !options.train && options.parser !== undefined && precompileParser(dir, from, options.parser);
  const { exports, saveCache } = loadBundle('hostctl.cjs', dir, options);
  const main = ahead ? (argv) => new Promise(setImmediate).then(() => exports.main(argv)) : exports.main;
  return { main, saveCache };
}

/** dist/complete.cjs: the completion engine, without the program's V8 flags (it runs no WebAssembly). */
function loadCompletion(dir = DIST, options = {}) {
  const { exports, saveCache } = loadBundle('complete.cjs', dir, options);
  return { completeMain: exports.completeMain, saveCache };
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
    if (completion) started = loadCompletion(dir, options).completeMain(argv.slice(1));
    else {
      const start = readStart(dir, options.from ?? FILES);
      started = loadProgram(dir, { ...options, local: isLocal(argv, start), crypto: usesCrypto(argv, process.env, start), parser: start.parser }).main(argv);
    }
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

module.exports = { WRAPPER, loadBundle, loadProgram, loadCompletion, run };

if (require.main === module) run(process.argv.slice(2));

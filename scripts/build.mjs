// Builds dist/ from src/ with esbuild. What it makes, and why (start-up time is a feature
// of a CLI that scripts call in loops; README "Performance" has the measurements):
//
//   dist/hostctl.cjs        the whole program in one CommonJS file. bin/hostctl.js compiles
//                           it with V8's code cache, which only works for scripts, not ES
//                           modules, in Node 20. Modules inside stay lazy: a command
//                           evaluates only what it imports.
//   dist/hostctl.cjs.cache  that code cache, made here by running the program once on a
//                           few commands against a loopback server (a cache made after
//                           running holds the functions compiled on the way, not just the
//                           top level).
//   dist/cli.js + chunks/   the ES module entry. `hostctl __complete` runs through it and
//                           loads only the completion chunk, whose command tree is baked
//                           in as data (read off the commander program here), so a Tab
//                           press loads neither commander nor the program. Every other
//                           command it hands to dist/hostctl.cjs.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { constants as http2Constants } from 'node:http2';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const root = new URL('..', import.meta.url).pathname;
// Build beside dist/ and swap it in, so a test that is running the CLI meanwhile never
// sees a half-written dist/.
const outdir = `${root}dist.build-${process.pid}`;
const undiciDir = join(root, 'node_modules', 'undici');

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  // Plain ASCII, so that the loader may read the file as latin1, the cheapest decoding.
  charset: 'ascii',
  logLevel: 'warning',
};

/**
 * undici as hostctl uses it: Agent, EnvHttpProxyAgent and request(), without fetch,
 * WebSocket, the cache, cookies and mocks, which its index loads eagerly (and with them
 * Node's own copy of undici, through globalThis.Headers). request() is undici's own
 * makeDispatcher(api.request), as in its index.js.
 */
const SLIM_UNDICI = `'use strict'
const Dispatcher = require('./lib/dispatcher/dispatcher')
const Agent = require('./lib/dispatcher/agent')
const EnvHttpProxyAgent = require('./lib/dispatcher/env-http-proxy-agent')
const util = require('./lib/core/util')
const { InvalidArgumentError } = require('./lib/core/errors')
const api = require('./lib/api')
const { getGlobalDispatcher } = require('./lib/global')

Object.assign(Dispatcher.prototype, api)

function makeDispatcher (fn) {
  return (url, opts, handler) => {
    if (typeof opts === 'function') {
      handler = opts
      opts = null
    }
    if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
      throw new InvalidArgumentError('invalid url')
    }
    if (opts != null && typeof opts !== 'object') {
      throw new InvalidArgumentError('invalid opts')
    }
    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') {
        throw new InvalidArgumentError('invalid opts.path')
      }
      let path = opts.path
      if (!opts.path.startsWith('/')) {
        path = '/' + path
      }
      url = new URL(util.parseOrigin(url).origin + path)
    } else {
      if (!opts) {
        opts = typeof url === 'object' ? url : {}
      }
      url = util.parseURL(url)
    }
    const { agent, dispatcher = getGlobalDispatcher() } = opts
    if (agent) {
      throw new InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?')
    }
    return fn.call(dispatcher, {
      ...opts,
      origin: url.origin,
      path: url.search ? url.pathname + url.search : url.pathname,
      method: opts.method || (opts.body ? 'PUT' : 'GET')
    }, handler)
  }
}

module.exports.Dispatcher = Dispatcher
module.exports.Agent = Agent
module.exports.EnvHttpProxyAgent = EnvHttpProxyAgent
module.exports.errors = require('./lib/core/errors')
module.exports.request = makeDispatcher(api.request)
`;

/**
 * Built-in modules that a bundled dependency requires when it loads but that hostctl's
 * commands seldom or never use: commander's child_process (executable subcommands),
 * undici's http2 (hostctl speaks HTTP/1.1) and assert (called only to check invariants).
 * Each costs milliseconds on every run. The stand-in loads the real module on first use;
 * `eager` holds what the dependency reads while loading.
 */
const LAZY_BUILTINS = {
  'node:child_process': { eager: {} },
  'node:http2': { eager: { constants: http2Constants } },
  // assert(value) with a truthy value returns undefined; anything else is the real assert's.
  'node:assert': { eager: {}, callable: 'args.length > 0 && args[0] ? undefined : Reflect.apply(load(), self, args)' },
};

function lazyBuiltin(name, { eager, callable }) {
  const target = callable ? 'function assert () {}' : '{}';
  return `'use strict'
let real
const load = () => (real ??= require(${JSON.stringify(name)}))
const eager = ${JSON.stringify(eager)}
module.exports = new Proxy(${target}, {
  get: (_t, key) => (Object.hasOwn(eager, key) ? eager[key] : Reflect.get(load(), key)),
  has: (_t, key) => Object.hasOwn(eager, key) || key in load(),
  ${callable ? `apply: (_t, self, args) => ${callable},` : ''}
})
`;
}

/**
 * undici's HTTP parser is WebAssembly, shipped as base64 in JavaScript (two builds, one
 * with SIMD): 145 KB of text that every command would read and V8 would keep in the code
 * cache. It goes to dist/chunks/ as binary, read when the first connection is made.
 */
function writeWasm(path) {
  const bytes = createRequire(import.meta.url)(path);
  const name = `${basename(path, '.js')}-${createHash('sha256').update(bytes).digest('hex').slice(0, 8)}.wasm`;
  mkdirSync(join(outdir, 'chunks'), { recursive: true });
  writeFileSync(join(outdir, 'chunks', name), bytes);
  return `module.exports = require('node:fs').readFileSync(__dirname + ${JSON.stringify(`/chunks/${name}`)})`;
}

/**
 * The program bundle's substitutions for dependencies (see SLIM_UNDICI, LAZY_BUILTINS and
 * writeWasm), and the keyring through require(): the loader runs the bundle as a script,
 * which has require() but no import() of its own.
 */
const trimDependencies = {
  name: 'trim-dependencies',
  setup(b) {
    b.onLoad({ filter: /[/\\]undici[/\\]lib[/\\]llhttp[/\\]llhttp(_simd)?-wasm\.js$/ }, (args) => ({ contents: writeWasm(args.path), loader: 'js' }));
    b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'hostctl-trimmed' }));
    b.onResolve({ filter: /^@napi-rs\/keyring$/ }, (args) =>
      args.namespace === 'hostctl-trimmed' ? { path: args.path, external: true } : { path: args.path, namespace: 'hostctl-trimmed' },
    );
    b.onResolve({ filter: /^node:(child_process|http2|assert)$/ }, (args) =>
      args.importer.includes('/node_modules/') ? { path: args.path, namespace: 'hostctl-trimmed' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'hostctl-trimmed' }, (args) => {
      if (args.path === 'undici') return { contents: SLIM_UNDICI, loader: 'js', resolveDir: undiciDir };
      if (args.path === '@napi-rs/keyring') return { contents: "module.exports = require('@napi-rs/keyring')", loader: 'js' };
      return { contents: lazyBuiltin(args.path, LAZY_BUILTINS[args.path]), loader: 'js' };
    });
  },
};

/** Runs a script with Node in a scratch directory and returns its stdout. */
function runNode(script, env = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'hostctl-build-'));
  try {
    const file = join(scratch, 'script.mjs');
    writeFileSync(file, script);
    return execFileSync(process.execPath, [file], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The command tree for completion, read off the same commander program that parses. */
async function completionSpec() {
  const out = await build({
    ...common,
    minify: false,
    format: 'esm',
    write: false,
    stdin: {
      contents: [
        "import { buildProgram } from './src/cli.ts';",
        "import { completionSpec } from './src/commands/complete.ts';",
        'process.stdout.write(JSON.stringify(completionSpec(buildProgram())));',
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    external: ['@napi-rs/keyring'],
    define: { __HOSTCTL_VERSION__: JSON.stringify(pkg.version) },
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  });
  return JSON.parse(runNode(out.outputFiles[0].text));
}

/** CommonJS has no import.meta; the bundles get the URL of their own file instead. */
const cjsImportMeta = {
  define: { 'import.meta.url': '__hostctl_module_url' },
  banner: { js: "var __hostctl_module_url=require('node:url').pathToFileURL(__filename).href;" },
};

/**
 * What only some commands use, each bundled into its own file in dist/chunks/ and required
 * from there when first imported: the spinner (ora, on a terminal), config writes (conf,
 * with ajv), tables (cli-table3, chalk, string-width), and the sandbox, which shares
 * nothing with the client but the resource table. The program file, which every command
 * reads and V8 deserialises, stays smaller. The import path → [file name, entry point].
 */
const SEPARATE = {
  ora: ['ora', 'ora'],
  conf: ['conf', 'conf'],
  'cli-table3': ['cli-table3', 'cli-table3'],
  chalk: ['chalk', 'chalk'],
  'string-width': ['string-width', 'string-width'],
  './sandbox/main.js': ['sandbox', './src/sandbox/main.ts'],
};

async function buildSeparate() {
  const files = {};
  for (const [path, [name, entry]] of Object.entries(SEPARATE)) {
    const out = await build({
      ...common,
      ...cjsImportMeta,
      entryPoints: { [name]: entry },
      outdir: join(outdir, 'chunks'),
      entryNames: '[name]-[hash]',
      outExtension: { '.js': '.cjs' },
      format: 'cjs',
      metafile: true,
    });
    const [file] = Object.keys(out.metafile.outputs);
    if (!file) throw new Error(`esbuild wrote no file for ${name}.`);
    // What the package exports, read off the bundle itself; esbuild marks one that was an
    // ES module with __esModule.
    const m = createRequire(import.meta.url)(join(root, file));
    files[path] = { file: file.split('/').pop(), exports: m.__esModule ? Object.keys(m) : undefined };
  }
  return files;
}

/**
 * The program's stand-in for a SEPARATE module. It re-exports what the package exports as
 * an ES module (as the import of the package itself did), or, for a CommonJS package,
 * module.exports as the default export.
 */
function separateStub({ file, exports }) {
  const lines = [`const m = require(__dirname + ${JSON.stringify(`/chunks/${file}`)});`];
  if (!exports) lines.push('export default m;');
  for (const name of exports ?? []) lines.push(name === 'default' ? 'export default m.default;' : `export const ${name} = m.${name};`);
  return lines.join('\n');
}

/** Points the program's imports of SEPARATE modules at their files in dist/chunks/. */
function separate(files) {
  return {
    name: 'separate',
    setup(b) {
      const escape = (text) => text.replace(/[.*+?^$(){}|[\]\\/]/g, '\\$&');
      const paths = new RegExp(`^(${Object.keys(SEPARATE).map(escape).join('|')})$`);
      b.onResolve({ filter: paths }, (args) => (args.importer.includes('/node_modules/') ? undefined : { path: args.path, namespace: 'hostctl-separate' }));
      // __dirname is the program's directory, also when bin/hostctl.js loads it.
      b.onLoad({ filter: /.*/, namespace: 'hostctl-separate' }, (args) => ({ contents: separateStub(files[args.path]), loader: 'js' }));
    },
  };
}

/** dist/hostctl.cjs: the program (see SLIM_UNDICI, LAZY_BUILTINS, trimDependencies, SEPARATE). */
async function buildProgram(define) {
  const outfile = join(outdir, 'hostctl.cjs');
  const files = await buildSeparate();
  await build({
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile,
    format: 'cjs',
    plugins: [trimDependencies, separate(files)],
    define: { ...define, ...cjsImportMeta.define },
    banner: cjsImportMeta.banner,
  });
  const text = readFileSync(outfile, 'latin1');
  if (/[^\x00-\x7f]/.test(text)) throw new Error('dist/hostctl.cjs is not plain ASCII; bin/hostctl.js reads it as latin1.');
  if (/\bimport\(/.test(text)) throw new Error('dist/hostctl.cjs contains import(); bin/hostctl.js runs it as a script, which has no import().');
}

/**
 * An ES module import of a built-in makes Node build an ES module facade of it, which
 * reads every export, lazy ones included: importing node:fs alone loads fs streams.
 * process.getBuiltinModule (Node 20.16) hands over the module as it is. Its exports are
 * the module's plain (non-getter) properties, each read by a pure call, so that esbuild
 * drops the ones nothing imports.
 */
const plainBuiltins = {
  name: 'plain-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(fs|path|os|process|url)$/ }, (args) => ({ path: args.path.replace(/^(node:)?/, 'node:'), namespace: 'builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const mod = createRequire(import.meta.url)(args.path);
      const names = Object.keys(mod).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default' && 'value' in (Object.getOwnPropertyDescriptor(mod, k) ?? {}));
      const lines = [`const m = process.getBuiltinModule(${JSON.stringify(args.path)});`, 'const get = (key) => m[key];', 'export default m;'];
      for (const name of names) lines.push(`export const ${name} = /* @__PURE__ */ get(${JSON.stringify(name)});`);
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

/**
 * dist/cli.js and dist/chunks/complete-*.js: two files, so that a Tab press costs Node's
 * ES module loader two modules. (Code splitting would add a chunk of esbuild's helpers.)
 */
async function buildCompletionEntry(define) {
  const complete = await build({
    ...common,
    entryPoints: { complete: 'src/commands/complete.ts' },
    outdir: join(outdir, 'chunks'),
    entryNames: '[name]-[hash]',
    format: 'esm',
    define,
    plugins: [plainBuiltins],
    metafile: true,
  });
  const [chunk] = Object.keys(complete.metafile.outputs);
  if (!chunk) throw new Error('esbuild wrote no completion chunk.');
  const chunkName = chunk.split('/').pop();
  writeFileSync(
    join(outdir, 'cli.js'),
    `// The ES module entry: completion, and the program for those who import it.
export async function main(argv) {
  if (argv[0] === '__complete') {
    const { completeMain } = await import('./chunks/${chunkName}');
    return completeMain(argv.slice(1));
  }
  const { createRequire } = await import('node:module');
  return createRequire(import.meta.url)('./hostctl.cjs').main(argv);
}
`,
  );
}

/**
 * dist/hostctl.cjs.cache: the program, loaded by bin/hostctl.js as at run time, runs a few
 * commands against a loopback server that answers like the platform; then V8 saves what
 * it compiled on the way. Without it hostctl works, only slower to start, and its first
 * run saves a cache of its own where dist/ is writable: a warning, not a failed build.
 */
function trainCodeCache() {
  const config = mkdtempSync(join(tmpdir(), 'hostctl-build-config-'));
  try {
    runNode(
      `
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { loadProgram } = require(${JSON.stringify(join(root, 'bin', 'hostctl.js'))});
const apps = [1, 2, 3].map((n) => ({ publicId: 'ap-train' + n, name: 'app-' + n, status: 'running', createdAt: '2024-01-0' + n + 'T00:00:00Z' }));
const server = createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-ratelimit-limit', '1000');
  res.setHeader('x-ratelimit-remaining', '999');
  res.setHeader('x-ratelimit-reset', '60');
  res.end(JSON.stringify(apps));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
process.env.HOSTCTL_BASE_URL = 'http://127.0.0.1:' + server.address().port + '/v1';
const { main, saveCache } = loadProgram(${JSON.stringify(outdir)}, { train: true, as: ${JSON.stringify(join(root, 'dist'))} });
for (const argv of [['apps', 'list', '--json'], ['apps', 'list'], ['apps', 'get', 'ap-train1', 'ap-train2', '--json']]) {
  const code = await main(argv);
  if (code !== 0) throw new Error('training run "' + argv.join(' ') + '" exited with ' + code);
}
server.close();
saveCache();
`,
      { HOSTCTL_TOKEN: 'build-training-token', HOSTCTL_CONFIG_DIR: config, NODE_OPTIONS: '' },
    );
  } catch (err) {
    console.warn(`build: no code cache for dist/hostctl.cjs (${err instanceof Error ? err.message.split('\n')[0] : err}).`);
  } finally {
    rmSync(config, { recursive: true, force: true });
  }
}

try {
  const define = {
    __HOSTCTL_VERSION__: JSON.stringify(pkg.version),
    // As JSON text, so that the check for it folds to a constant and the fallback, which
    // reads the tree off commander at run time, drops out of the bundle.
    __HOSTCTL_COMPLETION_SPEC__: JSON.stringify(JSON.stringify(await completionSpec())),
  };
  await buildProgram(define);
  await buildCompletionEntry(define);
  trainCodeCache();
} catch (err) {
  rmSync(outdir, { recursive: true, force: true });
  throw err;
}

const old = `${root}dist.old-${process.pid}`;
try {
  renameSync(`${root}dist`, old);
} catch {
  // no previous build
}
renameSync(outdir, `${root}dist`);
rmSync(old, { recursive: true, force: true });

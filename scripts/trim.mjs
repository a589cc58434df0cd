// The esbuild plugins that trim what hostctl's bundles load on every run
// (docs/performance.md): a slim undici without the parts hostctl never reaches, built-ins
// loaded on first use, undici's WebAssembly as a binary file, and built-ins handed to ES
// module dependencies without a copy. Used by scripts/build.mjs, and by scripts/bench.mjs
// for the undici floor, which must load undici exactly as hostctl does.
import { constants as http2Constants } from 'node:http2';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const undiciDir = fileURLToPath(new URL('../node_modules/undici', import.meta.url));

/**
 * undici as hostctl uses it: Agent, ProxyAgent and Pool, with the dispatcher methods
 * (src/http/wire.ts calls the dispatcher's own request()), without fetch, WebSocket, the
 * cache, cookies and mocks, which its index loads eagerly (and with them Node's own copy
 * of undici, through globalThis.Headers). What only a proxy uses (ProxyAgent, with SOCKS,
 * and the pool to the proxy; the dispatchers' connect(), which opens the tunnel) and the
 * dispatcher methods hostctl never calls (stream, pipeline, upgrade) load when first
 * read, not on every run. Nothing of undici's code is copied: the slim index only
 * requires undici's own modules, and checkSlimIndex holds each line of it against
 * undici's index.js and lib/api/index.js, so that an undici that moved or renamed one
 * fails the build.
 */
const SLIM_EXPORTS = {
  // name: [the module that undici's index.js requires for it, whether it loads when first read]
  Dispatcher: ['./lib/dispatcher/dispatcher', false],
  Agent: ['./lib/dispatcher/agent', false],
  ProxyAgent: ['./lib/dispatcher/proxy-agent', true],
  Pool: ['./lib/dispatcher/pool', true],
  errors: ['./lib/core/errors', false],
};
/** lib/api/index.js's methods, which undici's index assigns to Dispatcher.prototype. */
const SLIM_API = ['request', 'stream', 'pipeline', 'upgrade', 'connect'];

const SLIM_UNDICI = `'use strict'
const Dispatcher = require('./lib/dispatcher/dispatcher')
// Each method required when first read; after that a plain property, as undici's
// Object.assign(Dispatcher.prototype, api) would have made it.
const API = {
${SLIM_API.map((name) => `  ${name}: () => require('./lib/api/api-${name}')`).join(',\n')}
}
for (const [name, load] of Object.entries(API)) {
  const define = (target, value) => Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true })
  Object.defineProperty(Dispatcher.prototype, name, {
    enumerable: true,
    configurable: true,
    get () { return define(Dispatcher.prototype, load())[name] },
    set (value) { define(this, value) }
  })
}
${Object.entries(SLIM_EXPORTS)
  .map(([name, [path, lazy]]) =>
    lazy
      ? `Object.defineProperty(module.exports, '${name}', { enumerable: true, get: () => require('${path}') })`
      : `module.exports.${name} = require('${path}')`,
  )
  .join('\n')}
`;

/** What is wrong with SLIM_UNDICI against the undici in node_modules, as sentences (none: it holds). */
export function checkSlimIndex(dir = undiciDir) {
  const read = (file) => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  const index = read('index.js');
  const api = read('lib/api/index.js');
  if (index === undefined || api === undefined) return [`${dir} has no index.js or lib/api/index.js.`];
  const quoted = (path) => `['"]${path.replace(/[.*+?^$(){}|[\]\\/]/g, '\\$&')}(\\.js)?['"]`;
  const problems = [];
  for (const [name, [path]] of Object.entries(SLIM_EXPORTS)) {
    const binding = new RegExp(`\\bconst ${name} = require\\(${quoted(path)}\\)`);
    if (!binding.test(index) || !index.includes(`module.exports.${name} = ${name}`)) problems.push(`its index.js no longer exports ${name} from ${path}`);
  }
  if (!/\bconst api = require\(['"]\.\/lib\/api(\/index)?(\.js)?['"]\)/.test(index) || !index.includes('Object.assign(Dispatcher.prototype, api)')) {
    problems.push('its index.js no longer assigns lib/api to Dispatcher.prototype');
  }
  const methods = [...api.matchAll(/module\.exports\.(\w+) = require\(['"]\.\/api-(\w+)(\.js)?['"]\)/g)];
  const found = methods.map((m) => m[1]);
  for (const m of methods) if (m[1] !== m[2]) problems.push(`lib/api/index.js's ${m[1]} is api-${m[2]}`);
  const missing = SLIM_API.filter((name) => !found.includes(name));
  const extra = found.filter((name) => !SLIM_API.includes(name));
  if (missing.length > 0) problems.push(`lib/api/index.js no longer has ${missing.join(', ')}`);
  if (extra.length > 0) problems.push(`lib/api/index.js has methods the slim index lacks: ${extra.join(', ')}`);
  return problems;
}

/**
 * Built-in modules that a module requires when it loads but that hostctl's commands
 * seldom or never use: commander's child_process (executable subcommands), undici's http2
 * (hostctl speaks HTTP/1.1) and assert (called only to check invariants), and node:crypto,
 * which only walks over pages, the response cache and `docs` hash with (the token's
 * fingerprint is @noble/hashes). Each costs
 * milliseconds on every run. The stand-in loads the real module on first use; `eager`
 * holds what a dependency reads while loading. `own` lists the functions hostctl's own
 * modules import from it, for their stand-in (an ES module: esbuild's interop would copy
 * the properties of a CommonJS one at once); importing anything else fails the build.
 */
const LAZY_BUILTINS = {
  'node:child_process': { eager: {} },
  'node:http2': { eager: { constants: http2Constants } },
  // assert(value) with a truthy value returns undefined; anything else is the real assert's.
  'node:assert': { eager: {}, callable: 'args.length > 0 && args[0] ? undefined : Reflect.apply(load(), self, args)' },
  'node:crypto': { eager: {}, own: ['createHash'] },
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

function lazyOwnBuiltin(name, functions) {
  const lines = ['let real;', `const load = () => (real ??= require(${JSON.stringify(name)}));`];
  for (const fn of functions) lines.push(`export function ${fn}(...args) { return load().${fn}(...args); }`);
  return lines.join('\n');
}

/**
 * undici's HTTP parser is WebAssembly, shipped as base64 in JavaScript (two builds, one
 * with SIMD): 145 KB of text that every command would read and V8 would keep in the code
 * cache. It goes to chunks/ beside the bundle (dist/chunks/llhttp_simd-wasm.wasm and
 * llhttp-wasm.wasm) as binary, read when the first connection is made.
 */
function writeWasm(path, name, outdir) {
  const bytes = createRequire(import.meta.url)(path);
  mkdirSync(join(outdir, 'chunks'), { recursive: true });
  writeFileSync(join(outdir, 'chunks', name), bytes);
  return `module.exports = require('node:fs').readFileSync(__dirname + ${JSON.stringify(`/chunks/${name}`)})`;
}

/**
 * Parts of undici that hostctl never reaches, cut from the program (about 60 KB of the
 * text every run reads): the HTTP/2 client (client-h2.js, and with it node:http2's
 * constants), used only when a connection negotiates HTTP/2, which undici offers only with
 * `allowH2`, which hostctl never sets; and the fetch body machinery (web/fetch/body.js:
 * WebIDL, FormData and its parser, data: URLs), used only to send a FormData body, where
 * hostctl sends text or bytes. Each stand-in fails loudly if it is ever reached. Each
 * change must find its text, or the build fails: a new undici is looked at, not silently
 * left whole.
 */
const UNDICI_PATCHES = [
  {
    file: /[/\\]undici[/\\]lib[/\\]dispatcher[/\\]client\.js$/,
    from: "const connectH2 = require('./client-h2.js')",
    to: "const connectH2 = () => { throw new Error('hostctl is built without HTTP/2 (scripts/trim.mjs)') }",
  },
  {
    file: /[/\\]undici[/\\]lib[/\\]dispatcher[/\\]client-h1\.js$/,
    from: "extractBody = require('../web/fetch/body.js').extractBody",
    to: "extractBody = () => { throw new Error('hostctl is built without FormData bodies (scripts/trim.mjs)') }",
  },
];

/**
 * The program bundle's substitutions for dependencies (see SLIM_UNDICI, UNDICI_PATCHES,
 * LAZY_BUILTINS and writeWasm, which writes into `outdir`), and the keyring through
 * require(): the loader runs the bundle as a script, which has require() but no import()
 * of its own. Each is checked against the undici being bundled (checkSlimIndex, and at the
 * end every patch applied and the parser written): a mismatch fails the build, saying
 * what to look at. `found.stale` gets what the end of the build found stale, which esbuild
 * does not print.
 */
export function trimDependencies(outdir, found = {}) {
  // The parser's files that writeWasm wrote into chunks/, checked at the end of the build.
  const parser = {};
  return {
    name: 'trim-dependencies',
    setup(b) {
      const applied = new Set();
      let bundlesUndici = false;
      b.onStart(() => {
        applied.clear();
        bundlesUndici = false;
        const problems = checkSlimIndex();
        if (problems.length === 0) return undefined;
        return { errors: [{ text: `scripts/trim.mjs's slim undici does not fit the undici in ${undiciDir}: ${problems.join('; ')}.` }] };
      });
      b.onLoad({ filter: /[/\\]undici[/\\]lib[/\\]llhttp[/\\]llhttp(_simd)?-wasm\.js$/ }, (args) => {
        const name = `${basename(args.path, '.js')}.wasm`;
        parser[name.includes('_simd') ? 'simd' : 'plain'] = name;
        return { contents: writeWasm(args.path, name, outdir), loader: 'js' };
      });
      for (const { file, from, to } of UNDICI_PATCHES) {
        b.onLoad({ filter: file }, (args) => {
          const text = readFileSync(args.path, 'utf8');
          if (!text.includes(from)) return { errors: [{ text: `${args.path} no longer contains "${from}": check scripts/trim.mjs against this undici.` }] };
          applied.add(from);
          return { contents: text.replace(from, to), loader: 'js' };
        });
      }
      // A patch whose file was never loaded (undici moved or renamed it) is as stale as one
      // whose text is missing; so is a parser that was not written out. Only for a build
      // that bundles undici.
      b.onEnd((result) => {
        if (result.errors.length > 0 || !bundlesUndici) return undefined;
        const errors = UNDICI_PATCHES.filter((p) => !applied.has(p.from)).map((p) => ({
          text: `scripts/trim.mjs's patch "${p.from}" found no file matching ${p.file} in the undici it bundled: check scripts/trim.mjs against this undici.`,
        }));
        for (const kind of ['simd', 'plain']) {
          if (!parser[kind]) errors.push({ text: `undici's WebAssembly parser (${kind === 'simd' ? 'lib/llhttp/llhttp_simd-wasm.js' : 'lib/llhttp/llhttp-wasm.js'}) was not in the bundle: check scripts/trim.mjs against this undici.` });
        }
        // esbuild does not print what onEnd reports; the caller says it (found.stale).
        found.stale = errors.map((e) => e.text);
        return { errors };
      });
      b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'hostctl-trimmed' }));
      b.onResolve({ filter: /^@napi-rs\/keyring$/ }, (args) =>
        args.namespace === 'hostctl-trimmed' ? { path: args.path, external: true } : { path: args.path, namespace: 'hostctl-trimmed' },
      );
      b.onResolve({ filter: /^node:(child_process|http2|assert|crypto)$/ }, (args) => {
        if (args.namespace === 'hostctl-trimmed' || args.namespace === 'hostctl-lazy-own') return undefined;
        if (args.importer.includes('/node_modules/')) return { path: args.path, namespace: 'hostctl-trimmed' };
        return LAZY_BUILTINS[args.path].own ? { path: args.path, namespace: 'hostctl-lazy-own' } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'hostctl-lazy-own' }, (args) => ({ contents: lazyOwnBuiltin(args.path, LAZY_BUILTINS[args.path].own), loader: 'js' }));
      b.onLoad({ filter: /.*/, namespace: 'hostctl-trimmed' }, (args) => {
        if (args.path === 'undici') {
          bundlesUndici = true;
          return { contents: SLIM_UNDICI, loader: 'js', resolveDir: undiciDir };
        }
        if (args.path === '@napi-rs/keyring') return { contents: "module.exports = require('@napi-rs/keyring')", loader: 'js' };
        return { contents: lazyBuiltin(args.path, LAZY_BUILTINS[args.path]), loader: 'js' };
      });
    },
  };
}

/**
 * A dependency written as an ES module that imports a built-in's default export
 * (env-paths: `import os from 'node:os'`, and node:path and node:process alike) gets
 * esbuild's __toESM, which copies every property of the module onto a fresh object on
 * each run: most of a millisecond for node:process. This stand-in hands over the module
 * itself, and its plain (non-getter) properties as named exports, each read by a pure
 * call so that esbuild drops the ones nothing imports; a named import of anything else
 * fails the build.
 */
export const builtinDefaults = {
  name: 'builtin-defaults',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(os|path|process)$/ }, (args) =>
      args.kind === 'import-statement' && args.importer.includes('/node_modules/')
        ? { path: args.path.replace(/^(node:)?/, 'node:'), namespace: 'builtin-default' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin-default' }, (args) => {
      const mod = createRequire(import.meta.url)(args.path);
      const names = Object.keys(mod).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default' && 'value' in (Object.getOwnPropertyDescriptor(mod, k) ?? {}));
      const lines = [`const m = require(${JSON.stringify(args.path)});`, 'const get = (key) => m[key];', 'export default m;'];
      for (const name of names) lines.push(`export const ${name} = /* @__PURE__ */ get(${JSON.stringify(name)});`);
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

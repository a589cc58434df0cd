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
 * undici as hostctl uses it: Agent, ProxyAgent, Pool and request(), without fetch,
 * WebSocket, the cache, cookies and mocks, which its index loads eagerly (and with them
 * Node's own copy of undici, through globalThis.Headers). request() is undici's own
 * makeDispatcher(api.request), as in its index.js. What only a proxy uses
 * (ProxyAgent, with SOCKS, and the pool to the proxy; the dispatchers' connect(), which
 * opens the tunnel) and the dispatcher methods hostctl never calls (stream, pipeline,
 * upgrade) load when first read, not on every run.
 */
const SLIM_UNDICI = `'use strict'
const Dispatcher = require('./lib/dispatcher/dispatcher')
const Agent = require('./lib/dispatcher/agent')
const util = require('./lib/core/util')
const { InvalidArgumentError } = require('./lib/core/errors')
const { getGlobalDispatcher } = require('./lib/global')

// lib/api/index.js's methods, as its index assigns them to every dispatcher, each required
// when first read; after that a plain property, as Object.assign would have made it.
const API = {
  request: () => require('./lib/api/api-request'),
  stream: () => require('./lib/api/api-stream'),
  pipeline: () => require('./lib/api/api-pipeline'),
  upgrade: () => require('./lib/api/api-upgrade'),
  connect: () => require('./lib/api/api-connect')
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
Object.defineProperty(module.exports, 'ProxyAgent', { enumerable: true, get: () => require('./lib/dispatcher/proxy-agent') })
Object.defineProperty(module.exports, 'Pool', { enumerable: true, get: () => require('./lib/dispatcher/pool') })
module.exports.errors = require('./lib/core/errors')
module.exports.request = makeDispatcher(Dispatcher.prototype.request)
`;

/**
 * Built-in modules that a module requires when it loads but that hostctl's commands
 * seldom or never use: commander's child_process (executable subcommands), undici's http2
 * (hostctl speaks HTTP/1.1) and assert (called only to check invariants), and node:crypto,
 * which only walks over pages, the response cache and `docs` hash with (bin/hostctl.js
 * loads it before its V8 flag for those, which keeps Node's own code cache for it usable;
 * the token's fingerprint is @noble/hashes). Each costs
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
 * llhttp-wasm.wasm) as binary, read when the first connection is made. bin/hostctl.js
 * compiles the same file ahead, by that name (precompileParser).
 */
function writeWasm(path, outdir) {
  const bytes = createRequire(import.meta.url)(path);
  const name = `${basename(path, '.js')}.wasm`;
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
 * Modules of undici that build something on every run which hostctl's one or two requests
 * do not need, replaced by a stand-in that answers their one user the same way:
 * - llhttp's constants: the client reads two tables (ERROR, TYPE); the module builds the
 *   tables llhttp's parser was generated from too (methods, statuses, character
 *   classes): about a millisecond and 100 KB of new heap. The stand-in holds the two
 *   tables, copied from the module at build time.
 * - the header-name tree: a search tree of about a hundred well-known header names, built
 *   at load so that a server's many requests turn header names into shared lower-case
 *   strings; its lookup answers null for any other name, and the caller then lower-cases
 *   the name itself, which gives the same text. The stand-in answers null.
 * The build fails if another file requires one of them, or its user reads anything else
 * from it (`reads`: the properties used through `binding`).
 */
const UNDICI_STANDINS = [
  {
    module: 'llhttp/constants.js',
    user: 'dispatcher/client-h1.js',
    binding: 'constants',
    reads: ['ERROR', 'TYPE'],
    contents: (real) => `module.exports = ${JSON.stringify({ ERROR: real.ERROR, TYPE: real.TYPE })}`,
  },
  {
    module: 'core/tree.js',
    user: 'core/util.js',
    binding: 'tree',
    reads: ['lookup'],
    contents: () => 'module.exports = { tree: { lookup: () => null } }',
  },
];

function standIn({ module, user, binding, reads, contents }, real) {
  // Without its string literals: require('../llhttp/constants.js') is not a read.
  const text = readFileSync(join(undiciDir, 'lib', user), 'utf8').replace(/'[^'\n]*'/g, "''");
  const used = new Set([...text.matchAll(new RegExp(`\\b${binding}\\.([A-Za-z_$][\\w$]*)`, 'g'))].map((m) => m[1]));
  const other = [...used].filter((name) => !reads.includes(name));
  if (other.length > 0) throw new Error(`undici's ${user} reads ${other.join(', ')} from ${module}: check scripts/trim.mjs against this undici.`);
  return `'use strict'\n${contents(real)}\n`;
}

/**
 * The program bundle's substitutions for dependencies (see SLIM_UNDICI, UNDICI_PATCHES,
 * UNDICI_STANDINS, LAZY_BUILTINS and writeWasm, which writes into `outdir`), and the keyring through
 * require(): the loader runs the bundle as a script, which has require() but no import()
 * of its own.
 */
export function trimDependencies(outdir) {
  return {
    name: 'trim-dependencies',
    setup(b) {
      b.onLoad({ filter: /[/\\]undici[/\\]lib[/\\]llhttp[/\\]llhttp(_simd)?-wasm\.js$/ }, (args) => ({ contents: writeWasm(args.path, outdir), loader: 'js' }));
      for (const x of UNDICI_STANDINS) {
        const path = join(undiciDir, 'lib', x.module);
        const name = basename(x.module, '.js');
        b.onResolve({ filter: new RegExp(`[/\\\\]${name}(\\.js)?$`) }, (args) => {
          const target = join(args.resolveDir, args.path);
          if (target !== path && `${target}.js` !== path) return undefined;
          if (args.importer !== join(undiciDir, 'lib', x.user)) throw new Error(`${args.importer} requires undici's ${x.module}, which scripts/trim.mjs replaces for ${x.user} alone.`);
          return undefined;
        });
        b.onLoad({ filter: new RegExp(`[/\\\\]undici[/\\\\]lib[/\\\\]${x.module.replace(/[/.]/g, (c) => (c === '/' ? '[/\\\\]' : '\\.'))}$`) }, (args) => ({
          contents: standIn(x, createRequire(import.meta.url)(args.path)),
          loader: 'js',
        }));
      }
      for (const { file, from, to } of UNDICI_PATCHES) {
        b.onLoad({ filter: file }, (args) => {
          const text = readFileSync(args.path, 'utf8');
          if (!text.includes(from)) throw new Error(`${args.path} no longer contains "${from}": check scripts/trim.mjs against this undici.`);
          return { contents: text.replace(from, to), loader: 'js' };
        });
      }
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
        if (args.path === 'undici') return { contents: SLIM_UNDICI, loader: 'js', resolveDir: undiciDir };
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

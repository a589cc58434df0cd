// Builds dist/ from src/ with esbuild. What it makes, and why (start-up time is a feature
// of a CLI that scripts call in loops; docs/performance.md has the measurements):
//
//   dist/hostctl.cjs        the whole program in one CommonJS file. bin/hostctl.js compiles
//                           it with V8's code cache, which only works for scripts, not ES
//                           modules, in Node 20. Modules inside stay lazy: a command
//                           evaluates only what it imports.
//   dist/hostctl.cjs.cache  that code cache, made here by running the program once on a
//                           few commands against a loopback server (a cache made after
//                           running holds the functions compiled on the way, not just the
//                           top level). That run is the build's smoke test: its output is
//                           checked, and a failure fails the build. The package ships the
//                           cache; the installed command only reads it.
//   dist/complete.cjs       `hostctl __complete`, on its own: the command tree baked in as
//   dist/complete.cjs.cache data (read off the commander program here), so a Tab press
//                           loads neither commander nor the program; and its code cache,
//                           made by running it on a few completions.
//   dist/chunks/            what only some commands use (see SEPARATE), undici's
//                           WebAssembly HTTP parser, and jq's engine (JQ_ENGINE).
//   dist/lib/               the library (`import { createClient } from 'hostctl'`,
//                           src/lib/index.ts): an ES module of its own, with its chunks
//                           and its type declarations, beside the CLI's files and
//                           sharing none of them, so that the CLI's start-up is untouched.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { builtinDefaults, trimDependencies } from './trim.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const root = fileURLToPath(new URL('..', import.meta.url));
// --out: where to build instead of dist/ (scripts/build-sea.mjs, with the Node it embeds).
const target = parseArgs({ options: { out: { type: 'string' } } }).values.out ?? `${root}dist`;
// Build beside the target and swap it in, so a test that is running the CLI meanwhile
// never sees a half-written dist/.
const outdir = `${target}.build-${process.pid}`;

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  // No library logger writes around hostctl's sink (scripts/inert-debug.cjs says why).
  alias: { debug: './scripts/inert-debug.cjs' },
};

/**
 * Runs a script with Node in a scratch directory and returns its stdout. Its stderr is
 * kept too, not shown: a training run is hostctl at work (spinners, notes), which has no
 * place among npm install's output. A failure carries it (err.stderr).
 */
function runNode(script, env = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'hostctl-build-'));
  try {
    const file = join(scratch, 'script.mjs');
    writeFileSync(file, script);
    return execFileSync(process.execPath, [file], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The command tree for completion, read off the same commander program that parses. */
async function completionTree() {
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

/**
 * CommonJS has no import.meta; the bundles get the URL of their own file instead, made
 * when first read (only `hostctl completion` reads it: making it costs about 0.5 ms).
 */
const cjsImportMeta = {
  define: { 'import.meta.url': '__hostctl_import_meta.url' },
  banner: { js: "var __hostctl_import_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};" },
};

/**
 * What only some commands use, each bundled into its own file in dist/chunks/ and required
 * from there when first imported: the spinner (ora, on a terminal), tables (chalk, string-width), Redis (ioredis), the sandbox,
 * which shares nothing with the client but the resource table, and the help topics. The
 * program file, which every command reads and V8 deserialises, stays smaller. The import path → [file name, entry point].
 */
const SEPARATE = {
  ora: ['ora', 'ora'],
  chalk: ['chalk', 'chalk'],
  'string-width': ['string-width', 'string-width'],
  './sandbox/main.js': ['sandbox', './src/sandbox/main.ts'],
  // `hostctl help <topic>`: the topics' texts, which no other command reads.
  '../help/run.js': ['help', './src/help/run.ts'],
  // A fleet's shared budget (ioredis), only when a Redis URL is set.
  './redis.js': ['redis', './src/http/redis.ts'],
  // `hostctl mcp`: the MCP SDK, which no other command loads.
  './stdio-server.js': ['mcp', './src/mcp/stdio-server.ts'],
  // `hostctl mcp --http`: the SDK's HTTP transport (and its copy of the server) on top.
  './http-server.js': ['mcphttp', './src/mcp/http-server.ts'],
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

/**
 * --jq's engine, jq-wasm's emscripten module (1.3 MB, the WebAssembly inside), copied as it
 * is: src/output/jq.ts runs its text in a worker thread, which is given the text rather than
 * a path (the single-file executable's worker could not read its assets). Its name in
 * dist/chunks/, with a digest so that an upgrade never meets an old copy.
 */
function copyJqEngine() {
  const source = createRequire(import.meta.url).resolve('jq-wasm/dist/build/jq.js');
  const text = readFileSync(source);
  const name = `jq-engine-${createHash('sha256').update(text).digest('hex').slice(0, 8)}.cjs`;
  mkdirSync(join(outdir, 'chunks'), { recursive: true });
  copyFileSync(source, join(outdir, 'chunks', name));
  return name;
}

/** dist/hostctl.cjs: the program (see trim.mjs and SEPARATE). */
async function buildProgram(define) {
  const outfile = join(outdir, 'hostctl.cjs');
  const files = await buildSeparate();
  define = { ...define, __HOSTCTL_JQ_ENGINE__: JSON.stringify(copyJqEngine()) };
  const found = {};
  try {
    await build({
      ...common,
      entryPoints: ['src/cli.ts'],
      outfile,
      format: 'cjs',
      plugins: [builtinDefaults, trimDependencies(outdir, found), separate(files)],
      ...cjsImportMeta,
      define: { ...define, ...cjsImportMeta.define },
    });
  } catch (err) {
    if (found.stale?.length > 0) throw new BuildError(found.stale.join('\n'));
    throw err;
  }
  if (/\bimport\(/.test(readFileSync(outfile, 'utf8'))) throw new Error('dist/hostctl.cjs contains import(); bin/hostctl.js runs it as a script, which has no import().');
}

/**
 * dist/complete.cjs: `hostctl __complete`. One small CommonJS file with a code cache of its
 * own, so that a Tab press pays neither Node's ES module loader nor the program's 440 KB
 * cache, and loads neither commander nor the program: the command tree is baked in as
 * data (completionSpec).
 */
async function buildCompletion(define) {
  const out = await build({
    ...common,
    entryPoints: ['src/commands/complete.ts'],
    outfile: join(outdir, 'complete.cjs'),
    format: 'cjs',
    define,
    plugins: [builtinDefaults],
    metafile: true,
  });
  const program = Object.keys(out.metafile.inputs).filter((f) => f === 'src/cli.ts' || f.includes('node_modules/commander/'));
  if (program.length > 0) throw new Error(`dist/complete.cjs bundles ${program.join(', ')}: the command tree was not baked in.`);
  if (/\bimport\(/.test(readFileSync(join(outdir, 'complete.cjs'), 'utf8'))) {
    throw new Error('dist/complete.cjs contains import(); bin/hostctl.js runs it as a script, which has no import().');
  }
}

/**
 * What the library must not load when it is imported: the command line's machinery
 * (commander, the spinner, colours, the printers). Checked on the bundle's own import
 * graph: the entry and every chunk it imports statically (a chunk import()ed later loads
 * only when a call needs it).
 */
const NOT_ON_IMPORT = /(node_modules\/(commander|@commander-js|chalk|ora|string-width)\/|^src\/(cli|global-options)\.ts$|^src\/commands\/|^src\/output\/(format|printer|table|jq)\.ts$)/;

/** The public modules of the library whose declarations are the package's types (src/lib). */
const LIB_TYPES = ['index', 'client', 'errors', 'types'];

/**
 * dist/lib/index.js, its chunks and its declarations (index.d.ts and the modules it
 * names). The declarations are emitted from src/lib itself, one file at a time
 * (isolated declarations), so they never drift from the code; they name no module
 * outside that list, which the consumer test proves by type-checking against them.
 */
async function buildLibrary(define) {
  const libdir = join(outdir, 'lib');
  const out = await build({
    ...common,
    entryPoints: { index: 'src/lib/index.ts' },
    outdir: libdir,
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    external: ['@napi-rs/keyring'],
    define,
    plugins: [builtinDefaults],
    // CommonJS dependencies (undici, ioredis) require() Node's built-ins.
    banner: { js: "import{createRequire as __hostctl_cr}from'node:module';const require=__hostctl_cr(import.meta.url);" },
    metafile: true,
  });
  const outputs = out.metafile.outputs;
  const entry = Object.keys(outputs).find((f) => outputs[f].entryPoint === 'src/lib/index.ts');
  const loaded = new Set();
  const visit = (file) => {
    if (loaded.has(file) || !outputs[file]) return;
    loaded.add(file);
    for (const i of outputs[file].imports) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(entry);
  const inputs = [...loaded].flatMap((f) => Object.keys(outputs[f].inputs));
  const forbidden = inputs.filter((f) => NOT_ON_IMPORT.test(f));
  if (forbidden.length > 0) throw new BuildError(`importing dist/lib/index.js would load the command line's machinery: ${forbidden.join(', ')}.`);
  // For the tests (test/e2e/library.test.ts): what an import loads. Not in the package.
  writeFileSync(join(outdir, 'lib-import-graph.json'), `${JSON.stringify(inputs.sort(), null, 1)}\n`);
  for (const name of LIB_TYPES) {
    const file = join(root, 'src', 'lib', `${name}.ts`);
    const emitted = ts.transpileDeclaration(readFileSync(file, 'utf8'), {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, isolatedDeclarations: true },
    });
    if (emitted.diagnostics?.length) {
      throw new BuildError(`the declarations of src/lib/${name}.ts cannot be emitted on their own:`, emitted.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'));
    }
    const names = [...emitted.outputText.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    const outside = names.filter((n) => !LIB_TYPES.some((t) => n === `./${t}.js`));
    if (outside.length > 0) throw new BuildError(`the declarations of src/lib/${name}.ts name modules the package does not ship: ${outside.join(', ')}.`);
    writeFileSync(join(libdir, `${name}.d.ts`), emitted.outputText);
  }
}

/**
 * The smoke test of the bundles, which also makes their code caches (dist/hostctl.cjs.cache
 * and dist/complete.cjs.cache): each bundle, loaded by bin/hostctl.js as at run time, runs
 * a few commands (the program against a loopback server that answers like the platform),
 * its output is checked, and then V8 saves what it compiled on the way. One process each:
 * the program's V8 flag must not be set for the completion's. A bundle that cannot do its
 * job (a request that fails, output that is not what the server sent) fails the build, so
 * that neither `npm install` nor `npm pack` (both run it, as prepare) can ship a client
 * that cannot make a request: an undici whose internals moved under scripts/trim.mjs is
 * caught here if not before.
 */
const TRAINING_APPS = [1, 2, 3].map((n) => ({ publicId: `ap-train${n}`, name: `app-${n}`, status: 'running', createdAt: `2024-01-0${n}T00:00:00Z` }));
/** Written between the commands of a training run, so that each one's output is checked on its own. */
const END = '\n--- hostctl build: end of command ---\n';

function trainCodeCaches() {
  const bin = JSON.stringify(join(root, 'bin', 'hostctl.js'));
  // The name V8 keeps in the cache: not this machine's path, which would ship in the
  // package. Node 24 puts the installed path in stack traces regardless; Node 20 shows this.
  const options = `{ as: '/hostctl/dist' }`;
  const program = train(
    'dist/hostctl.cjs',
    `
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { loadProgram } = require(${bin});
const apps = ${JSON.stringify(TRAINING_APPS)};
const server = createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-ratelimit-limit', '1000');
  res.setHeader('x-ratelimit-remaining', '999');
  res.setHeader('x-ratelimit-reset', '60');
  if (req.headers.authorization !== 'Bearer build-training-token') {
    res.statusCode = 401;
    return res.end(JSON.stringify({ error: { code: 'unauthorized', message: 'no token' } }));
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const wanted = url.searchParams.getAll('publicId[]');
  if (url.pathname === '/v1/apps') return res.end(JSON.stringify(wanted.length > 0 ? apps.filter((a) => wanted.includes(a.publicId)) : apps));
  const app = apps.find((a) => url.pathname === '/v1/apps/' + a.publicId);
  if (app) return res.end(JSON.stringify(app));
  res.statusCode = 404;
  res.end(JSON.stringify({ error: { code: 'not_found', message: 'no such path ' + req.url } }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
process.env.HOSTCTL_BASE_URL = 'http://127.0.0.1:' + server.address().port + '/v1';
const { exports, cache } = loadProgram(${JSON.stringify(outdir)}, ${options});
for (const argv of [['apps', 'list', '--json'], ['apps', 'list'], ['apps', 'get', 'ap-train1', 'ap-train2', '--json']]) {
  const code = await exports.main(argv);
  if (code !== 0) {
    process.stderr.write('"hostctl ' + argv.join(' ') + '" exited with ' + code + '\\n');
    process.exit(1);
  }
  await new Promise((resolve) => process.stdout.write(${JSON.stringify(END)}, resolve));
}
server.close();
writeFileSync(${JSON.stringify(join(outdir, 'hostctl.cjs.cache'))}, cache());
`,
  );
  const [list, table, get] = program.split(END);
  const listed = parseJson(list);
  expect(JSON.stringify(listed) === JSON.stringify(TRAINING_APPS), '"hostctl apps list --json" did not print the apps the server sent', list);
  expect(TRAINING_APPS.every((a) => table.includes(a.publicId) && table.includes(a.name)), '"hostctl apps list" did not print every app in its table', table);
  const got = [parseJson(get)].flat();
  expect(JSON.stringify(got) === JSON.stringify(TRAINING_APPS.slice(0, 2)), '"hostctl apps get ap-train1 ap-train2 --json" did not print the two apps the server sent', get);

  const completion = train(
    'dist/complete.cjs',
    `
import { writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { loadCompletion } = require(${bin});
const ids = { apps: ['ap-train1', 'ap-train2'], environments: ['en-train1'] };
// The IDs seen, kept per base URL (src/config/state.ts); nothing is sent to it.
process.env.HOSTCTL_BASE_URL = 'http://127.0.0.1:9/v1';
writeFileSync(process.env.HOSTCTL_CONFIG_DIR + '/state.json', JSON.stringify({ ids: { [process.env.HOSTCTL_BASE_URL]: ids } }));
const { exports, cache } = loadCompletion(${JSON.stringify(outdir)}, ${options});
for (const words of [['apps', 'get', ''], [''], ['apps', 'list', '--'], ['--output', ''], ['config', 'set', ''], ['--profile', '']]) {
  await exports.completeMain(words);
  writeSync(1, ${JSON.stringify(END)});
}
writeFileSync(${JSON.stringify(join(outdir, 'complete.cjs.cache'))}, cache());
`,
  );
  const [ids, nouns] = completion.split(END);
  expect(/^ap-train1\b/m.test(ids) && /^ap-train2\b/m.test(ids), '"hostctl __complete apps get \'\'" did not offer the IDs in the state file', ids);
  expect(/^apps\b/m.test(nouns), '"hostctl __complete \'\'" did not offer the command "apps"', nouns);
}

/** A failed check of the smoke test: what the built hostctl printed goes with it. */
function expect(ok, what, printed) {
  if (!ok) throw new BuildError(`the bundle it made cannot do its job: ${what}.`, printed);
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A failure the build reports in one sentence, with what it saw (no stack trace). */
class BuildError extends Error {
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }
}

/** Runs a training script with a config directory of its own; returns its stdout, or throws a BuildError. */
function train(bundle, script) {
  const config = mkdtempSync(join(tmpdir(), 'hostctl-build-config-'));
  try {
    return runNode(script, { HOSTCTL_TOKEN: 'build-training-token', HOSTCTL_CONFIG_DIR: config, NODE_OPTIONS: '' });
  } catch (err) {
    // What the training run printed: hostctl's output and its error, or the loader's.
    const said = [err?.stdout, err?.stderr].filter((t) => typeof t === 'string' && t.trim() !== '').join('\n');
    throw new BuildError(`${bundle} failed its smoke test (hostctl, loaded as the installed command loads it, against a loopback server); what it printed:`, said || String(err));
  } finally {
    rmSync(config, { recursive: true, force: true });
  }
}

try {
  const completion = await completionTree();
  const define = {
    __HOSTCTL_VERSION__: JSON.stringify(pkg.version),
    // As JSON text, so that the check for it folds to a constant and the fallback, which
    // reads the tree off commander at run time, drops out of the bundle.
    __HOSTCTL_COMPLETION_SPEC__: JSON.stringify(JSON.stringify(completion)),
  };
  await buildProgram(define);
  await buildCompletion(define);
  await buildLibrary({ __HOSTCTL_VERSION__: define.__HOSTCTL_VERSION__ });
  trainCodeCaches();
} catch (err) {
  rmSync(outdir, { recursive: true, force: true });
  // A BuildError is said here, in one sentence; esbuild has printed its own errors.
  if (err instanceof BuildError) process.stderr.write(`build: ${err.message}\n${err.detail ? `${err.detail.trimEnd()}\n` : ''}`);
  else if (!Array.isArray(err?.errors)) throw err;
  process.stderr.write(`build: failed; nothing was written to ${target}.\n`);
  process.exit(1);
}

const old = `${target}.old-${process.pid}`;
try {
  renameSync(target, old);
} catch {
  // no previous build
}
renameSync(outdir, target);
rmSync(old, { recursive: true, force: true });

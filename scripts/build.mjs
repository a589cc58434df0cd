// Bundles src/ into dist/ with esbuild. Command modules stay separate chunks (code
// splitting), so a command loads only what it uses; see README "Start-up".
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const root = new URL('..', import.meta.url).pathname;
// Build beside dist/ and swap it in, so a test that is running the CLI meanwhile never
// sees a half-written dist/.
const outdir = `${root}dist.build-${process.pid}`;

await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  // The keyring is a native addon: it must be loaded from node_modules as shipped.
  external: ['@napi-rs/keyring'],
  define: { __HOSTCTL_VERSION__: JSON.stringify(pkg.version) },
  // Bundled CommonJS dependencies call require(); give ESM chunks one.
  banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  logLevel: 'warning',
});

const old = `${root}dist.old-${process.pid}`;
try {
  renameSync(`${root}dist`, old);
} catch {
  // no previous build
}
renameSync(outdir, `${root}dist`);
rmSync(old, { recursive: true, force: true });

// Bundles src/ into dist/ with esbuild. Command modules stay separate chunks (code
// splitting), so a command loads only what it uses; see README "Start-up".
import { build } from 'esbuild';
import { rmSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
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

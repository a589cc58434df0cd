// Writes the reference generated from the command definitions: docs/commands.md, the man
// pages in man/ (src/help/reference.ts renders them) and their list in package.json "man". `npm run build` runs it, so the
// committed files follow the code; test/e2e/generated-docs.test.ts fails when the committed
// ones differ from what the code generates.
//
//   node scripts/gen-docs.mjs           write the files (and remove man pages of commands that are gone)
//   node scripts/gen-docs.mjs --check   write nothing; exit 1 and name the files that differ
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const check = process.argv.includes('--check');

/** The files, by path from the root: the sources bundled for Node and run once. */
async function generate() {
  const out = await build({
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    write: false,
    logLevel: 'warning',
    external: ['@napi-rs/keyring'],
    define: { __HOSTCTL_VERSION__: JSON.stringify(pkg.version) },
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
    stdin: {
      contents: [
        "import { buildProgram } from './src/cli.ts';",
        "import { sandboxProgram, SANDBOX_EXAMPLES } from './src/sandbox/main.ts';",
        "import { renderReference } from './src/help/reference.ts';",
        `export const files = renderReference(buildProgram(), { program: sandboxProgram(), examples: SANDBOX_EXAMPLES }, ${JSON.stringify(pkg.version)});`,
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
  });
  const scratch = mkdtempSync(join(tmpdir(), 'hostctl-gen-docs-'));
  try {
    const file = join(scratch, 'gen.mjs');
    writeFileSync(file, out.outputFiles[0].text);
    return (await import(pathToFileURL(file).href)).files;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const read = (path) => {
  try {
    return readFileSync(join(root, path), 'utf8');
  } catch {
    return undefined;
  }
};

const files = await generate();
// npm installs the man pages that package.json's "man" lists, file by file (a "directories.man"
// is not installed by `npm install -g`), so the list follows the pages.
const manList = [...files.keys()].filter((p) => p.startsWith('man/')).sort();
files.set('package.json', `${JSON.stringify({ ...pkg, man: manList }, null, 2)}\n`);
const stale = readdirSync(join(root, 'man'), { withFileTypes: true })
  .filter((d) => d.isFile() && d.name.endsWith('.1') && !files.has(`man/${d.name}`))
  .map((d) => `man/${d.name}`);
const changed = [...files].filter(([path, text]) => read(path) !== text).map(([path]) => path);

if (check) {
  if (changed.length + stale.length > 0) {
    console.error(`gen-docs: the reference differs from the code: ${[...changed, ...stale].join(', ')}. Run "npm run docs:gen" and commit the result.`);
    process.exit(1);
  }
} else {
  for (const path of changed) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), files.get(path));
  }
  for (const path of stale) rmSync(join(root, path));
}

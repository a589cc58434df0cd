// What every run loads before its command starts: cli.ts imports every command file (see
// src/commands/define.ts), so each file's static imports are start-up for every command.
// Read off esbuild's import graph of the sources: the imports a bundle evaluates at once
// (static ones), not those it defers (import()).

import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;

async function graph(entry: string): Promise<Metafile> {
  const out = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    metafile: true,
    outfile: 'out.cjs',
    external: ['@napi-rs/keyring'],
    logLevel: 'silent',
  });
  return out.metafile;
}

/** The files a bundle of `entry` evaluates at start, and the built-ins the sources among them require. */
async function startupSet(entry: string): Promise<{ files: string[]; builtins: string[] }> {
  const { inputs } = await graph(entry);
  const files = new Set<string>();
  const builtins = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const imp of inputs[file]?.imports ?? []) {
      if (imp.kind === 'dynamic-import') continue;
      if (imp.external) {
        if (file.startsWith('src/')) builtins.add(imp.path);
      } else {
        todo.push(imp.path);
      }
    }
  }
  return { files: [...files].sort(), builtins: [...builtins].sort() };
}

/** The package a node_modules path belongs to. */
function packageOf(file: string): string | undefined {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  return m?.[1];
}

describe('start-up', () => {
  it('the program loads no command run, printer, HTTP client, keychain, config writer, sandbox or help text until a command runs', async () => {
    const { files, builtins } = await startupSet('src/cli.ts');
    // Every command file is there: their definitions build the program.
    expect(files).toEqual(expect.arrayContaining(['src/commands/resource.ts', 'src/commands/auth.ts', 'src/commands/api.ts']));
    const packages = new Set(files.map(packageOf).filter((p) => p !== undefined));
    expect([...packages].sort()).toEqual(['@commander-js/extra-typings', 'commander', 'env-paths']);
    const heavy = files.filter((f) =>
      /^src\/(http\/(client|paging|cache|ratelimit|budget)|output\/(format|table|tsv|jq|detail)|auth\/(keychain|token)|config\/store|reference\/|sandbox\/|mcp\/|help\/(run|topics|reference)|commands\/(watch|child-process))\b/.test(f),
    );
    expect(heavy, 'import these inside the run, with import(): see src/commands/define.ts').toEqual([]);
    // Built-ins Node has loaded anyway by then, or that cost nothing to load; node:child_process
    // (commander's, which the build defers) or node:crypto would cost milliseconds on every run.
    expect(builtins.filter((b) => !['node:fs', 'node:os', 'node:path', 'node:url', 'node:string_decoder'].includes(b))).toEqual([]);
  });

  it('a Tab press loads neither commander nor any command file', async () => {
    const { files } = await startupSet('src/commands/complete.ts');
    expect(files.filter((f) => packageOf(f) !== undefined && packageOf(f) !== 'env-paths')).toEqual([]);
    expect(files.filter((f) => f.startsWith('src/commands/') && f !== 'src/commands/complete.ts')).toEqual([]);
    expect(files).not.toContain('src/cli.ts');
  });
});

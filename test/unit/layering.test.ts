// The layering of src/, checked on madge's dependency graph (type-only imports and
// import() count): no import cycles, and the sandbox's corner (see eslint.config.js). The
// same checks run in `npm run lint`; here they run with the tests, which CI runs.

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

interface MadgeResult {
  circular(): string[][];
  obj(): Record<string, string[]>;
}
const madge = createRequire(import.meta.url)('madge') as (path: string, config: { fileExtensions: string[] }) => Promise<MadgeResult>;

const graph = madge('src', { fileExtensions: ['ts'] });
// The list eslint.config.js enforces (a JavaScript file, so imported by URL: no types).
const lintConfig = import(new URL('../../eslint.config.js', import.meta.url).href) as Promise<{ SANDBOX_MAY_IMPORT: string[] }>;

describe('the layering of src/', () => {
  it('has no import cycles', async () => {
    expect((await graph).circular()).toEqual([]);
  });

  it('reads every module of src/ (the graph is not empty by a wrong path)', async () => {
    const modules = Object.keys((await graph).obj());
    expect(modules).toEqual(expect.arrayContaining(['context.ts', 'cli.ts', 'http/client.ts', 'sandbox/main.ts', 'json/narrow.ts']));
    expect((await graph).obj()['context.ts']).toEqual(expect.arrayContaining(['config/url.ts']));
  });

  it('keeps the faces apart: commands, MCP and the library import only the core and below, never each other', async () => {
    const face = (file: string) => /^(commands|mcp|lib)\//.exec(file)?.[1];
    const wrong: string[] = [];
    for (const [from, deps] of Object.entries((await graph).obj())) {
      const mine = face(from);
      if (!mine) continue;
      for (const to of deps) {
        const theirs = face(to);
        // `hostctl mcp` is the command that starts the MCP face: it loads its run, nothing else of it.
        if (theirs && theirs !== mine && !(from === 'commands/mcp.ts' && to === 'mcp/run.ts')) wrong.push(`${from} -> ${to}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the core below the faces: src/core/ reaches no face, no Context and no printer, however indirectly', async () => {
    const g = (await graph).obj();
    const above = /^(commands|mcp|lib)\/|^(context|cli|global-options)\.ts$|^output\/(format|printer|table|detail|columns|tsv|jq)\.ts$|^output\/printers\//;
    const wrong: string[] = [];
    for (const start of Object.keys(g).filter((f) => f.startsWith('core/'))) {
      const seen = new Set<string>();
      const stack = [start];
      while (stack.length > 0) {
        const file = stack.pop()!;
        if (seen.has(file)) continue;
        seen.add(file);
        if (above.test(file)) wrong.push(`${start} reaches ${file}`);
        stack.push(...(g[file] ?? []));
      }
    }
    expect(Object.keys(g).filter((f) => f.startsWith('core/')).length).toBeGreaterThan(4);
    expect(wrong).toEqual([]);
  });

  it('keeps the sandbox in its corner', async () => {
    const { SANDBOX_MAY_IMPORT } = await lintConfig;
    expect(SANDBOX_MAY_IMPORT).toContain('resources');
    const wrong: string[] = [];
    for (const [from, deps] of Object.entries((await graph).obj())) {
      const inSandbox = from.startsWith('sandbox/');
      for (const to of deps) {
        if (inSandbox && !to.startsWith('sandbox/') && !SANDBOX_MAY_IMPORT.includes(to.replace(/\.ts$/, ''))) wrong.push(`${from} -> ${to}`);
        if (!inSandbox && to.startsWith('sandbox/') && !(from === 'cli.ts' && to === 'sandbox/main.ts')) wrong.push(`${from} -> ${to}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

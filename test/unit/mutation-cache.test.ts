// The mutation tester's state (Stryker's incremental files, tens of MB) is a cache, not
// source: it lives outside the checkout, where HOSTCTL_MUTATION_CACHE or the XDG cache home
// says, so that no clone carries it and no commit can add it.

import { execFileSync } from 'node:child_process';
import { isAbsolute, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The incremental file of each piece and of the whole scope ('(all)'), as Stryker reads
 * stryker.config.mjs in a process with this environment and nothing else.
 */
function incrementalFiles(env: Record<string, string>): Record<string, string> {
  const config = pathToFileURL(join(ROOT, 'stryker.config.mjs')).href;
  // The config reads HOSTCTL_MUTATION_PIECE as it loads: a query makes each import a new load.
  const script = `
    const { PIECES } = await import(${JSON.stringify(config)});
    const files = {};
    for (const piece of [...Object.keys(PIECES), '(all)']) {
      if (piece === '(all)') delete process.env.HOSTCTL_MUTATION_PIECE;
      else process.env.HOSTCTL_MUTATION_PIECE = piece;
      files[piece] = (await import(${JSON.stringify(config)} + '?' + encodeURIComponent(piece))).default.incrementalFile;
    }
    process.stdout.write(JSON.stringify(files));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  return JSON.parse(out) as Record<string, string>;
}

const within = (dir: string, file: string): boolean => {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

function expectAllWithin(files: Record<string, string>, dir: string): void {
  for (const [piece, file] of Object.entries(files)) {
    expect(isAbsolute(file), `${piece}: ${file}`).toBe(true);
    expect(within(dir, file), `${piece}: ${file} is not in ${dir}`).toBe(true);
    expect(within(ROOT, file), `${piece}: ${file} is in the checkout`).toBe(false);
  }
}

describe('the mutation tester keeps its state outside the checkout', () => {
  it('in hostctl-mutation under the XDG cache home, a file for each piece and one for the whole scope', () => {
    const files = incrementalFiles({ HOME: '/home/someone', XDG_CACHE_HOME: '/var/cache/someone' });
    expectAllWithin(files, '/var/cache/someone/hostctl-mutation');
    // A piece's run never overwrites another's state.
    expect(new Set(Object.values(files)).size).toBe(Object.keys(files).length);
  });

  it('in ~/.cache/hostctl-mutation when no XDG cache home is set', () => {
    expectAllWithin(incrementalFiles({ HOME: '/home/someone' }), '/home/someone/.cache/hostctl-mutation');
  });

  it('in the directory HOSTCTL_MUTATION_CACHE names, which CI may keep as an artifact', () => {
    expectAllWithin(incrementalFiles({ HOME: '/home/someone', XDG_CACHE_HOME: '/var/cache/someone', HOSTCTL_MUTATION_CACHE: '/ci/artifacts/mutation' }), '/ci/artifacts/mutation');
  });
});

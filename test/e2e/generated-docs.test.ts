// The reference generated from the command definitions (docs/commands.md, man/*.1, the
// "man" list in package.json): the committed files must be what the code generates, and
// every man page must render with man(1).

import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildProgram } from '../../src/cli.js';
import { renderReference } from '../../src/help/reference.js';
import { SANDBOX_EXAMPLES, sandboxProgram } from '../../src/sandbox/main.js';
import { ROOT } from '../support/cli.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; man: string[]; files: string[] };
const generated = renderReference(buildProgram(), { program: sandboxProgram(), examples: SANDBOX_EXAMPLES }, pkg.version);
const manPages = [...generated.keys()].filter((p) => p.startsWith('man/'));

/** What git has staged for commit: the committed reference, not what the last build wrote. */
function committed(path: string): string | undefined {
  const r = spawnSync('git', ['-C', ROOT, 'show', `:${path}`], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return r.status === 0 ? r.stdout : undefined;
}

const inGit = spawnSync('git', ['-C', ROOT, 'rev-parse', '--is-inside-work-tree'], { encoding: 'utf8' }).stdout.trim() === 'true';
const haveMan = spawnSync('man', ['--version'], { encoding: 'utf8' }).status === 0;
if (!inGit && process.env.CI !== 'true') console.warn('skipping the drift test of the reference: not a git checkout');
if (!haveMan && process.env.CI !== 'true') console.warn('skipping the man page rendering test: man(1) is not installed (apt install man-db groff-base)');

describe.runIf(inGit || process.env.CI === 'true')('the committed reference is what the code generates', () => {
  it('has a man page for every command, docs/commands.md, and each is committed as generated', () => {
    expect(manPages).toEqual(expect.arrayContaining(['man/hostctl.1', 'man/hostctl-apps-list.1', 'man/hostctl-environments-get.1', 'man/hostctl-sandbox.1', 'man/hostctl-version.1']));
    const stale = [...generated].filter(([path, text]) => committed(path) !== text).map(([path]) => path);
    expect(stale, 'run "npm run docs:gen" and commit the result').toEqual([]);
  });

  it('commits no man page of a command that is gone', () => {
    const tracked = execFileSync('git', ['-C', ROOT, 'ls-files', 'man'], { encoding: 'utf8' }).trim().split('\n');
    expect(tracked.sort()).toEqual([...manPages].sort());
  });

  it('lists every page in package.json "man", so that npm install -g installs them', () => {
    expect(pkg.man).toEqual([...manPages].sort());
    expect(pkg.files).toContain('man');
  });

  it('documents every flag and example of a command where its definition says', () => {
    const md = generated.get('docs/commands.md') ?? '';
    const list = /## `hostctl apps list`\n[\s\S]*?\n## /.exec(md)?.[0] ?? '';
    for (const flag of ['--limit <n>', '--all', '--page <n>']) expect(list).toContain(`\`${flag}\``);
    expect(list).toMatch(/Inherited options .*`--base-url`.*`-o, --output`/);
    expect(list).toContain('hostctl apps list --all --json');
    const sandbox = /## `hostctl sandbox`\n[\s\S]*?\n## /.exec(md)?.[0] ?? '';
    for (const flag of ['--port <n>', '--rate-limit <n>', '--state <file>']) expect(sandbox).toContain(flag);
  });
});

describe.runIf(haveMan || process.env.CI === 'true')('man -l renders every page', () => {
  it.each(manPages)('%s', (page) => {
    const r = spawnSync('man', ['-l', '--warnings', join(ROOT, page)], {
      encoding: 'utf8',
      env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80', LANG: 'C.UTF-8' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const name = page.slice('man/'.length, -'.1'.length);
    expect(r.stdout).toMatch(new RegExp(`^NAME\\n {7}${name.replace(/-/g, '[-‐]')}\\s+[-‐]\\s+\\S`, 'm'));
    expect(r.stdout).toMatch(/^SYNOPSIS\n {7}hostctl/m);
  });
});

// The README is followed as a newcomer follows it: every fenced `sh` block, in order, in
// one bash with `set -e`, in a fresh home directory, with this clone's hostctl on the PATH.
// Its examples start their own sandbox, as the README says to, and so do docs/sandbox.md's,
// each in a directory where the last run left its sandbox.env (a sandbox long gone). The
// user guides whose snippets change the machine (completion, the headless keychain) run the
// same way against a sandbox started here, as after the README's first example.
//
// Markers, an HTML comment on the line before a block:
//   <!-- snippet: not run, <why> -->     a block that cannot run here (a real platform login)
//   <!-- snippet needs: prog prog -->    skipped, with the reason, when a program is missing
//                                        (except under CI, where that fails)
// Every run gets its own HOME and XDG directories, none of the developer's.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, ROOT, runProcess, tmpDir } from '../support/cli.js';
import { startSandboxHere, type LocalSandbox } from '../support/sandbox-here.js';
import { underCI } from '../support/ci.js';
import { snippets, type Snippet } from '../support/snippets.js';

const withoutCode = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, a repeat numbered. */
function sectionsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading = ''] of withoutCode(markdown).matchAll(/^#{1,6} +(.+?)[ #]*$/gm)) {
    const slug = heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

const has = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

/**
 * The programs of `programs` that are missing, or none under CI (where a test that needs
 * them runs, and fails without them). A test skips on what this returns, and says why.
 */
function missingHere(what: string, programs: string[]): string[] {
  const missing = programs.filter((p) => !has(p));
  if (missing.length > 0 && !underCI()) console.warn(`${what}: skipped, ${missing.join(' and ')} not installed (CI fails instead)`);
  return underCI() ? [] : missing;
}

/**
 * HOME and every XDG base directory inside `root`, none left to the developer's: their
 * files (a keyring, completions) and a running keyring's socket (XDG_RUNTIME_DIR).
 */
function ownHome(root: string, home = root): Record<string, string> {
  const dirs = {
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(root, 'run'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
  return { HOME: home, ...dirs };
}

/**
 * Runs a file's runnable snippets in one bash and reports where it stopped. Background
 * jobs a failed run leaves behind (a sandbox) are killed on the way out.
 */
async function follow(file: string, env: Record<string, string> = {}, prepare?: (cwd: string) => void) {
  const all = snippets(readFileSync(join(ROOT, file), 'utf8'));
  const missing = (s: Snippet) => s.needs.filter((p) => !has(p));
  const runnable = all.filter((s) => s.notRun === undefined && (missing(s).length === 0 || underCI()));
  for (const s of all.filter((s) => s.notRun === undefined && !runnable.includes(s))) {
    console.warn(`${file}:${s.line}: snippet skipped, ${missing(s).join(', ')} not installed`);
  }
  const script = [
    'set -eo pipefail',
    `trap 'echo "snippet at ${file}:$__line failed with exit $?" >&2' ERR`,
    "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
    ...runnable.map((s) => `__line=${s.line}\n${s.code}`),
    `echo "__done ${runnable.length}"`,
  ].join('\n');
  const dir = tmpDir('hostctl-readme-');
  try {
    const home = join(dir.path, 'home');
    const bin = join(dir.path, 'bin');
    const cwd = join(dir.path, 'work');
    for (const d of [home, bin, cwd]) mkdirSync(d);
    symlinkSync(BIN, join(bin, 'hostctl'));
    prepare?.(cwd);
    const r = await runProcess('bash', ['-c', script], {
      cwd,
      timeoutMs: 180_000,
      env: { ...env, ...ownHome(dir.path, home), PATH: `${bin}:${process.env.PATH ?? ''}`, COLUMNS: '100' },
    });
    return { ...r, runnable, all, cwd, home, cleanup: dir.cleanup };
  } catch (err) {
    dir.cleanup();
    throw err;
  }
}

/**
 * What a run before this one left in the working directory: the env file of a sandbox that
 * has stopped. The recipes must wait for the new sandbox's, not take this one.
 */
function leftFromLastRun(cwd: string): void {
  writeFileSync(join(cwd, 'sandbox.env'), 'HOSTCTL_BASE_URL=http://127.0.0.1:9/v1\nHOSTCTL_TOKEN=hsb_fromthelastrun\n');
}

describe('README.md', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('is at most 16 KB, with the quick start as it always was', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(16 * 1024);
    expect(readme).toMatch(/## Quick start\n\n(?:<!--.*-->\n)?```sh\nnpm install && npm run demo\nnpm test\n```\n/);
  });

  it('says why for every snippet it does not run', () => {
    for (const s of snippets(readme).filter((s) => s.notRun !== undefined)) expect(s.notRun?.length, `README.md:${s.line}`).toBeGreaterThan(10);
    expect(snippets(readme).filter((s) => s.notRun === undefined).length).toBeGreaterThanOrEqual(11);
  });

  it('links to files and sections that exist, from the README and every page of docs/', () => {
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    let links = 0;
    for (const page of pages) {
      for (const [, target = ''] of withoutCode(readFileSync(join(ROOT, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        links++;
        const [path = '', section] = target.split('#');
        const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), path);
        expect(existsSync(file), `${page}: ${target}`).toBe(true);
        if (section !== undefined && file.endsWith('.md')) expect([...sectionsOf(readFileSync(file, 'utf8'))], `${page}: ${target}`).toContain(section);
      }
    }
    expect(links).toBeGreaterThan(8);
  });

  it('runs start to finish, every sh block in order, in a fresh home directory', async () => {
    const r = await follow('README.md', {}, leftFromLastRun);
    try {
      expect(r.stderr).not.toMatch(/snippet at README\.md:\d+ failed/);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`__done ${r.runnable.length}\\n$`));
      // The sandbox of example 1 ran, logged to its file, and served the examples.
      const log = readFileSync(join(r.cwd, 'sandbox.log'), 'utf8');
      expect(log).toMatch(/^export HOSTCTL_BASE_URL=/m);
      expect(log).toContain('POST /v1/apps 201 sandbox');
      expect(readFileSync(join(r.home, '.bashrc'), 'utf8')).toBe('source <(hostctl completion bash)\n');
      expect(r.stdout).toContain('no such app');
    } finally {
      r.cleanup();
    }
  });
});

describe('docs/sandbox.md', () => {
  it('runs start to finish, every sh block in order: its recipe starts a sandbox, and every curl example is answered 2xx', async () => {
    const r = await follow('docs/sandbox.md', {}, leftFromLastRun);
    try {
      expect(r.stderr).not.toMatch(/snippet at docs\/sandbox\.md:\d+ failed/);
      expect(r.code, r.stderr).toBe(0);
      expect(r.runnable.length).toBeGreaterThanOrEqual(3);
      expect(r.stdout).toMatch(new RegExp(`__done ${r.runnable.length}\\n$`));
      // The admin example made its token (the only time the token is shown) and revoked it.
      expect(r.stdout).toMatch(/"name":\s*"ci"[^}]*"token":\s*"hsb_/);
      const log = readFileSync(join(r.cwd, 'sandbox.log'), 'utf8');
      expect(log).toContain('POST /v1/apps 201 sandbox');
      expect(log).not.toMatch(/ 4\d\d /);
    } finally {
      r.cleanup();
    }
  });
});

describe('the user guides whose snippets change the machine', () => {
  let sandbox: LocalSandbox;
  beforeAll(async () => {
    sandbox = await startSandboxHere({ rateLimit: 1000 });
  });
  afterAll(() => sandbox.stop());
  const env = () => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token });

  it('docs/completion.md: every install line works in a fresh home directory', async () => {
    const r = await follow('docs/completion.md', env());
    try {
      expect(r.code, r.stderr).toBe(0);
      expect(r.runnable.length).toBeGreaterThanOrEqual(4);
      const completions = (p: string) => readFileSync(join(r.home, p), 'utf8');
      expect(completions('.local/share/bash-completion/completions/hostctl')).toBe(readFileSync(join(ROOT, 'completions', 'hostctl.bash'), 'utf8'));
      expect(completions('.config/fish/completions/hostctl.fish')).toBe(readFileSync(join(ROOT, 'completions', 'hostctl.fish'), 'utf8'));
      expect(completions('.config/fish/config.fish')).toBe('hostctl completion fish | source\n');
    } finally {
      r.cleanup();
    }
  });

  it.skipIf(missingHere('the fleet recipe test', ['redis-server', 'redis-cli']).length > 0)('docs/fleet.md: the local recipe shares the budget through a redis-server, which holds no token', async () => {
    const r = await follow('docs/fleet.md', env());
    try {
      expect(r.code, r.stderr).toBe(0);
      expect(r.runnable.length).toBeGreaterThanOrEqual(2);
      expect(r.stdout).toMatch(/"store": "redis",\s+"where": "127\.0\.0\.1:6390"/);
      expect(r.stdout).toMatch(/^hostctl:\{[0-9a-f]{64}\}:budget$/m);
      expect(r.stdout).not.toContain(sandbox.token);
      expect(r.stderr).not.toContain('warning');
      expect(readFileSync(join(r.home, '.config', 'hostctl', 'config.json'), 'utf8')).toContain('rediss://:PASSWORD@redis.example.com:6379/0');
    } finally {
      r.cleanup();
    }
  });

  const keyringParts = missingHere('the keychain recipe tests', ['dbus-run-session', 'gnome-keyring-daemon']);

  it.skipIf(keyringParts.length > 0)('docs/authentication.md: the headless keychain recipe stores the token in a keyring it creates', async () => {
    const r = await follow('docs/authentication.md', env(), (cwd) => writeFileSync(join(cwd, 'token.txt'), sandbox.token));
    try {
      expect(r.code, r.stderr).toBe(0);
      expect(r.runnable).toHaveLength(1);
      expect(r.stderr).toContain('checked and stored in the OS keychain');
      expect(r.stdout).toContain('overrides the token stored in the keychain');
      expect(existsSync(join(r.home, '.local', 'share', 'keyrings', 'login.keyring'))).toBe(true);
    } finally {
      r.cleanup();
    }
  });

  it.skipIf(keyringParts.length > 0)('a Secret Service without a default keyring: login says so, and how to make one, not that there is no Secret Service', async () => {
    const dir = tmpDir();
    try {
      // What the old recipe did with KEYRING_PASSWORD unset: gnome-keyring runs, but makes no keyring.
      const script = 'printf "" | gnome-keyring-daemon --unlock --components=secrets > /dev/null; hostctl auth login --with-token < token.txt';
      writeFileSync(join(dir.path, 'token.txt'), sandbox.token);
      mkdirSync(join(dir.path, 'bin'));
      symlinkSync(BIN, join(dir.path, 'bin', 'hostctl'));
      const r = await runProcess('dbus-run-session', ['--', 'sh', '-c', script], {
        cwd: dir.path,
        env: { HOSTCTL_BASE_URL: sandbox.baseUrl, ...ownHome(dir.path), PATH: `${join(dir.path, 'bin')}:${process.env.PATH ?? ''}` },
      });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/has no default keyring/);
      expect(r.stderr).toContain('docs/authentication.md');
      expect(r.stderr).not.toContain('start a Secret Service');
    } finally {
      dir.cleanup();
    }
  });

  it.skipIf(missingHere('the unset-password recipe test', ['dbus-run-session']).length > 0)('docs/authentication.md: with the password unset, the recipe stops before it logs in, and says why', async () => {
    const recipe = snippets(readFileSync(join(ROOT, 'docs', 'authentication.md'), 'utf8')).find((s) => s.code.includes('dbus-run-session'));
    expect(recipe).toBeDefined();
    const code = (recipe?.code ?? '').replace(/^export KEYRING_PASSWORD=.*\n/m, '');
    const dir = tmpDir();
    try {
      const r = await runProcess('bash', ['-c', code], { cwd: dir.path, env: { ...env(), ...ownHome(dir.path) } });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('KEYRING_PASSWORD: must be set and not empty');
      expect(r.stdout).not.toContain('Logged in');
    } finally {
      dir.cleanup();
    }
  });
});

// The README's install from a clone, for one user without root, as a stranger follows it:
// its lines run with a scratch HOME (npm offline: a folder install fetches nothing), then
// `hostctl` and its man page are found the way the README says. The first line, `npm
// install`, is what made this clone's dist/ and node_modules: it is not run again here,
// nor is the build the folder install would run again (ignore-scripts), so that dist/
// is not rebuilt under the other tests.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runProcess, tmpDir } from '../support/cli.js';
import { snippets } from '../support/snippets.js';

describe("the README's install from a clone", () => {
  it('runs from the clone, and installs for one user under ~/.local with no root', async () => {
    const block = snippets(readFileSync(join(ROOT, 'README.md'), 'utf8')).find((s) => s.notRun?.includes('install-user.test.ts'));
    const lines = (block?.code ?? '').split('\n').filter((l) => l.trim() !== '' && !/^npm install\s+#/.test(l));
    expect(lines).toEqual([expect.stringMatching(/^\.\/bin\/hostctl\.js version/), expect.stringMatching(/^npm install -g --prefix ~\/\.local \./)]);
    const dir = tmpDir('hostctl-install-user-');
    try {
      const home = join(dir.path, 'home');
      const env = {
        HOME: home,
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_ignore_scripts: 'true',
        npm_config_cache: join(dir.path, 'npm-cache'),
      };
      const script = ['set -e', `mkdir -p "$HOME"`, ...lines, `PATH="$HOME/.local/bin:$PATH" hostctl version`, 'man -w hostctl'].join('\n');
      const r = await runProcess('bash', ['-c', script], { cwd: ROOT, env: { ...env, MANPATH: `${home}/.local/share/man` }, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      const versions = r.stdout.match(/^hostctl \d+\.\d+\.\d+/gm) ?? [];
      expect(versions).toHaveLength(2);
      expect(r.stdout).toMatch(/hostctl\.1\s*$/);
    } finally {
      dir.cleanup();
    }
  });
});

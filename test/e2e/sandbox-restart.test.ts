// The README's recipe for one sandbox across restarts, as a newcomer follows it: the
// snippet as written (on a free port instead of 8470, which may be taken here), then the
// sandbox stopped and started again with the same flags, and the login made once still
// works. (A sandbox's advice for a rejected token, and `auth status` exiting 4 on it:
// test/cli/auth.test.ts.)

import { readFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runProcess, tmpDir } from '../support/cli.js';
import { snippets } from '../support/snippets.js';
import { freePort } from '../support/servers.js';

describe("the README's sandbox across restarts", () => {
  it('the recipe runs; after a restart with the same flags the one login still works', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const recipe = snippets(readme).find((s) => s.notRun?.includes('sandbox-restart.test.ts'));
    expect(recipe?.code).toContain('--port 8470');
    const port = String(await freePort());
    const code = (recipe?.code ?? '').replaceAll('8470', port);
    const start = code.split('\n').find((l) => l.startsWith('hostctl sandbox ')) ?? 'missing';
    const dir = tmpDir('hostctl-restart-');
    try {
      const [home, bin, cwd] = ['home', 'bin', 'work'].map((d) => join(dir.path, d)) as [string, string, string];
      for (const d of [home, bin, cwd]) mkdirSync(d);
      symlinkSync(BIN, join(bin, 'hostctl'));
      const script = [
        'set -eo pipefail',
        "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
        code,
        'kill %1; wait %1 || true',
        'echo __restarted',
        start.replace('> kept.env', '> kept2.env'),
        'until [ -s kept2.env ]; do sleep 0.2; done',
        `hostctl --profile sandbox apps list --limit 2 -o tsv --fields publicId`,
        'hostctl --profile sandbox auth status',
      ].join('\n');
      const r = await runProcess('bash', ['-c', script], {
        cwd,
        timeoutMs: 60_000,
        // As in a shell where the README's first example ran: these must not win.
        env: { HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}`, HOSTCTL_BASE_URL: 'http://127.0.0.1:9/v1', HOSTCTL_TOKEN: 'stale', XDG_CONFIG_HOME: undefined },
      });
      expect(r.code, r.stderr).toBe(0);
      const after = r.stdout.slice(r.stdout.indexOf('__restarted'));
      expect(after).toMatch(/^ap-\S+\nap-\S+\n/m);
      expect(after).toMatch(/Rejected:\s+no/);
      expect(readFileSync(join(cwd, 'kept.env'), 'utf8')).toContain(`http://127.0.0.1:${port}/v1`);
    } finally {
      dir.cleanup();
    }
  });
});

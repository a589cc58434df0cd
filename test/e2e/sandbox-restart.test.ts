// The README's recipe for one sandbox across restarts, as a newcomer follows it: the
// snippet as written (on a free port instead of 8470, which may be taken here), then the
// sandbox stopped and started again by the recipe's own lines, in the same directory (its
// kept.env from the first start still there), and the login made once still works.
// The restarts run on one CPU where the system allows it: there a shell goes on after
// starting a background job before the job runs, so a wait that could pass on the last
// run's file does. (A sandbox's advice for a rejected token, and `auth status` exiting 4 on it:
// test/cli/auth.test.ts.)

import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect } from 'vitest';
import { BIN, ROOT, runProcess } from '../support/cli.js';
import { test } from '../support/fixtures.js';
import { snippets } from '../support/snippets.js';
import { freePort } from '../support/servers.js';

describe("the README's sandbox across restarts", () => {
  test('the recipe runs; after a restart with the same flags the one login still works', async ({ home: { path: home }, newDir }) => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const recipe = snippets(readme).find((s) => s.notRun?.includes('sandbox-restart.test.ts'));
    expect(recipe?.code).toContain('--port 8470');
    const port = String(await freePort());
    const code = (recipe?.code ?? '').replaceAll('8470', port);
    // The recipe's lines that start the sandbox and wait for it, as a restart runs them again.
    const lines = code.split('\n');
    const restart = lines.slice(0, lines.findIndex((l) => l.startsWith('until ')) + 1).filter((l) => !l.startsWith('unset '));
    expect(restart.join('\n')).toContain('hostctl sandbox ');
    const [bin, cwd] = [newDir('hostctl-restart-bin-'), newDir('hostctl-restart-work-')];
    symlinkSync(BIN, join(bin, 'hostctl'));
    const script = [
      'set -eo pipefail',
      "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
      code,
      'echo __restarted',
      // Three restarts, each from the file the one before left.
      ...[1, 2, 3].flatMap(() => [
        'kill %%; wait %% || true',
        'cp kept.env last.env',
        ...restart,
        // The wait has ended: the file must be the new sandbox's (each start has a new token).
        'if cmp -s kept.env last.env; then echo "the wait ended on the last run\'s kept.env" >&2; exit 9; fi',
        'hostctl --profile sandbox apps list --limit 2 -o tsv --fields publicId',
      ]),
      'hostctl --profile sandbox auth status',
    ].join('\n');
    const oneCpu = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
    const r = await runProcess(oneCpu ? 'taskset' : 'bash', oneCpu ? ['-c', '0', 'bash', '-c', script] : ['-c', script], {
      cwd,
      timeoutMs: 60_000,
      // As in a shell where the README's first example ran: these must not win.
      env: { HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}`, HOSTCTL_BASE_URL: 'http://127.0.0.1:9/v1', HOSTCTL_TOKEN: 'stale', XDG_CONFIG_HOME: undefined },
    });
    expect(r.stderr).not.toContain("the wait ended on the last run's kept.env");
    expect(r.code, r.stderr).toBe(0);
    const after = r.stdout.slice(r.stdout.indexOf('__restarted'));
    expect(after).toMatch(/^ap-\S+\nap-\S+\n/m);
    expect(after).toMatch(/Rejected:\s+no/);
    expect(readFileSync(join(cwd, 'kept.env'), 'utf8')).toContain(`http://127.0.0.1:${port}/v1`);
  });
});

// --jq in the real process (issue 29): jq's output streams into a pipe and the command
// ends when the reader goes away; running out of memory is one sentence and exit 1. The
// time bound and the rest: test/unit/jq.test.ts and test/cli/output.test.ts.

import { expect } from 'vitest';
import { BIN, runProcess } from '../support/cli.js';
import { test as base } from '../support/fixtures.js';

const test = base.extend('env', async ({ alt, config }) => {
  const server = await alt({ limit: 10_000 });
  return () => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path });
});

test("prints jq's results as they come: `--jq 'repeat(1)' | head -1` prints 1 and ends, exit 0", async ({ env }) => {
  const r = await runProcess('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" apps list --jq 'repeat(1)' | head -1`], { env: env(), timeoutMs: 50_000 });
  expect(r.stdout).toBe('1\n');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
});

test('says in one sentence, exit 1, when jq runs out of memory, never the engine\'s "Aborted()"', async ({ env }) => {
  const r = await runProcess(process.execPath, [BIN, 'apps', 'list', '--jq', '"x" | until(length > 1e9; . + .) | length'], { env: env(), timeoutMs: 50_000 });
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(
    'hostctl: --jq: jq ran out of memory: it has 256 MiB here, for its input and its work.\n' +
      'Ask for less (--fields, --limit) or narrow the expression; or pipe --json into jq, which has no such bound.\n',
  );
  expect(r.code).toBe(1);
});

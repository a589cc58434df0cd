// One budget across processes (issue 13): real hostctl processes with one token share the
// token's window through the state dir. The in-process runs of test/cli/budget.test.ts
// share it on a virtual clock, in parallel loops; this is the same promise kept by
// separate processes on the real clock. So that more of them want a slot at once than
// the window holds, however slowly they start on a busy machine, they are held until all
// have queued (test/support/budget-hold.ts) and then let go together. Judged from the
// sandbox's own request log; no timing is asserted.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdBudget, startAllQueued, startQueued, type Queued } from '../support/budget-hold.js';
import { runCli, sandboxAdmin, startSandbox, tmpDir, type Sandbox } from '../support/cli.js';

const LIMIT = 6;
const WINDOW_SECONDS = 1;
const PROCESSES = 8;

let sandbox: Sandbox;
let dir: { path: string; cleanup(): void };
const started: Queued[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(['--rate-limit', String(LIMIT), '--window', String(WINDOW_SECONDS)]);
  dir = tmpDir('hostctl-budget-');
});
afterAll(async () => {
  for (const q of started) if (q.child.exitCode === null) q.child.kill('SIGKILL');
  await sandbox?.stop();
  dir?.cleanup();
});

describe(`one token, ${LIMIT} requests per ${WINDOW_SECONDS}s, separate processes`, () => {
  it(`${PROCESSES} processes let go at once: every command exits 0, ${PROCESSES + 1} requests served, not one 429`, { timeout: 60_000 }, async () => {
    const token = await sandboxAdmin(sandbox).newToken('budget-processes');
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: dir.path };
    const args = ['apps', 'list', '--limit', '1', '--json'];
    // One command first teaches the budget the window's size and length.
    const first = await runCli(args, { env });
    expect(first.code, first.stderr).toBe(0);

    const hold = holdBudget(dir.path, token);
    try {
      started.push(...startAllQueued(PROCESSES, hold, () => startQueued(args, env)));
      await Promise.all(started.map((q) => q.waiting));
    } finally {
      hold.release();
    }
    expect(hold.stalled(), `the hold went ${hold.longestGap()} ms without renewal, so it may have lapsed early`).toBe(false);
    const held = (await sandboxAdmin(sandbox).requests()).filter((r) => r.token === 'budget-processes');
    expect(held, 'a request went out while the hold was on').toHaveLength(1);

    // More want a slot at once than the window has: some wait for it to free, none is refused.
    for (const q of started) expect(await q.exited, q.stderr()).toBe(0);
    const mine = (await sandboxAdmin(sandbox).requests()).filter((r) => r.token === 'budget-processes');
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
    expect(mine).toHaveLength(PROCESSES + 1);
  });
});

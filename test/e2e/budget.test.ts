// One budget across processes (issue 13): parallel loops of real hostctl processes with
// one token share the token's window through the state dir. The in-process runs of
// test/cli/budget.test.ts share it on a virtual clock; this is the same promise kept by
// separate processes on the real one, at a size that needs only one wait. Judged from the
// sandbox's own request log; no timing is asserted.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, sandboxAdmin, startSandbox, tmpDir, type RunResult, type Sandbox } from '../support/cli.js';

const LIMIT = 6;
const WINDOW_SECONDS = 3;

let sandbox: Sandbox;
let dir: { path: string; cleanup(): void };

beforeAll(async () => {
  sandbox = await startSandbox(['--rate-limit', String(LIMIT), '--window', String(WINDOW_SECONDS)]);
  dir = tmpDir('hostctl-budget-');
});
afterAll(async () => {
  await sandbox?.stop();
  dir?.cleanup();
});

describe(`one token, ${LIMIT} requests per ${WINDOW_SECONDS}s, separate processes`, () => {
  it('3 parallel loops of 3 commands: every command exits 0, 9 requests served, not one 429', { timeout: 120_000 }, async () => {
    const token = await sandboxAdmin(sandbox).newToken('budget-processes');
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: dir.path };
    const loop = async (): Promise<RunResult[]> => {
      const results: RunResult[] = [];
      for (let i = 0; i < 3; i++) results.push(await runCli(['apps', 'list', '--limit', '1', '--json'], { env, timeoutMs: 60_000 }));
      return results;
    };
    const loops = await Promise.all([loop(), loop(), loop()]);
    for (const r of loops.flat()) expect(r.code, r.stderr).toBe(0);
    const mine = (await sandboxAdmin(sandbox).requests()).filter((r) => r.token === 'budget-processes');
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
    expect(mine).toHaveLength(9);
  });
});

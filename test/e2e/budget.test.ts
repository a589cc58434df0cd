// One budget across processes (issue 13): real hostctl processes with one token share the
// token's window through the state dir. The in-process runs of test/cli/budget.test.ts
// share it on a virtual clock, in parallel loops; this is the same promise kept by
// separate processes on the real clock. So that more of them want a slot at once than
// the window holds, however slowly they start on a busy machine, they are held until all
// have queued (test/support/budget-hold.ts) and then let go together. Judged from the
// sandbox's own request log; no timing is asserted.

import { describe, expect } from 'vitest';
import { heldBudgetTest, heldRetry, HoldLapsed, queueUnderHold, startAllQueued, type Queued } from '../support/budget-hold.js';
import { sandboxAdmin } from '../support/cli.js';

const LIMIT = 3;
const WINDOW_SECONDS = 1;
// More than the window has left after the first command.
const PROCESSES = 4;

const test = heldBudgetTest({ sandbox: ['--rate-limit', String(LIMIT), '--window', String(WINDOW_SECONDS)] });

describe(`one token, ${LIMIT} requests per ${WINDOW_SECONDS}s, separate processes`, () => {
  test(`${PROCESSES} processes let go at once: every command exits 0, ${PROCESSES + 1} requests served, not one 429`, { timeout: 120_000 }, async ({ sandbox, hostctl, newDir, queue }) => {
    const admin = sandboxAdmin(sandbox);
    const args = ['apps', 'list', '--limit', '1', '--json'];
    const { name, queued } = await heldRetry(async (holdMs) => {
      // Each attempt afresh: its own token (its own window at the sandbox) and config dir.
      const name = `budget-${holdMs}`;
      const token = await admin.newToken(name);
      const dir = newDir('hostctl-budget-');
      const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: dir };
      // One command first teaches the budget the window's size and length.
      const first = await hostctl(args, env);
      expect(first.code, first.stderr).toBe(0);
      const queued: Queued[] = [];
      await queueUnderHold(dir, token, holdMs, async (hold, track) => {
        queued.push(...startAllQueued(PROCESSES, hold, () => track(queue(args, env))));
        await Promise.all(queued.map((q) => q.waiting));
      });
      const held = (await admin.requests()).filter((r) => r.token === name);
      if (held.length !== 1) throw new HoldLapsed(`a request went out while the hold was on: ${held.length - 1} of them`);
      return { name, queued };
    });

    // More want a slot at once than the window has: some wait for it to free, none is refused.
    for (const q of queued) expect(await q.exited, q.stderr()).toBe(0);
    const mine = (await admin.requests()).filter((r) => r.token === name);
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
    expect(mine).toHaveLength(PROCESSES + 1);
  });
});

// Issue 29: the first requests into a window someone else spent. The budget of a fresh
// state dir knows nothing of the server's window; one request goes first (a probe) and
// the others wait for its answer, then share what it says is left.
describe('a window another client spent, a fresh state dir, separate processes', () => {
  const PROBE_LIMIT = 3;
  const PARALLEL = 3;

  test(`one request left, ${PARALLEL} processes let go at once: every command exits 0, not one 429`, { timeout: 180_000 }, async ({ sandboxes, newDir, queue }) => {
    const args = ['apps', 'list', '--limit', '1', '--json'];
    const { admin, name, queued } = await heldRetry(async (holdMs) => {
      // The other client spends its requests just before the hold ends: the window need only
      // outlast the hold's lapse, longer with a longer hold (a busier machine).
      const windowMs = Math.max(2_000, 4 * holdMs);
      const slow = await sandboxes(['--rate-limit', String(PROBE_LIMIT), '--window', String(windowMs / 1000)]);
      const admin = sandboxAdmin(slow);
      const name = `probe-${holdMs}`;
      const token = await admin.newToken(name);
      const dir = newDir('hostctl-budget-fresh-');
      const env = { HOSTCTL_BASE_URL: slow.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: dir };
      const queued: Queued[] = [];
      await queueUnderHold(dir, token, holdMs, async (hold, track) => {
        queued.push(...startAllQueued(PARALLEL, hold, () => track(queue(args, env))));
        await Promise.all(queued.map((q) => q.waiting));
        // Another client with the same token, not hostctl, spends all but one request at once.
        const spent = await Promise.all(
          Array.from({ length: PROBE_LIMIT - 1 }, () => fetch(`${slow.baseUrl}/apps?limit=1`, { headers: { authorization: `Bearer ${token}` } })),
        );
        for (const r of spent) expect(r.status).toBe(200);
        await Promise.all(spent.map((r) => r.arrayBuffer()));
      });
      const held = (await admin.requests()).filter((r) => r.token === name);
      if (held.length !== PROBE_LIMIT - 1) throw new HoldLapsed(`a request went out while the hold was on: ${held.length - (PROBE_LIMIT - 1)} of them`);
      for (const q of queued) await q.exited;
      // The premise: the first of them found the other client's requests still in the window.
      const at = (await admin.requests()).filter((r) => r.token === name).map((r) => Date.parse(r.at));
      const late = at[PROBE_LIMIT - 1]! - at[0]!;
      if (late >= windowMs) throw new HoldLapsed(`the processes sent ${late} ms after the other client, past its window of ${windowMs} ms`);
      return { admin, name, queued };
    });

    for (const q of queued) expect(await q.exited, q.stderr()).toBe(0);
    const mine = (await admin.requests()).filter((r) => r.token === name);
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
    expect(mine).toHaveLength(PROBE_LIMIT - 1 + PARALLEL);
  });
});

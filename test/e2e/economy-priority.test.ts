// Interactive commands go first in the shared budget (issue 13), end to end: batch
// commands queue for a window of one request, some before an interactive command and
// some after it (left alone, whichever wakes first takes the slot); the interactive one
// gets the next free slot. Real processes race for the real budget file.
//
// The test holds the budget shut for as long as the processes take to start and queue,
// however long that is on a busy machine (test/support/budget-hold.ts), then lets go: the
// slot frees for everyone at once. So the sandbox's window is one second, the test waits
// for events (each process's "waiting" note, the sandbox's request log), never for a
// time, and it asserts the order.

import { describe, expect } from 'vitest';
import { heldBudgetTest, heldRetry, HoldLapsed, queueUnderHold, startAllQueued, type Queued } from '../support/budget-hold.js';
import { sandboxAdmin } from '../support/cli.js';
import type { LocalSandbox } from '../support/sandbox-here.js';

const BATCH = 3;
const LATER = 3;

const test = heldBudgetTest({ sandbox: ['--rate-limit', '1', '--window', '1'] });

const envOf = (sandbox: LocalSandbox, token: string, config: string, interactive: string) => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: config, HOSTCTL_INTERACTIVE: interactive });

describe('interactive commands go first', () => {
  test('an interactive command queued among six batch commands is sent at the next free slot, before all of them', { timeout: 120_000 }, async ({ sandbox, hostctl, newDir, queue }) => {
    const admin = sandboxAdmin(sandbox);
    const { name, person, batch } = await heldRetry(async (holdMs) => {
      // Each attempt afresh: its own token (its own window at the sandbox) and config dir.
      const name = `priority-${holdMs}`;
      const token = await admin.newToken(name);
      const dir = newDir('hostctl-priority-');
      const start = (path: string, interactive: '0' | '1') => queue(['api', path], envOf(sandbox, token, dir, interactive));
      // A batch request fills the window (and teaches the budget its size and length).
      const warm = await hostctl(['api', '/teams'], envOf(sandbox, token, dir, '0'));
      expect(warm.code, warm.stderr).toBe(0);

      let person: Queued | undefined;
      const batch: Queued[] = [];
      await queueUnderHold(dir, token, holdMs, async (hold, track) => {
        // Batch commands queue before the person and after (a loop goes on starting them).
        batch.push(...startAllQueued(BATCH, hold, () => track(start('/teams', '0'))));
        await Promise.all(batch.map((b) => b.waiting));
        person = track(start('/apps', '1'));
        hold.renew();
        await person.waiting;
        const later = startAllQueued(LATER, hold, () => track(start('/teams', '0')));
        await Promise.all(later.map((b) => b.waiting));
        batch.push(...later);
      });
      // The premise: everyone queued while the window still held the warm-up's request alone.
      const before = (await admin.requests()).filter((r) => r.token === name);
      if (before.length !== 1) throw new HoldLapsed(`a request went out while the hold was on: ${before.map((r) => r.path).join(', ')}`);
      return { name, person: person!, batch };
    });

    expect(await person.exited, person.stderr()).toBe(0);
    const after = (await admin.requests()).filter((r) => r.token === name);
    // The person's request is the next one the server saw, with no 429 anywhere.
    expect(after.slice(0, 2).map((r) => r.path)).toEqual(['/v1/teams', '/v1/apps']);
    expect(after.filter((r) => r.status === 429)).toEqual([]);
    for (const b of batch) b.child.kill('SIGTERM');
  });

  test('HOSTCTL_INTERACTIVE takes 1 or 0; anything else is a usage error before sending', async ({ sandbox, config, hostctl }) => {
    const r = await hostctl(['api', '/apps'], envOf(sandbox, sandbox.token, config.path, 'yes'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hostctl: HOSTCTL_INTERACTIVE takes 1 or 0, not "yes"\./);
  });
});

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

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdBudget, startAllQueued, startQueued, type Queued } from '../support/budget-hold.js';
import { runCli, sandboxAdmin, startSandbox, tmpDir, type Sandbox } from '../support/cli.js';

const BATCH = 3;
const LATER = 3;

let sandbox: Sandbox;
let config: { path: string; cleanup(): void };
const started: Queued[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(['--rate-limit', '1', '--window', '1']);
  config = tmpDir('hostctl-priority-');
});
afterAll(async () => {
  for (const q of started) if (q.child.exitCode === null) q.child.kill('SIGKILL');
  await sandbox?.stop();
  config?.cleanup();
});

const env = (interactive: '0' | '1' | string) => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path, HOSTCTL_INTERACTIVE: interactive });

/** Starts `hostctl api PATH`; its `waiting` resolves once it says it waits for the window. */
function start(path: string, interactive: '0' | '1'): Queued {
  const q = startQueued(['api', path], env(interactive));
  started.push(q);
  return q;
}

describe('interactive commands go first', () => {
  it('an interactive command queued among six batch commands is sent at the next free slot, before all of them', { timeout: 60_000 }, async () => {
    const admin = sandboxAdmin(sandbox);
    // A batch request fills the window (and teaches the budget its size and length).
    const warm = await runCli(['api', '/teams'], { env: env('0') });
    expect(warm.code, warm.stderr).toBe(0);

    const hold = holdBudget(config.path, sandbox.token);
    let person: Queued;
    const batch: Queued[] = [];
    try {
      // Batch commands queue before the person and after (a loop goes on starting them).
      batch.push(...startAllQueued(BATCH, hold, () => start('/teams', '0')));
      await Promise.all(batch.map((b) => b.waiting));
      person = start('/apps', '1');
      hold.renew();
      await person.waiting;
      const later = startAllQueued(LATER, hold, () => start('/teams', '0'));
      await Promise.all(later.map((b) => b.waiting));
      batch.push(...later);
    } finally {
      hold.release();
    }
    // The premise: everyone queued while the window still held the warm-up's request alone.
    expect(hold.stalled(), `the hold went ${hold.longestGap()} ms without renewal, so it may have lapsed early`).toBe(false);
    const before = await admin.requests();
    expect(before.map((r) => r.path), 'a request went out while the hold was on').toEqual(['/v1/teams']);

    expect(await person.exited, person.stderr()).toBe(0);
    const after = await admin.requests();
    // The person's request is the next one the server saw, with no 429 anywhere.
    expect(after.slice(0, 2).map((r) => r.path)).toEqual(['/v1/teams', '/v1/apps']);
    expect(after.filter((r) => r.status === 429)).toEqual([]);
    for (const b of batch) b.child.kill('SIGTERM');
  });

  it('HOSTCTL_INTERACTIVE takes 1 or 0; anything else is a usage error before sending', async () => {
    const r = await runCli(['api', '/apps'], { env: env('yes') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hostctl: HOSTCTL_INTERACTIVE takes 1 or 0, not "yes"\./);
  });
});

// Interactive commands go first in the shared budget (issue 13), end to end: batch
// commands queue for a window of one request, some before an interactive command and
// some after it (left alone, whichever wakes first takes the slot); the interactive one
// gets the next free slot. Real processes race for the real budget file.
//
// The test holds the window shut for as long as the processes take to start and queue,
// however long that is on a busy machine: it keeps pushing the budget's `blockedUntil`
// (what a 429 seen by any process sets) a second ahead, under the file's own lock, until
// every process has said it waits; then it lets go, and the slot frees about a second
// later for everyone at once. So the sandbox's window is one second, the test waits for
// events (each process's "waiting" note, the sandbox's request log), never for a time, and
// it asserts the order.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/auth/token.js';
import { updateJsonFileSync } from '../../src/config/atomic.js';
import { BudgetFile } from '../../src/http/budget.js';
import { isRecord } from '../../src/json/narrow.js';
import { BIN, baseEnv, runCli, sandboxAdmin, startSandbox, tmpDir, type Sandbox } from '../support/cli.js';

const BATCH = 3;
const LATER = 3;
/** How far ahead the hold reaches; renewed every RENEW_MS, so it lapses only if this process stalls that long. */
const HOLD_MS = 1_000;
const RENEW_MS = 100;

let sandbox: Sandbox;
let config: { path: string; cleanup(): void };
const children: ChildProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(['--rate-limit', '1', '--window', '1']);
  config = tmpDir('hostctl-priority-');
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await sandbox?.stop();
  config?.cleanup();
});

const env = (interactive: '0' | '1' | string) => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path, HOSTCTL_INTERACTIVE: interactive });

/** Starts `hostctl api PATH`; `waiting` resolves once it says it waits for the window. */
function start(path: string, interactive: '0' | '1') {
  const child = spawn(process.execPath, [BIN, 'api', path], { env: baseEnv(env(interactive)), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  const waiting = new Promise<void>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (/waiting \d+s before sending/.test(stderr)) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, waiting, exited, stderr: () => stderr };
}

/**
 * Keeps every process of this token waiting until release(): its budget file says nothing
 * may be sent before HOLD_MS from now, renewed every RENEW_MS. `stalled` tells whether a
 * renewal came late enough for the hold to have lapsed meanwhile.
 */
function holdBudget(token: string) {
  const path = new BudgetFile(join(config.path, 'state.json'), fingerprint(token)).path;
  const policy = { staleMs: 5_000, waitMs: 5_000, unavailable: () => new Error(`the budget file's lock ${path}.lock stayed taken`) };
  let last = Date.now();
  let stalled = false;
  const renew = () => {
    const now = Date.now();
    if (now - last >= HOLD_MS) stalled = true;
    last = now;
    updateJsonFileSync(path, policy, (raw) => ({ content: { ...(isRecord(raw) ? raw : {}), blockedUntil: now + HOLD_MS }, result: undefined }));
  };
  renew();
  const timer = setInterval(renew, RENEW_MS);
  return {
    release: () => clearInterval(timer),
    stalled: () => stalled,
  };
}

describe('interactive commands go first', () => {
  it('an interactive command queued among six batch commands is sent at the next free slot, before all of them', { timeout: 60_000 }, async () => {
    const admin = sandboxAdmin(sandbox);
    // A batch request fills the window (and teaches the budget its size and length).
    const warm = await runCli(['api', '/teams'], { env: env('0') });
    expect(warm.code, warm.stderr).toBe(0);

    const hold = holdBudget(sandbox.token);
    let person: ReturnType<typeof start>;
    const batch: ReturnType<typeof start>[] = [];
    try {
      // Batch commands queue before the person and after (a loop goes on starting them).
      batch.push(...Array.from({ length: BATCH }, () => start('/teams', '0')));
      await Promise.all(batch.map((b) => b.waiting));
      person = start('/apps', '1');
      await person.waiting;
      const later = Array.from({ length: LATER }, () => start('/teams', '0'));
      await Promise.all(later.map((b) => b.waiting));
      batch.push(...later);
    } finally {
      hold.release();
    }
    // The premise: everyone queued while the window still held the warm-up's request alone.
    expect(hold.stalled(), 'the test process stalled longer than HOLD_MS, so the hold may have lapsed early').toBe(false);
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

// Interactive commands go first in the shared budget (issue 13), end to end: batch
// commands queue for a sandbox window of one request, some before an interactive command
// and some after it (left alone, the last to queue tends to win the race for the slot);
// the interactive one gets the next free slot. The test waits for events (each process's
// "waiting" note, the sandbox's request log), never for a time, and asserts the order.

import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, runCli, sandboxAdmin, startSandbox, tmpDir, type Sandbox } from '../support/cli.js';

/** Long enough for seven processes to start and queue on a busy machine before the first slot frees. */
const WINDOW_S = 15;
const BATCH = 3;
const LATER = 3;

let sandbox: Sandbox;
let config: { path: string; cleanup(): void };
const children: ChildProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(['--rate-limit', '1', '--window', String(WINDOW_S)]);
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

describe('interactive commands go first', () => {
  it('an interactive command queued among six batch commands is sent at the next free slot, before all of them', { timeout: 120_000 }, async () => {
    const admin = sandboxAdmin(sandbox);
    // A batch request fills the window (and teaches the budget its size and length).
    const warm = await runCli(['api', '/teams'], { env: env('0') });
    expect(warm.code, warm.stderr).toBe(0);

    // Batch commands queue before the person and after (a loop goes on starting them).
    const batch = Array.from({ length: BATCH }, () => start('/teams', '0'));
    await Promise.all(batch.map((b) => b.waiting));
    const person = start('/apps', '1');
    await person.waiting;
    const later = Array.from({ length: LATER }, () => start('/teams', '0'));
    await Promise.all(later.map((b) => b.waiting));
    batch.push(...later);
    // The premise: everyone queued while the window still held the warm-up's request alone.
    const before = await admin.requests();
    expect(before.map((r) => r.path), 'the window freed before every command had queued: raise WINDOW_S').toEqual(['/v1/teams']);

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

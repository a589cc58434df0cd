// --watch on get and list (issue 13), in this process: into a pipe, ndjson appends the
// objects that changed as they change; on a terminal the table redraws in place. The run
// and the sandbox share a virtual clock; the test changes the data while hostctl sleeps
// between two rounds (VirtualClock.hold), so every round sees exactly what the test
// planted before it, and a watch of 1-second rounds takes no real time. The watch ends as
// Ctrl-C would end it during that sleep (InterruptedError, exit 130). That a real process
// ends on SIGINT and on Ctrl-C in a pty: test/e2e/watch.test.ts, watch-spinner.test.ts.

import { describe, expect } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import type { Clock } from '../../src/runtime.js';
import { cliTest } from '../support/fixtures.js';
import { runCli, runInPty, sandboxAdmin, type RunResult, type VirtualClock } from '../support/inproc.js';

// Each test a sandbox of its own: a watch's pacing depends on what the window has left.
const test = cliTest()
  .extend('server', ({ sandboxes }) => sandboxes(['--rate-limit', '1000']))
  .extend('env', ({ server, config }) => () => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path, NO_COLOR: '1' }))
  .extend('plant', ({ server }) => (objects: Record<string, unknown>[]): Promise<void> => sandboxAdmin(server).plant('apps', objects))
  .extend('watchRounds', ({ server }) => (run: (clock: Clock) => Promise<RunResult>, between: Array<() => Promise<void>>) => watchRounds(server.clock, run, between));

/**
 * Runs a watch on the sandbox's clock for as many rounds as `between` has steps: after
 * round n (while hostctl sleeps), `between[n - 1]` changes the world; after the last
 * round the user presses Ctrl-C during the sleep.
 */
async function watchRounds(clock: VirtualClock, run: (clock: Clock) => Promise<RunResult>, between: Array<() => Promise<void>>): Promise<{ result: RunResult; sleeps: number[] }> {
  let interrupted = false;
  const sleeps: number[] = [];
  const keyboard: Clock = {
    now: clock.now,
    sleep: async (ms) => {
      sleeps.push(ms);
      await clock.sleep(ms);
      if (interrupted) throw new InterruptedError('Interrupted.');
    },
  };
  let held = clock.hold();
  const running = run(keyboard);
  for (const step of between) {
    await held.reached;
    await step();
    const released = held;
    held = clock.hold();
    released.release();
  }
  await held.reached;
  interrupted = true;
  held.release();
  return { result: await running, sleeps };
}

describe('--watch into a pipe (ndjson)', () => {
  test('get: prints the objects, then only the one that changed, one request per round', async ({ env, plant, watchRounds, server }) => {
    await plant([
      { publicId: 'ap-watchone001', name: 'one', status: 'deploying' },
      { publicId: 'ap-watchtwo001', name: 'two', status: 'running' },
    ]);
    await sandboxAdmin(server).clearRequests();
    const { result: r, sleeps } = await watchRounds(
      (clock) => runCli(['apps', 'get', 'ap-watchone001', 'ap-watchtwo001', '--watch', '--interval', '1s', '-o', 'ndjson'], { env: env(), clock }),
      [
        // Between rounds 1 and 2: one object changes.
        () => plant([{ publicId: 'ap-watchone001', name: 'one', status: 'running' }]),
        // Between rounds 2 and 3: nothing changes.
        async () => undefined,
      ],
    );
    expect(r.code, r.stderr).toBe(130);
    const objects = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { publicId: string; status: string });
    expect(objects.map((o) => [o.publicId, o.status])).toEqual([
      ['ap-watchone001', 'deploying'],
      ['ap-watchtwo001', 'running'],
      ['ap-watchone001', 'running'],
    ]);
    // Three rounds, each one batched request and then the interval asked for.
    expect(sleeps).toEqual([1000, 1000, 1000]);
    const seen = await sandboxAdmin(server).requests();
    expect(seen).toHaveLength(3);
    for (const q of seen) expect(q.query).toBe('publicId[]=ap-watchone001&publicId[]=ap-watchtwo001');
  });

  test('list: a new object is appended, and nothing already printed again', async ({ env, plant, watchRounds, server }) => {
    await plant([{ publicId: 'ap-watchold0001', name: 'old', status: 'running' }]);
    const { result: r } = await watchRounds(
      (clock) => runCli(['apps', 'list', '--all', '--watch', '--interval', '1s', '-o', 'ndjson'], { env: env(), clock }),
      [() => plant([{ publicId: 'ap-watchnew0001', name: 'new' }]), async () => undefined],
    );
    expect(r.code, r.stderr).toBe(130);
    const lines = r.stdout.trimEnd().split('\n');
    const all = (await (await fetch(`${server.origin}/_sandbox/objects/apps`)).json()) as unknown[];
    // The first round printed every app but the new one; the second only the new one; the third nothing.
    expect(lines).toHaveLength(all.length);
    expect(lines.at(-1)).toContain('ap-watchnew0001');
    expect(lines.filter((l) => l.includes('ap-watchold0001'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('ap-watchnew0001'))).toHaveLength(1);
  });
});

describe('--watch on a terminal', () => {
  test('the table redraws in place: the cursor goes back up over the last drawing', async ({ env, plant, watchRounds }) => {
    await plant([{ publicId: 'ap-watchtty001', name: 'tty', status: 'deploying' }]);
    const { result: r } = await watchRounds(
      (clock) => runInPty(['apps', 'get', 'ap-watchtty001', '--watch', '--interval', '1s'], { env: env(), clock }),
      [() => plant([{ publicId: 'ap-watchtty001', name: 'tty', status: 'running' }])],
    );
    expect(r.code).toBe(130);
    // Up to the first line of the last drawing (ESC [ n F), clear to the end (ESC [ J), draw again.
    const m = /deploying[\s\S]*?\u001b\[(\d+)F\u001b\[J([\s\S]*running)/.exec(r.stdout);
    expect(m, JSON.stringify(r.stdout)).not.toBeNull();
    // The first drawing was one object, a line per field: three lines to go back over.
    expect(Number(m![1])).toBe(3);
    expect(m![2]).not.toContain('deploying');
  });

  test('the spinner says when the next poll goes and the budget left, exactly, on the virtual clock', async ({ sandboxes, config }) => {
    // A sandbox of its own: 100 requests a minute, so one poll's share (1.2 s) is below the 2 s asked for.
    const own = await sandboxes(['--rate-limit', '100', '--window', '60']);
    await sandboxAdmin(own).plant('apps', [{ publicId: 'ap-spinwatch001', name: 'spin', status: 'running' }]);
    let interrupted = false;
    const keyboard: Clock = {
      now: own.clock.now,
      sleep: async (ms) => {
        await own.clock.sleep(ms);
        if (interrupted) throw new InterruptedError('Interrupted.');
      },
    };
    const held = own.clock.hold();
    const running = runInPty(['apps', 'get', 'ap-spinwatch001', '--watch', '--interval', '2s'], {
      env: { HOSTCTL_BASE_URL: own.baseUrl, HOSTCTL_TOKEN: own.token, HOSTCTL_CONFIG_DIR: config.path, CI: undefined },
      clock: keyboard,
    });
    expect(await held.reached).toBe(2000);
    interrupted = true;
    held.release();
    const r = await running;
    expect(r.code).toBe(130);
    expect(r.stdout).toContain('Watching 1 app: next poll in 2s, budget 99 requests left (Ctrl-C to stop)');
  });
});

// Issue 42: the shared store's faults, through the built CLI. A reservation Redis will not
// record (another client aborts every WATCH) is one warning and the machine's own budget,
// never a request sent unrecorded (no 429 collected); Redis's clock offset shows in no reset
// figure. Against the sandbox, a real redis-server (test/support/redis.ts) with a second
// client as the other tenant, and a fake RESP server with a clock of its own
// (test/support/resp-server.ts). Judged from the sandbox's request log, exit codes and what
// hostctl prints; no timing is asserted. The faults one run meets whatever the clock (a
// nonsense answer, an ACL without MULTI): test/cli/shared-store-faults.test.ts.

import { describe, expect } from 'vitest';
import { runCli, sandboxAdmin, type RunResult } from '../support/cli.js';
import { fleetTest } from '../support/fleet.js';
import { redisUnavailable, refreshInLoop, startRedis } from '../support/redis.js';
import { startFakeRedis } from '../support/resp-server.js';
import type { LocalSandbox } from '../support/sandbox-here.js';

const skip = redisUnavailable();
if (skip) console.warn(`skipping the fleet fault tests: ${skip}`);

// Plain output: these tests read the warnings' text.
const args = ['apps', 'list', '--limit', '1', '-o', 'tsv'];

// Two requests a window, and a window no test outlives: a third request is a 429 unless the budget holds it back.
// The sandbox is a process of its own, so that this worker is free to keep a refresh loop going.
// eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from its first parameter, an object pattern: `{}` is "nothing".
const test = fleetTest({ sandbox: ['--rate-limit', '2', '--window', '600'], spawnSandbox: true }).extend('redis', { scope: 'file' }, async ({}, { onCleanup }) => {
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  return redis;
});

type Machine = (env: Record<string, string>) => Record<string, string>;

const warnings = (r: RunResult) => r.stderr.match(/warning:/g)?.length ?? 0;

/**
 * Three commands on one machine with a new token: the third with --no-wait. The window
 * holds two: with the budget kept anywhere, the third is held back (exit 5, not sent);
 * sent unrecorded, it collects a 429. `between` runs after the first command.
 */
async function threeCommands({ sandbox, machine }: { sandbox: LocalSandbox; machine: Machine }, name: string, redisUrl: string, between?: () => Promise<void>) {
  const admin = sandboxAdmin(sandbox);
  const token = await admin.newToken(name);
  const m = machine({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: redisUrl });
  const first = await runCli(args, { env: m });
  await between?.();
  const second = await runCli(args, { env: m });
  const third = await runCli(['--no-wait', ...args], { env: m });
  const sent = (await admin.requests()).filter((q) => q.token === name);
  return { runs: [first, second, third], sent };
}

describe.skipIf(skip !== undefined)('a reservation Redis will not record: one warning, and the machine\'s own budget (no 429)', () => {
  test('another client refreshing the budget key\'s TTL in a loop, which aborts every WATCH', { timeout: 60_000 }, async ({ sandbox, machine, redis }) => {
    let loop: Awaited<ReturnType<typeof refreshInLoop>> | undefined;
    try {
      const { runs, sent } = await threeCommands({ sandbox, machine }, 'faults-refreshed', redis.url, async () => {
        // Every key the first command left (whatever they are named), refreshed without end.
        loop = await refreshInLoop(redis.port, await redis.client().keys('*'));
      });
      const [first, second, third] = runs as [RunResult, RunResult, RunResult];
      expect(first.code, first.stderr).toBe(0);
      expect(warnings(first)).toBe(0);
      expect(second.code, second.stderr).toBe(0);
      expect(warnings(second)).toBe(1);
      expect(second.stderr).toContain(`hostctl: warning: the shared store at 127.0.0.1:${redis.port} cannot be used (`);
      expect(third.code, third.stderr).toBe(5);
      expect(warnings(third)).toBe(1);
      expect(sent.filter((q) => q.status === 429)).toEqual([]);
      expect(sent).toHaveLength(2);
    } finally {
      await loop?.stop();
    }
  });
});

describe.skipIf(skip !== undefined)('a Redis whose clock is a day ahead', () => {
  test('shows in no reset figure: -R and rate-limit --json say what the server said', { timeout: 60_000 }, async ({ sandboxes, machine }) => {
    const ahead = await startFakeRedis({ now: () => Date.now() + 86_400_000 });
    const minute = await sandboxes(['--rate-limit', '20', '--window', '60']);
    try {
      const env = machine({ HOSTCTL_BASE_URL: minute.baseUrl, HOSTCTL_TOKEN: minute.token, HOSTCTL_REDIS_URL: ahead.url });
      const r = await runCli(['-R', ...args], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('warning');
      const secs = Number(/resets in (\d+)s/.exec(r.stderr)?.[1]);
      expect(secs).toBeGreaterThan(0);
      expect(secs).toBeLessThanOrEqual(60);
      const json = await runCli(['rate-limit', '--json'], { env });
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as { resetInSeconds: number; resetAt: string; seenAt: string };
      expect(report.resetInSeconds).toBeGreaterThan(0);
      expect(report.resetInSeconds).toBeLessThanOrEqual(60);
      expect(Math.abs(Date.parse(report.seenAt) - Date.now())).toBeLessThan(60_000);
    } finally {
      await ahead.close();
    }
  });
});

// Issue 42: the shared store's faults, on one machine. A reservation Redis will not record
// is one warning and the machine's own budget, never a request sent unrecorded (no 429
// collected); a user whose ACL refuses MULTI writes nothing. In-process
// (test/support/inproc.ts), against the sandbox, a real redis-server (test/support/redis.ts)
// and a fake RESP server for the answers a real one never gives (test/support/resp-server.ts).
// test/e2e/fleet-faults.test.ts keeps what needs the real clock or this worker free: a
// Redis whose clock is a day ahead, and one whose every WATCH another client aborts.

import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { sandboxAdmin, type RunResult } from '../support/inproc.js';
import { redisUnavailable, startRedis } from '../support/redis.js';
import { reply, startFakeRedis, type FakeRedisOptions } from '../support/resp-server.js';

const skip = redisUnavailable();
if (skip) console.warn(`skipping the shared store's fault tests: ${skip}`);

// Plain output: these tests read the warnings' and errors' text.
const args = ['apps', 'list', '--limit', '1', '-o', 'tsv'];

// Two requests a window, and a window no test outlives: a third request is a 429 unless the budget holds it back.
const test = cliTest({ sandbox: ['--rate-limit', '2', '--window', '600'] }).extend('admin', ({ sandbox }) => sandboxAdmin(sandbox));

const warnings = (r: RunResult) => r.stderr.match(/warning:/g)?.length ?? 0;

const nonsense: [string, FakeRedisOptions['answer']][] = [
  ['a Redis whose EXEC is always nil', (cmd) => (cmd[0] === 'EXEC' ? reply.array(null) : undefined)],
  ['a Redis whose TIME is not a number (once connected)', (cmd, n) => (cmd[0] === 'TIME' && n > 0 ? reply.array([reply.bulk('noon'), reply.bulk('x')]) : undefined)],
  ['a Redis whose GET answers an integer', (cmd) => (cmd[0] === 'GET' ? reply.int(42) : undefined)],
];

describe('a reservation Redis will not record: one warning, and the machine\'s own budget (no 429)', () => {
  for (const [what, answer] of nonsense) {
    // Three commands with a new token, the third with --no-wait. The window holds two: with the
    // budget kept anywhere, the third is held back (exit 5, not sent); sent unrecorded, it collects a 429.
    test(what, async ({ sandbox, admin, hostctl }) => {
      const fake = await startFakeRedis({ answer });
      try {
        const name = `faults-${nonsense.findIndex(([w]) => w === what)}`;
        const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: await admin.newToken(name), HOSTCTL_REDIS_URL: fake.url };
        const runs = [await hostctl(args, env), await hostctl(args, env), await hostctl(['--no-wait', ...args], env)];
        const [first, second, third] = runs as [RunResult, RunResult, RunResult];
        for (const r of [first, second]) expect(r.code, r.stderr).toBe(0);
        expect(third.code, third.stderr).toBe(5);
        for (const r of runs) expect(warnings(r), r.stderr).toBe(1);
        expect(first.stderr).toContain(`hostctl: warning: the shared store at 127.0.0.1:${fake.port} cannot be used (`);
        const sent = (await admin.requests()).filter((q) => q.token === name);
        expect(sent.filter((q) => q.status === 429)).toEqual([]);
        expect(sent).toHaveLength(2);
      } finally {
        await fake.close();
      }
    });
  }
});

describe.skipIf(skip !== undefined)('a Redis user whose ACL refuses MULTI', () => {
  test('is one warning on each machine and the machine\'s own budget; nothing reaches Redis', async ({ sandbox, admin, hostctl, newDir }) => {
    const fresh = await startRedis();
    await fresh.client().call('ACL', 'SETUSER', 'ci-no-multi', 'on', '>pw-no-multi-3', '~*', '+@all', '-multi');
    try {
      const token = await admin.newToken('faults-no-multi');
      const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_REDIS_URL: `redis://ci-no-multi:pw-no-multi-3@127.0.0.1:${fresh.port}/0` };
      // One machine, then another with --cache (which claims the entry before it fetches).
      const runs = [await hostctl(args, { ...env, HOSTCTL_CONFIG_DIR: newDir() }), await hostctl([...args, '--cache', '1m'], { ...env, HOSTCTL_CONFIG_DIR: newDir() })];
      for (const r of runs) {
        expect(r.code, r.stderr).toBe(0);
        expect(warnings(r), r.stderr).toBe(1);
        expect(r.stderr).toContain('multi');
        expect(r.stderr).not.toContain('pw-no-multi-3');
      }
      // No reservation, probe or cache claim written outside a transaction for the other machines to wait on.
      expect(await fresh.dump()).toEqual([]);
    } finally {
      await fresh.stop();
    }
  });
});

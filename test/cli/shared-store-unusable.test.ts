// Issues 26 and 42: what one run says when the shared store (HOSTCTL_REDIS_URL) cannot be
// used, and that it goes on with the machine's own budget unless HOSTCTL_REDIS_REQUIRED=1.
// A run's own words and exit code: in-process (test/support/inproc.ts), against a real
// redis-server (test/support/redis.ts) or a loopback server that never answers. Machines
// that share a store, and what a library's logger prints, need real processes: those
// stay in test/e2e/fleet*.test.ts.

import { createServer } from 'node:net';
import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { sandboxAdmin } from '../support/inproc.js';
import { freePort, redisUnavailable, startRedis, type RedisServer } from '../support/redis.js';
import { listenLoopback } from '../support/servers.js';

const skip = redisUnavailable();
if (skip) console.warn(`skipping the shared store's fault tests: ${skip}`);

// Plain output: these tests read the warnings' and errors' text (under --json they are JSON lines).
const args = ['apps', 'list', '--limit', '1', '-o', 'tsv'];
const PASSWORD = 'right-horse-battery';

/* eslint-disable no-empty-pattern -- vitest reads what a fixture needs from its first parameter, an object pattern: `{}` is "nothing". */
const test = cliTest({ sandbox: ['--rate-limit', '1000'] })
  .extend('admin', ({ sandbox }) => sandboxAdmin(sandbox))
  /** The sandbox, with a token of the test's own (named `name`): its requests are the test's alone. */
  .extend('tokenEnv', ({ sandbox, admin }) => async (name: string) => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: await admin.newToken(name) }))
  .extend('locked', { scope: 'file' }, async ({}, { onCleanup }): Promise<RedisServer> => {
    const locked = await startRedis(['--requirepass', PASSWORD], { password: PASSWORD });
    onCleanup(() => locked.stop());
    return locked;
  })
  /** A loopback server that accepts connections and never answers: its port. */
  .extend('silent', async ({}, { onCleanup }) => {
    const { port, close } = await listenLoopback(createServer());
    onCleanup(close);
    return port;
  });
/* eslint-enable no-empty-pattern */

const warnings = (stderr: string) => stderr.match(/warning:/g)?.length ?? 0;

describe.skipIf(skip !== undefined)('a Redis', () => {
  test('HOSTCTL_REDIS_REQUIRED=1 and no Redis: exit 6 naming host:port, before any API request', async ({ hostctl, admin, tokenEnv }) => {
    const port = await freePort();
    const r = await hostctl(args, { ...(await tokenEnv('required')), HOSTCTL_REDIS_URL: `redis://127.0.0.1:${port}/0`, HOSTCTL_REDIS_REQUIRED: '1' });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`hostctl: The shared store at 127.0.0.1:${port} cannot be used: connection refused`);
    expect((await admin.requests()).filter((q) => q.token === 'required')).toEqual([]);
  });

  test('a password Redis refuses is a warning that never shows it, also with -v; the right one is used', async ({ hostctl, admin, tokenEnv, locked, newDir }) => {
    const env = await tokenEnv('password');
    const before = new Set((await locked.dump()).map((e) => e.key));
    const wrong = await hostctl(['-v', ...args], { ...env, HOSTCTL_CONFIG_DIR: newDir(), HOSTCTL_REDIS_URL: `redis://:wrong-staple-pw@127.0.0.1:${locked.port}/0` });
    expect(wrong.code, wrong.stderr).toBe(0);
    expect(wrong.stderr).toContain(`the shared store at 127.0.0.1:${locked.port} cannot be used (the password was refused)`);
    expect(wrong.stderr + wrong.stdout).not.toContain('wrong-staple-pw');
    const right = await hostctl(['-v', ...args], { ...env, HOSTCTL_CONFIG_DIR: newDir(), HOSTCTL_REDIS_URL: locked.url });
    expect(right.code, right.stderr).toBe(0);
    expect(right.stderr).not.toContain('warning');
    expect(right.stderr + right.stdout).not.toContain(PASSWORD);
    expect((await locked.dump()).filter((e) => !before.has(e.key)).map((e) => e.key)).toEqual([expect.stringMatching(/:budget$/)]);
    // The password is a secret of the run's sink like the token: data that carries it is masked.
    await admin.plant('apps', [{ publicId: 'ap-echopass01', name: PASSWORD, status: 'running' }]);
    const echoed = await hostctl(['apps', 'get', 'ap-echopass01', '--json'], { ...env, HOSTCTL_CONFIG_DIR: newDir(), HOSTCTL_REDIS_URL: locked.url });
    expect(echoed.code, echoed.stderr).toBe(0);
    expect(echoed.stdout).not.toContain(PASSWORD);
    expect(JSON.parse(echoed.stdout)).toMatchObject({ publicId: 'ap-echopass01', name: '****tery' });
  });

  test('plain redis:// to a host that is not this machine is refused (exit 2) naming rediss://', async ({ hostctl, sandbox }) => {
    const r = await hostctl(args, { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: 'tok_x', HOSTCTL_REDIS_URL: 'redis://:pw-secret@cache.example.invalid:6379/0' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('rediss://cache.example.invalid:6379');
    expect(r.stderr).not.toContain('pw-secret');
  });

  test('rate-limit -R with Redis unreachable: one warning line for the run, exit 0', async ({ hostctl, tokenEnv }) => {
    const port = await freePort();
    const r = await hostctl(['rate-limit', '-R', '-o', 'table'], { ...(await tokenEnv('unreachable')), HOSTCTL_REDIS_URL: `redis://127.0.0.1:${port}/0` });
    expect(r.code, r.stderr).toBe(0);
    expect(warnings(r.stderr)).toBe(1);
    expect(r.stdout).not.toContain('Budget: shared');
  });

  test('a Redis that accepts and never answers, and one out of memory: one warning naming the reason each, exit 0, nothing hangs', async ({ hostctl, tokenEnv, silent, newDir }) => {
    const full = await startRedis(['--maxmemory', '1', '--maxmemory-policy', 'noeviction']);
    try {
      const env = await tokenEnv('unanswered');
      const slow = await hostctl(args, { ...env, HOSTCTL_CONFIG_DIR: newDir(), HOSTCTL_REDIS_URL: `redis://127.0.0.1:${silent}/0` });
      expect(slow.code, slow.stderr).toBe(0);
      expect(slow.stderr).toContain(`hostctl: warning: the shared store at 127.0.0.1:${silent} cannot be used (no answer within 500 ms)`);
      const oom = await hostctl(args, { ...env, HOSTCTL_CONFIG_DIR: newDir(), HOSTCTL_REDIS_URL: full.url });
      expect(oom.code, oom.stderr).toBe(0);
      expect(oom.stderr).toContain(`hostctl: warning: the shared store at 127.0.0.1:${full.port} cannot be used (Redis is out of memory)`);
      expect(warnings(oom.stderr)).toBe(1);
    } finally {
      await full.stop();
    }
  });
});

describe.skipIf(skip !== undefined)('a Redis Cluster URL (?cluster=1)', () => {
  test('a wrong cluster parameter, or one hostctl does not know, is a usage error (exit 2) naming it, before any request', async ({ hostctl, admin, tokenEnv }) => {
    const env = await tokenEnv('cluster-usage');
    const yes = await hostctl(args, { ...env, HOSTCTL_REDIS_URL: 'redis://:pw-usage@127.0.0.1:6379?cluster=yes' });
    expect(yes.code).toBe(2);
    expect(yes.stderr).toContain('hostctl: The Redis URL from HOSTCTL_REDIS_URL has cluster=yes; it must be cluster=1 (a Redis Cluster) or cluster=0.');
    const unknown = await hostctl(args, { ...env, HOSTCTL_REDIS_URL: 'redis://:pw-usage@127.0.0.1:6379?cluster=1&family=6' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('hostctl: The Redis URL from HOSTCTL_REDIS_URL has the parameter "family", which hostctl does not know.');
    for (const r of [yes, unknown]) {
      expect(r.stderr).not.toContain('pw-usage');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await admin.requests()).filter((q) => q.token === 'cluster-usage')).toEqual([]);
  });

  test('a seed that accepts and never answers: one warning naming it, exit 0, nothing hangs', async ({ hostctl, tokenEnv, silent }) => {
    const r = await hostctl(args, { ...(await tokenEnv('cluster-silent')), HOSTCTL_REDIS_URL: `redis://127.0.0.1:${silent}?cluster=1` });
    expect(r.code, r.stderr).toBe(0);
    expect(warnings(r.stderr)).toBe(1);
    expect(r.stderr).toContain(`hostctl: warning: the shared store at 127.0.0.1:${silent} cannot be used (no answer within 500 ms)`);
  });
});

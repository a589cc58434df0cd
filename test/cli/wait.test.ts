// `hostctl <resource> wait` (issue 13) against the sandbox, whose objects change state
// while hostctl waits (planted through its admin endpoint), and the alt server. Counts of
// requests, never timings, are asserted.

import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { runCli, sandboxAdmin, type Sandbox } from '../support/inproc.js';

const test = cliTest({ runOnSandbox: true })
  .extend('runOptions', () => ({ timeoutMs: 60_000 }))
  .extend('plant', ({ sandbox }) => async (objects: Record<string, unknown>[]): Promise<void> => {
    const res = await fetch(`${sandbox.origin}/_sandbox/objects/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(objects) });
    expect(res.ok).toBe(true);
  });

describe('wait', () => {
  test('returns 0 once every object meets the condition, polling all of them in one request per round', { timeout: 60_000 }, async ({ hostctl, sandbox, plant }) => {
    await plant([
      { publicId: 'ap-waitone0001', name: 'one', status: 'deploying' },
      { publicId: 'ap-waittwo0001', name: 'two', status: 'running' },
    ]);
    await sandboxAdmin(sandbox).clearRequests();
    // The change comes while hostctl sleeps after its first round.
    const held = sandbox.clock.hold();
    const waiting = hostctl(['apps', 'wait', 'ap-waitone0001', 'ap-waittwo0001', '--for', 'status=running', '--interval', '1s', '--json']);
    expect(await held.reached).toBeGreaterThanOrEqual(1000);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(1);
    await plant([{ publicId: 'ap-waitone0001', name: 'one', status: 'running' }]);
    held.release();
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { publicId: string; status: string }[];
    expect(out.map((o) => [o.publicId, o.status])).toEqual([
      ['ap-waitone0001', 'running'],
      ['ap-waittwo0001', 'running'],
    ]);
    const seen = await sandboxAdmin(sandbox).requests();
    // Two rounds: the one before the change and the one after it, one request each.
    expect(seen).toHaveLength(2);
    for (const req of seen) {
      expect(req.path).toBe('/v1/apps');
      expect(req.query).toContain('publicId[]=ap-waitone0001');
      expect(req.query).toContain('publicId[]=ap-waittwo0001');
    }
  });

  test('exit 7 when the deadline passes first, naming what was not met', { timeout: 60_000 }, async ({ hostctl, sandbox, plant }) => {
    await plant([{ publicId: 'ap-waitslow001', name: 'slow', status: 'deploying' }]);
    await sandboxAdmin(sandbox).clearRequests();
    const start = sandbox.clock.now();
    const slept = sandbox.clock.sleeps.length;
    const r = await hostctl(['apps', 'wait', 'ap-waitslow001', '--for', 'status=running', '--interval', '2s', '--deadline', '5s']);
    expect(r.code).toBe(7);
    // A poll at 0 s, then one every 2 s or as the token's budget spaces them (6 s for this
    // sandbox's 20 a minute), and the last at the 5 s deadline: a round that would come
    // after it comes at it instead, and exit 7 only after that. The clock moves only by
    // sleeps, each followed by one poll, so the last poll's time is their sum.
    const sleeps = sandbox.clock.sleeps.slice(slept);
    expect(sleeps.length).toBeGreaterThanOrEqual(1);
    expect(sleeps.reduce((a, b) => a + b, 0)).toBe(5000);
    expect(sandbox.clock.now() - start).toBe(5000);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(sleeps.length + 1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^hostctl: The deadline passed before 1 of 1 object met status=running: ap-waitslow001 \(status=deploying\)\./);
  });

  test('remembers the IDs it waited for where completion looks: the next Tab offers them', async ({ sandboxEnv, plant }) => {
    await plant([{ publicId: 'ap-waitseen001', name: 'seen', status: 'running' }]);
    const env = sandboxEnv;
    const before = await runCli(['__complete', 'apps', 'get', ''], { env });
    expect(before.stdout).not.toContain('ap-waitseen001');
    const r = await runCli(['apps', 'wait', 'ap-waitseen001', '--for', 'status=running', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const after = await runCli(['__complete', 'apps', 'get', ''], { env });
    expect(after.code).toBe(0);
    expect(after.stdout.split('\n').map((l) => l.split('\t')[0])).toContain('ap-waitseen001');
  });

  test('!= and dotted fields; several --for must all hold', { timeout: 60_000 }, async ({ hostctl, plant }) => {
    await plant([{ publicId: 'ap-waitnest001', name: 'nest', status: 'running', build: { phase: 'done' } }]);
    const r = await hostctl(['apps', 'wait', 'ap-waitnest001', '--for', 'status!=deploying', '--for', 'build.phase=done', '--json']);
    expect(r.code, r.stderr).toBe(0);
  });

  test('usage errors before any request: no --for, a bad condition, a bad duration', async ({ hostctl, sandbox }) => {
    await sandboxAdmin(sandbox).clearRequests();
    for (const args of [
      ['apps', 'wait', 'ap-waitnest001'],
      ['apps', 'wait', 'ap-waitnest001', '--for', 'running'],
      ['apps', 'wait', 'ap-waitnest001', '--for', 'status=running', '--deadline', 'soon'],
      ['apps', 'wait', 'nope', '--for', 'status=running'],
    ]) {
      const r = await hostctl(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^hostctl: /);
    }
    expect(await sandboxAdmin(sandbox).requests()).toEqual([]);
  });

  test('an ID that does not exist: exit 3 after one request', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'wait', 'ap-waitnone001', '--for', 'status=running']);
    expect(r.code).toBe(3);
  });
});

describe('what --deadline bounds, with the token\'s window spent', () => {
  const spent = async (sandboxes: (flags: string[]) => Promise<Sandbox>) => {
    const small = await sandboxes(['--rate-limit', '1', '--window', '60']);
    await sandboxAdmin(small).plant('apps', [{ publicId: 'ap-waitspent01', name: 'spent', status: 'deploying' }]);
    const env = { HOSTCTL_BASE_URL: small.baseUrl, HOSTCTL_TOKEN: small.token };
    return { small, env };
  };

  test('--help says it: the polling, not a request waiting for the rate limit, which --max-wait bounds', async () => {
    const r = await runCli(['apps', 'wait', '--help']);
    expect(r.code).toBe(0);
    // The flag's line and the lines its description wraps onto, up to the next flag.
    const deadline = (/^ *--deadline <duration> +(.*(?:\n {10,}\S.*)*)/m.exec(r.stdout)?.[1] ?? '').replace(/\s+/g, ' ');
    expect(deadline).toContain('bounds the polling');
    expect(deadline).toContain('--max-wait');
  });

  test('a short deadline: the one round waits for its slot (within --max-wait), is answered, then exit 7', { timeout: 60_000 }, async ({ hostctl, sandboxes }) => {
    const { small, env } = await spent(sandboxes);
    expect((await hostctl(['apps', 'list', '--limit', '1'], env)).code).toBe(0);
    await sandboxAdmin(small).clearRequests();
    const r = await hostctl(['apps', 'wait', 'ap-waitspent01', '--for', 'status=running', '--deadline', '3s'], env);
    expect(r.code, r.stderr).toBe(7);
    expect((await sandboxAdmin(small).requests()).map((q) => q.status)).toEqual([200]);
  });

  test('--max-wait shorter than the window: exit 5 at once, nothing sent', async ({ hostctl, sandboxes }) => {
    const { small, env } = await spent(sandboxes);
    expect((await hostctl(['apps', 'list', '--limit', '1'], env)).code).toBe(0);
    await sandboxAdmin(small).clearRequests();
    const r = await hostctl(['apps', 'wait', 'ap-waitspent01', '--for', 'status=running', '--deadline', '3s', '--max-wait', '3'], env);
    expect(r.code, r.stderr).toBe(5);
    expect(await sandboxAdmin(small).requests()).toEqual([]);
  });
});

describe('wait against the alt server', () => {
  test('a condition already met: exit 0 after one request', async ({ config, alt }) => {
    const server = await alt();
    const apps = await server.all('apps');
    const first = apps[0]!;
    const field = Object.keys(first).find((k) => typeof first[k] === 'string' && k !== 'publicId')!;
    await server.clearRequests();
    const r = await runCli(['apps', 'wait', String(first.publicId), '--for', `${field}=${String(first[field])}`, '--json'], {
      env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await server.requests()).toHaveLength(1);
  });
});

// `hostctl rate-limit` end to end: the last state seen, from the token's budget file, with
// no request; --refresh spends exactly one. The sandbox runs a long window (50 requests per
// 600 s), so the remaining count is exactly the limit minus the requests it logged. Each
// test has a sandbox and a config dir of its own, and makes the requests it counts.

import { describe, expect } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cliTest, type Env } from '../support/fixtures.js';
import { platformOf } from '../support/servers.js';

const LIMIT = 50;
const RATE_LINE = /^Rate limit: (\d+)\/(\d+) requests left, resets in (\d+)s(?: \(this command: \d+ requests?\))?$/m;

interface Report {
  limit: number | null;
  remaining: number | null;
  resetAt: string | null;
  resetInSeconds: number | null;
  seenAt: string | null;
}

const test = cliTest()
  .extend('server', async ({ sandboxes }) => platformOf(await sandboxes(['--rate-limit', String(LIMIT), '--window', '600'])))
  .extend('runEnv', ({ server }): Env => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token }));

describe('hostctl rate-limit against the sandbox', () => {
  test('with no state yet: says so, suggests --refresh, exit 0, no request', async ({ hostctl, server }) => {
    const text = await hostctl(['rate-limit', '-o', 'table']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('Rate limit: unknown (no response seen yet for this token)\n');
    expect(text.stderr).toMatch(/hostctl rate-limit --refresh/);
    const json = await hostctl(['rate-limit', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ limit: null, remaining: null, resetAt: null, resetInSeconds: null, seenAt: null });
    expect(await server.requests()).toHaveLength(0);
  });

  test('after a command, shows the state that command saw, in the -R line format, with no request', async ({ hostctl, server }) => {
    const list = await hostctl(['apps', 'list', '--limit', '1', '-R']);
    expect(list.code).toBe(0);
    const seen = RATE_LINE.exec(list.stderr);
    expect(seen?.slice(1, 3)).toEqual([String(LIMIT - 1), String(LIMIT)]);

    const text = await hostctl(['rate-limit', '-o', 'table']);
    expect(text.code).toBe(0);
    const [line, second] = text.stdout.split('\n');
    expect(RATE_LINE.exec(line ?? '')?.slice(1, 3)).toEqual([String(LIMIT - 1), String(LIMIT)]);
    expect(second).toMatch(/^Seen \d+s ago \(\d{4}-\d\d-\d\dT[\d:.]+Z\)\.$/);

    const r = await hostctl(['rate-limit', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report).toMatchObject({ limit: LIMIT, remaining: LIMIT - 1 });
    expect(Date.parse(report.resetAt ?? '')).toBeGreaterThan(Date.parse(report.seenAt ?? ''));
    expect(report.resetInSeconds).toBeGreaterThan(0);
    expect(report.resetInSeconds).toBeLessThanOrEqual(600);
    // Only the list reached the server.
    expect(await server.requests()).toHaveLength(1);
  });

  test('--refresh spends exactly one request and shows what it brought', async ({ hostctl, server }) => {
    expect((await hostctl(['apps', 'list', '--limit', '1', '--json'])).code).toBe(0);
    await server.clearRequests();
    const r = await hostctl(['rate-limit', '--refresh', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ limit: LIMIT, remaining: LIMIT - 2 });
    expect(await server.requests()).toHaveLength(1);
  });

  test('piped: one tsv row; -R on rate-limit itself agrees', async ({ hostctl }) => {
    for (let i = 0; i < 2; i++) expect((await hostctl(['apps', 'list', '--limit', '1', '--json'])).code).toBe(0);
    const r = await hostctl(['rate-limit', '-R']);
    expect(r.code).toBe(0);
    const cells = r.stdout.trimEnd().split('\t');
    expect(cells).toHaveLength(5);
    expect(cells.slice(0, 2)).toEqual([String(LIMIT), String(LIMIT - 2)]);
    expect(cells[2]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(RATE_LINE.exec(r.stderr)?.slice(1, 3)).toEqual([String(LIMIT - 2), String(LIMIT)]);
  });

  test('the state is kept per token: another token has none', async ({ hostctl, server }) => {
    expect((await hostctl(['apps', 'list', '--limit', '1', '--json'])).code).toBe(0);
    expect(JSON.parse((await hostctl(['rate-limit', '--json'])).stdout)).toMatchObject({ remaining: LIMIT - 1 });
    const res = await fetch(`${new URL(server.baseUrl).origin}/_sandbox/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'second' }),
    });
    const { token } = (await res.json()) as { token: string };
    const r = await hostctl(['rate-limit', '--json'], { HOSTCTL_TOKEN: token });
    expect(JSON.parse(r.stdout)).toMatchObject({ remaining: null });
  });

  test('a run that learnt nothing but the rate state leaves the state file alone; the rate state moves on', async ({ hostctl, config }) => {
    const state = join(config.path, 'state.json');
    expect((await hostctl(['apps', 'list', '--limit', '1', '--json'])).code).toBe(0);
    const before = statSync(state);
    const content = readFileSync(state, 'utf8');
    // The same IDs, names and fields again: nothing to save but the rate state.
    expect((await hostctl(['apps', 'list', '--limit', '1', '--json'])).code).toBe(0);
    const after = statSync(state);
    expect([after.ino, after.size]).toEqual([before.ino, before.size]);
    expect(readFileSync(state, 'utf8')).toBe(content);
    expect(content).not.toContain('rateLimits');
    const r = await hostctl(['rate-limit', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ limit: LIMIT, remaining: LIMIT - 2 });
  });

  test('a token the API rejected: exit 4, no request', async ({ hostctl, server }) => {
    const env = { HOSTCTL_TOKEN: 'hsb_rejected_token' };
    expect((await hostctl(['api', '/apps'], env)).code).toBe(4);
    await server.clearRequests();
    const r = await hostctl(['rate-limit', '--refresh'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/will not send it again/);
    expect(await server.requests()).toHaveLength(0);
  });

  test('no token at all: nothing is sent, so no failure (exit 0, saying so); --refresh needs one (exit 4)', async ({ hostctl, server, config }) => {
    const env = { HOSTCTL_TOKEN: undefined, HOME: config.path, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' };
    const r = await hostctl(['rate-limit', '-o', 'table'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^No token for this run can be read/);
    expect(r.stdout).toBe('Rate limit: unknown (no state seen on this machine yet)\n');
    const refresh = await hostctl(['rate-limit', '--refresh'], env);
    expect(refresh.code).toBe(4);
    expect(refresh.stdout).toBe('');
    expect(await server.requests()).toHaveLength(0);
  });
});

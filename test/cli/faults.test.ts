// Broken networks and broken servers, end to end (issue 8): hostctl run in-process
// (test/support/inproc.ts) against loopback servers that misbehave on purpose (test/support/hostile-server.ts).
// Every fault ends with the contract's exit code and one or two plain sentences on stderr:
// no stack trace, no token, no hang, and bounded memory for a huge body.
// The same faults against the HTTP core in-process: test/unit/http-client.test.ts.

import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import type { RunResult } from '../support/inproc.js';
import { behaviours, closedPort, expectCleanFailure, huge, type Behaviour, type HostileServer } from '../support/hostile-server.js';

const TOKEN = 'hct_e2e_FAULTS_secret_token_7q2w';

const test = cliTest()
  .extend('runEnv', () => ({ HOSTCTL_TOKEN: TOKEN }))
  .extend('list', ({ hostctl }) => (baseUrl: string, extra: string[] = [], timeoutMs?: number): Promise<RunResult> =>
    hostctl(['apps', 'list', '--base-url', baseUrl, ...extra], {}, { timeoutMs }))
  /** `apps list` against a new server that behaves as `behaviour`: the run and that server. */
  .extend('against', ({ list, hostile }) => async (behaviour: Behaviour, extra: string[] = [], timeoutMs?: number): Promise<RunResult & { server: HostileServer }> => {
    const server = await hostile(behaviour);
    return { ...(await list(server.baseUrl, extra, timeoutMs)), server };
  });

describe('network faults: exit 6', () => {
  test('connection refused', async ({ list }) => {
    const port = await closedPort();
    const r = await list(`http://127.0.0.1:${port}/v1`);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toContain(`127.0.0.1:${port}: connection refused`);
  });

  test('connection reset mid-response', async ({ against }) => {
    const r = await against(behaviours.resetMidResponse);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toMatch(/broke off before the whole response had arrived/);
    // Not retried: a GET that failed half-way is reported, not hammered.
    expect(r.server.seen).toHaveLength(1);
  });

  test('a server that never answers: --timeout ends the command (the runner kills it after 20 s, so a hang fails the test)', async ({ against }) => {
    const r = await against(behaviours.neverAnswers, ['--timeout', '0.2'], 20_000);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toMatch(/No answer from 127\.0\.0\.1:\d+ within 0\.2s\.\nRaise --timeout/);
    expect(r.server.seen).toHaveLength(1);
  });

  test('DNS failure (a host under .invalid never resolves)', async ({ list }) => {
    const r = await list('https://api.example.invalid/v1');
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toMatch(/api\.example\.invalid: the DNS (lookup failed|server did not answer)/);
  });
});

describe('broken responses: exit 1', () => {
  test('an HTML 502 page is named, never echoed', async ({ against }) => {
    const r = await against(behaviours.html502);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/502 Bad Gateway/);
    expect(r.stderr).toMatch(/an HTML error page/);
    expect(r.stderr).not.toMatch(/<|script|alert/);
  });

  test('truncated JSON', async ({ against }) => {
    const r = await against(behaviours.truncatedJson);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/invalid or incomplete JSON/);
  });

  test('invalid JSON', async ({ against }) => {
    const r = await against(behaviours.invalidJson);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/invalid or incomplete JSON/);
    expect(r.stderr).not.toContain('NaN');
  });

  test('an empty 200 body', async ({ against }) => {
    const r = await against(behaviours.empty200);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/empty response/);
  });

  test('a 200 with the wrong content type', async ({ against }) => {
    const r = await against(behaviours.wrongContentType);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/not JSON \(text\/plain\)/);
  });
});

describe('a huge response (50 MB, streamed without Content-Length)', () => {
  // Its memory bound, measured on the real process: test/e2e/process.test.ts.
  test('exit 1 with a clear message: the client stops reading at its cap', async ({ list, hostile }) => {
    const server = await hostile(huge(50 * 1024 * 1024));
    const r = await list(server.baseUrl);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/more than 32 MiB for GET \/v1\/apps; hostctl stopped reading it/);
  });
});

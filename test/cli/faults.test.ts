// Broken networks and broken servers, end to end (issue 8): hostctl run in-process
// (test/support/inproc.ts) against loopback servers that misbehave on purpose (test/support/hostile-server.ts).
// Every fault ends with the contract's exit code and one or two plain sentences on stderr:
// no stack trace, no token, no hang, and bounded memory for a huge body.
// The same faults against the HTTP core in-process: test/unit/http-client.test.ts.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tmpDir, type RunResult } from '../support/inproc.js';
import {
  behaviours,
  closedPort,
  expectCleanFailure,
  huge,
  NO_PROXY_ENV,
  startHostile,
  type Behaviour,
  type HostileServer,
} from '../support/hostile-server.js';

const TOKEN = 'hct_e2e_FAULTS_secret_token_7q2w';

let config: { path: string; cleanup(): void };
let server: HostileServer | undefined;

beforeEach(() => {
  config = tmpDir('hostctl-faults-');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  config.cleanup();
});

const env = () => ({ ...NO_PROXY_ENV, HOSTCTL_TOKEN: TOKEN, HOSTCTL_CONFIG_DIR: config.path });

function list(baseUrl: string, extra: string[] = [], timeoutMs?: number): Promise<RunResult> {
  return runCli(['apps', 'list', '--base-url', baseUrl, ...extra], { env: env(), timeoutMs });
}

async function against(behaviour: Behaviour, extra: string[] = [], timeoutMs?: number): Promise<RunResult> {
  server = await startHostile(behaviour);
  return list(server.baseUrl, extra, timeoutMs);
}

describe('network faults: exit 6', () => {
  it('connection refused', async () => {
    const port = await closedPort();
    const r = await list(`http://127.0.0.1:${port}/v1`);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toContain(`127.0.0.1:${port}: connection refused`);
  });

  it('connection reset mid-response', async () => {
    const r = await against(behaviours.resetMidResponse);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toMatch(/broke off before the whole response had arrived/);
    // Not retried: a GET that failed half-way is reported, not hammered.
    expect(server?.seen).toHaveLength(1);
  });

  it('a server that never answers: --timeout 1 ends the command (the runner kills it after 20 s, so a hang fails the test)', async () => {
    const r = await against(behaviours.neverAnswers, ['--timeout', '1'], 20_000);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toMatch(/No answer from 127\.0\.0\.1:\d+ within 1s; raise --timeout/);
    expect(server?.seen).toHaveLength(1);
  });

  it('DNS failure (a host under .invalid never resolves)', async () => {
    const r = await list('https://api.example.invalid/v1');
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toMatch(/api\.example\.invalid: the DNS (lookup failed|server did not answer)/);
  });
});

describe('broken responses: exit 1', () => {
  it('an HTML 502 page is named, never echoed', async () => {
    const r = await against(behaviours.html502);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/502 Bad Gateway/);
    expect(r.stderr).toMatch(/an HTML error page/);
    expect(r.stderr).not.toMatch(/<|script|alert/);
  });

  it('truncated JSON', async () => {
    const r = await against(behaviours.truncatedJson);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/invalid or incomplete JSON/);
  });

  it('invalid JSON', async () => {
    const r = await against(behaviours.invalidJson);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/invalid or incomplete JSON/);
    expect(r.stderr).not.toContain('NaN');
  });

  it('an empty 200 body', async () => {
    const r = await against(behaviours.empty200);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/empty response/);
  });

  it('a 200 with the wrong content type', async () => {
    const r = await against(behaviours.wrongContentType);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/not JSON \(text\/plain\)/);
  });
});

describe('a huge response (50 MB, streamed without Content-Length)', () => {
  // Its memory bound, measured on the real process: test/e2e/process.test.ts.
  it('exit 1 with a clear message: the client stops reading at its cap', async () => {
    server = await startHostile(huge(50 * 1024 * 1024));
    const r = await list(server.baseUrl);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toMatch(/more than 32 MiB for GET \/v1\/apps; hostctl stopped reading it/);
  });
});

// Errors as data (issue 27): with --json or -o json|ndjson every failure is ONE JSON line on
// stderr, {"error":{code,message,hint,exit,…}}, and nothing else is written there for it.
// Each code of the contract is reached here for real: against the in-process sandbox,
// against a loopback server that answers 500, and against a server that has stopped.
// The interrupted code needs a raw-mode prompt in a real terminal: test/e2e/machine.test.ts.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, sandboxAdmin, startSandbox, tmpDir, type RunResult, type Sandbox } from '../support/inproc.js';
import { answer, closedPort, NO_PROXY_ENV, startHostile } from '../support/hostile-server.js';
import { ERROR_CODES, errorData, ApiError, DeadlineError, NotFoundError, RateLimitError, UsageError } from '../../src/errors.js';

interface ErrorLine {
  code: string;
  message: string;
  hint?: string;
  exit: number;
  [extra: string]: unknown;
}

/** The one JSON error line a failed run wrote: stderr holds that line and nothing else. */
function errorLine(r: RunResult, exit: number): ErrorLine {
  const context = `exit ${r.code}\nstderr: ${r.stderr}`;
  expect(r.code, context).toBe(exit);
  expect(r.stderr.endsWith('\n'), context).toBe(true);
  expect(r.stderr.slice(0, -1), context).not.toContain('\n');
  const parsed = JSON.parse(r.stderr) as { error: ErrorLine };
  expect(Object.keys(parsed)).toEqual(['error']);
  const e = parsed.error;
  expect(e.exit).toBe(exit);
  expect(ERROR_CODES[exit as keyof typeof ERROR_CODES]).toBe(e.code);
  expect(e.message).toMatch(/\S/);
  expect(e.message).not.toMatch(/^hostctl: /);
  return e;
}

let sandbox: Sandbox;
let config: { path: string; cleanup(): void };

beforeAll(async () => {
  sandbox = await startSandbox(['--rate-limit', '2', '--window', '60', '--seed', '3']);
});
afterAll(async () => {
  await sandbox?.stop();
});
beforeEach(() => {
  config?.cleanup();
  config = tmpDir('hostctl-errors-json-');
});

const env = (extra: Record<string, string | undefined> = {}) => ({
  ...NO_PROXY_ENV,
  HOSTCTL_BASE_URL: sandbox.baseUrl,
  HOSTCTL_TOKEN: sandbox.token,
  HOSTCTL_CONFIG_DIR: config.path,
  ...extra,
});

/** Lets the sandbox's window pass, so that each test starts with its budget full. */
const freshWindow = () => sandbox.clock.advance(61_000);

describe('each code of the contract, as one JSON line', () => {
  it('usage: the argument parser own errors, under --json and -o ndjson, with a hint', async () => {
    const r = await runCli(['apps', 'list', '--bogus', '--json'], { env: env() });
    const e = errorLine(r, 2);
    expect(e).toMatchObject({ code: 'usage', message: "unknown option '--bogus'", hint: 'Run "hostctl --help" (or "hostctl <command> --help") for usage.' });
    const ndjson = errorLine(await runCli(['-o', 'ndjson', 'apps', 'nosuchverb'], { env: env() }), 2);
    expect(ndjson.code).toBe('usage');
    // Without --json the same error stays text.
    const text = await runCli(['apps', 'list', '--bogus'], { env: env() });
    expect(text.stderr).toMatch(/^hostctl: unknown option '--bogus'\n/);
  });

  it('usage: hostctl own checks (a wrong ID prefix), no request sent', async () => {
    await sandboxAdmin(sandbox).clearRequests();
    const e = errorLine(await runCli(['apps', 'get', 'en-12345', '--output=json'], { env: env() }), 2);
    expect(e.code).toBe('usage');
    expect(e.message).toContain('en-12345');
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });

  it('not_found: several IDs, some missing: the found ones on stdout, the missing in ids', async () => {
    freshWindow();
    const [first] = JSON.parse((await runCli(['apps', 'list', '--json', '--limit', '1'], { env: env() })).stdout) as { publicId: string }[];
    const r = await runCli(['apps', 'get', String(first?.publicId), 'ap-nothere01', '--json'], { env: env() });
    const e = errorLine(r, 3);
    expect(e).toMatchObject({ code: 'not_found', ids: ['ap-nothere01'] });
    expect((JSON.parse(r.stdout) as { publicId: string }[]).map((a) => a.publicId)).toEqual([first?.publicId]);
  });

  it('auth: a token the platform rejects, and then the lockout guard', async () => {
    freshWindow();
    const e = errorLine(await runCli(['apps', 'list', '--json'], { env: env({ HOSTCTL_TOKEN: 'hct_not_a_real_token_9z8y' }) }), 4);
    expect(e.code).toBe('auth');
    expect(e.hint).toMatch(/auth login/);
    // The message is scrubbed like any other output.
    expect(JSON.stringify(e)).not.toContain('hct_not_a_real_token_9z8y');
    const again = errorLine(await runCli(['apps', 'list', '-o', 'json'], { env: env({ HOSTCTL_TOKEN: 'hct_not_a_real_token_9z8y' }) }), 4);
    expect(again.message).toMatch(/will not send it again/);
  });

  it('rate_limited: --no-wait once the window is spent, with retryAfter in seconds', async () => {
    freshWindow();
    for (let i = 0; i < 2; i++) expect((await runCli(['apps', 'list', '--json', '--limit', '1'], { env: env() })).code).toBe(0);
    const e = errorLine(await runCli(['apps', 'list', '--json', '--no-wait'], { env: env() }), 5);
    expect(e.code).toBe('rate_limited');
    expect(typeof e.retryAfter).toBe('number');
    expect(e.retryAfter).toBeGreaterThan(0);
    expect(e.retryAfter).toBeLessThanOrEqual(61);
  });

  it('deadline: wait gives up, and unmet names each object with the values it had', async () => {
    freshWindow();
    await sandboxAdmin(sandbox).plant('apps', [{ publicId: 'ap-waitjson01', name: 'w', status: 'deploying' }]);
    const r = await runCli(['apps', 'wait', 'ap-waitjson01', '--for', 'status=running', '--deadline', '30s', '--interval', '10s', '--json'], { env: env() });
    const e = errorLine(r, 7);
    expect(e.code).toBe('deadline');
    expect(e.unmet).toEqual({ 'ap-waitjson01': { status: 'deploying' } });
    expect(r.stdout).toBe('');
  });

  it('api: a 500 from the server, with its status', async () => {
    const server = await startHostile(answer(500, { 'content-type': 'application/json' }, '{"message":"boom"}'));
    try {
      const e = errorLine(await runCli(['apps', 'list', '--json', '--base-url', server.baseUrl], { env: env() }), 1);
      expect(e).toMatchObject({ code: 'api', status: 500 });
    } finally {
      await server.close();
    }
  });

  it('network: a server that has stopped', async () => {
    const port = await closedPort();
    const e = errorLine(await runCli(['apps', 'list', '--json', '--base-url', `http://127.0.0.1:${port}/v1`], { env: env() }), 6);
    expect(e.code).toBe('network');
    expect(e.message).toContain(`127.0.0.1:${port}`);
  });

  it('warnings are JSON lines too', async () => {
    freshWindow();
    const r = await runCli(['apps', 'list', '--json', '--limit', '2', '--fields', 'publicId,nosuchfield'], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const w = JSON.parse(lines[0] ?? '') as { warning: { message: string } };
    expect(w.warning.message).toContain('nosuchfield');
  });
});

describe('errorData: the one mapping from error class to code, exit and members', () => {
  it('maps each class with its members, and anything else to an unexpected api error', () => {
    expect(errorData(new UsageError('bad', 'do this'))).toEqual({ code: 'usage', message: 'bad', hint: 'do this', exit: 2 });
    expect(errorData(new NotFoundError('nf', undefined, { ids: ['ap-1'] }))).toEqual({ code: 'not_found', message: 'nf', exit: 3, ids: ['ap-1'] });
    expect(errorData(new RateLimitError('rl', undefined, { retryAfter: 12 }))).toEqual({ code: 'rate_limited', message: 'rl', exit: 5, retryAfter: 12 });
    expect(errorData(new ApiError('api', undefined, { status: 502 }))).toEqual({ code: 'api', message: 'api', exit: 1, status: 502 });
    expect(errorData(new DeadlineError('dl', undefined, { unmet: { 'ap-1': { status: 'x' } } }))).toEqual({ code: 'deadline', message: 'dl', exit: 7, unmet: { 'ap-1': { status: 'x' } } });
    expect(errorData(new TypeError('oops'))).toEqual({ code: 'api', message: 'unexpected error: oops', exit: 1 });
    expect(new Set(Object.values(ERROR_CODES)).size).toBe(Object.keys(ERROR_CODES).length);
  });
});

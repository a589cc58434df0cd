// Errors as data (issue 27): with --json or -o json|ndjson every failure is ONE JSON line on
// stderr, {"error":{code,message,hint,exit,…}}, and nothing else is written there for it.
// Each code of the contract is reached here for real: against the in-process sandbox,
// against a loopback server that answers 500, and against a server that has stopped.
// The interrupted code needs a raw-mode prompt in a real terminal: test/e2e/machine.test.ts.

import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { sandboxAdmin, type RunResult, type Sandbox } from '../support/inproc.js';
import { answer, behaviours, closedPort, startHostile } from '../support/hostile-server.js';
import { opensslUnavailable, selfSignedCert } from '../support/tls.js';
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

const test = cliTest({ sandbox: ['--rate-limit', '2', '--window', '60', '--seed', '3'], runOnSandbox: true });

/** Lets the sandbox's window pass, so that each test starts with its budget full. */
const freshWindow = (sandbox: Sandbox) => sandbox.clock.advance(61_000);

describe('each code of the contract, as one JSON line', () => {
  test('usage: the argument parser own errors, under --json and -o ndjson, with a hint', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'list', '--bogus', '--json']);
    const e = errorLine(r, 2);
    expect(e).toMatchObject({ code: 'usage', message: "unknown option '--bogus'", hint: 'Run "hostctl --help" (or "hostctl <command> --help") for usage.' });
    const ndjson = errorLine(await hostctl(['-o', 'ndjson', 'apps', 'nosuchverb']), 2);
    expect(ndjson.code).toBe('usage');
    // Without --json the same error stays text.
    const text = await hostctl(['apps', 'list', '--bogus']);
    expect(text.stderr).toMatch(/^hostctl: unknown option '--bogus'\n/);
  });

  test('usage: hostctl own checks (a wrong ID prefix), no request sent', async ({ hostctl, sandbox }) => {
    await sandboxAdmin(sandbox).clearRequests();
    const e = errorLine(await hostctl(['apps', 'get', 'en-12345', '--output=json']), 2);
    expect(e.code).toBe('usage');
    expect(e.message).toContain('en-12345');
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });

  test('not_found: several IDs, some missing: the found ones on stdout, the missing in ids', async ({ hostctl, sandbox }) => {
    freshWindow(sandbox);
    const [first] = JSON.parse((await hostctl(['apps', 'list', '--json', '--limit', '1'])).stdout) as { publicId: string }[];
    const r = await hostctl(['apps', 'get', String(first?.publicId), 'ap-nothere01', '--json']);
    const e = errorLine(r, 3);
    expect(e).toMatchObject({ code: 'not_found', ids: ['ap-nothere01'] });
    expect((JSON.parse(r.stdout) as { publicId: string }[]).map((a) => a.publicId)).toEqual([first?.publicId]);
  });

  test('auth: a token the platform rejects, and then the lockout guard', async ({ hostctl, sandbox }) => {
    freshWindow(sandbox);
    const e = errorLine(await hostctl(['apps', 'list', '--json'], { HOSTCTL_TOKEN: 'hct_not_a_real_token_9z8y' }), 4);
    expect(e.code).toBe('auth');
    expect(e.hint).toMatch(/auth login/);
    // The message is scrubbed like any other output.
    expect(JSON.stringify(e)).not.toContain('hct_not_a_real_token_9z8y');
    const again = errorLine(await hostctl(['apps', 'list', '-o', 'json'], { HOSTCTL_TOKEN: 'hct_not_a_real_token_9z8y' }), 4);
    expect(again.message).toMatch(/will not send it again/);
  });

  test('rate_limited: --no-wait once the window is spent, with retryAfter in seconds', async ({ hostctl, sandbox }) => {
    freshWindow(sandbox);
    for (let i = 0; i < 2; i++) expect((await hostctl(['apps', 'list', '--json', '--limit', '1'])).code).toBe(0);
    const e = errorLine(await hostctl(['apps', 'list', '--json', '--no-wait']), 5);
    expect(e.code).toBe('rate_limited');
    expect(typeof e.retryAfter).toBe('number');
    expect(e.retryAfter).toBeGreaterThan(0);
    expect(e.retryAfter).toBeLessThanOrEqual(61);
  });

  test('deadline: wait gives up, and unmet names each object with the values it had', async ({ hostctl, sandbox }) => {
    freshWindow(sandbox);
    await sandboxAdmin(sandbox).plant('apps', [{ publicId: 'ap-waitjson01', name: 'w', status: 'deploying' }]);
    const r = await hostctl(['apps', 'wait', 'ap-waitjson01', '--for', 'status=running', '--deadline', '30s', '--interval', '10s', '--json']);
    const e = errorLine(r, 7);
    expect(e.code).toBe('deadline');
    expect(e.unmet).toEqual({ 'ap-waitjson01': { status: 'deploying' } });
    expect(r.stdout).toBe('');
  });

  test('api: a 500 from the server, with its status', async ({ hostctl, hostile }) => {
    const server = await hostile(answer(500, { 'content-type': 'application/json' }, '{"message":"boom"}'));
    const e = errorLine(await hostctl(['apps', 'list', '--json', '--base-url', server.baseUrl]), 1);
    expect(e).toMatchObject({ code: 'api', status: 500 });
  });

  test('network: a server that has stopped', async ({ hostctl }) => {
    const port = await closedPort();
    const e = errorLine(await hostctl(['apps', 'list', '--json', '--base-url', `http://127.0.0.1:${port}/v1`]), 6);
    expect(e.code).toBe('network');
    expect(e.message).toContain(`127.0.0.1:${port}`);
  });

  describe('network: every kind carries a hint, the next step to take', () => {
    const network = async (run: Promise<RunResult>): Promise<ErrorLine> => {
      const e = errorLine(await run, 6);
      expect(e.code).toBe('network');
      expect(e.hint, e.message).toMatch(/\S/);
      return e;
    };

    test('connection refused', async ({ hostctl }) => {
      const port = await closedPort();
      const e = await network(hostctl(['apps', 'list', '--json', '--base-url', `http://127.0.0.1:${port}/v1`]));
      expect(e.hint).toMatch(/server running.*base URL/);
    });

    test('a host name that does not resolve (.invalid)', async ({ hostctl }) => {
      await network(hostctl(['apps', 'list', '--json', '--base-url', 'https://api.example.invalid/v1']));
    });

    test('no answer within --timeout', async ({ hostctl, hostile }) => {
      const server = await hostile(behaviours.neverAnswers);
      const e = await network(hostctl(['apps', 'list', '--json', '--timeout', '0.2', '--base-url', server.baseUrl]));
      expect(e.hint).toContain('--timeout');
    });

    test('a connection reset part-way through the answer', async ({ hostctl, hostile }) => {
      const server = await hostile(behaviours.resetMidResponse);
      await network(hostctl(['apps', 'list', '--json', '--base-url', server.baseUrl]));
    });

    test.skipIf(opensslUnavailable() !== undefined)('a TLS certificate that is not trusted', async ({ hostctl, home }) => {
      const cert = selfSignedCert(home.path, { dns: ['localhost'], ip: ['127.0.0.1'] });
      const server = await startHostile(behaviours.ok, cert);
      try {
        const e = await network(hostctl(['apps', 'list', '--json', '--base-url', server.baseUrl]));
        expect(e.hint).toContain('NODE_EXTRA_CA_CERTS');
      } finally {
        await server.close();
      }
    });
  });

  test('warnings are JSON lines too', async ({ hostctl, sandbox }) => {
    freshWindow(sandbox);
    const r = await hostctl(['apps', 'list', '--json', '--limit', '2', '--fields', 'publicId,nosuchfield']);
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const w = JSON.parse(lines[0] ?? '') as { warning: { message: string } };
    expect(w.warning.message).toContain('nosuchfield');
  });
});

describe('errorData: the one mapping from error class to code, exit and members', () => {
  test('maps each class with its members, and anything else to an unexpected api error', () => {
    expect(errorData(new UsageError('bad', 'do this'))).toEqual({ code: 'usage', message: 'bad', hint: 'do this', exit: 2 });
    expect(errorData(new NotFoundError('nf', undefined, { ids: ['ap-1'] }))).toEqual({ code: 'not_found', message: 'nf', exit: 3, ids: ['ap-1'] });
    expect(errorData(new RateLimitError('rl', undefined, { retryAfter: 12 }))).toEqual({ code: 'rate_limited', message: 'rl', exit: 5, retryAfter: 12 });
    expect(errorData(new ApiError('api', undefined, { status: 502 }))).toEqual({ code: 'api', message: 'api', exit: 1, status: 502 });
    expect(errorData(new DeadlineError('dl', undefined, { unmet: { 'ap-1': { status: 'x' } } }))).toEqual({ code: 'deadline', message: 'dl', exit: 7, unmet: { 'ap-1': { status: 'x' } } });
    expect(errorData(new TypeError('oops'))).toEqual({ code: 'api', message: 'unexpected error: oops', exit: 1 });
    expect(new Set(Object.values(ERROR_CODES)).size).toBe(Object.keys(ERROR_CODES).length);
  });
});

// Transient failures (issue 13): a GET answered 502/503/504, or whose connection dropped
// before an answer, is sent again (--retries, default 2); nothing else is. Judged by the
// requests a loopback server counted.

import { describe, expect } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cliTest } from '../support/fixtures.js';
import type { RunResult } from '../support/inproc.js';
import type { Behaviour, HostileServer } from '../support/hostile-server.js';

const TOKEN = 'hc_retrytesttoken0000000000000001';

const APPS = JSON.stringify([{ publicId: 'ap-retry00001', name: 'fine' }]);

/** Answers `failures` requests with `status` (Retry-After 0), then 200s. */
function failingFirst(failures: number, status: number, extra: Record<string, string> = {}) {
  let n = 0;
  return (_req: IncomingMessage, res: ServerResponse) => {
    if (n++ < failures) {
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0', ...extra });
      res.end(JSON.stringify({ title: 'Service Unavailable' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(APPS);
  };
}

/** Runs hostctl (--json) against a new server that behaves as `behaviour`; the run and that server. */
const test = cliTest().extend('against', ({ hostctl, hostile }) => async (behaviour: Behaviour, args: string[]): Promise<RunResult & { server: HostileServer }> => {
  const server = await hostile(behaviour);
  return { ...(await hostctl([...args, '--base-url', server.baseUrl, '--json'], { HOSTCTL_TOKEN: TOKEN })), server };
});

describe('transient failures are retried', () => {
  for (const status of [502, 503, 504]) {
    test(`a GET answered ${status} twice succeeds on the third request`, async ({ against }) => {
      const r = await against(failingFirst(2, status), ['apps', 'list']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ publicId: 'ap-retry00001', name: 'fine' }]);
      expect(r.server.seen).toHaveLength(3);
    });
  }

  test('gives up after --retries (default 2): three requests, exit 1, the status named', async ({ against }) => {
    const r = await against(failingFirst(100, 503), ['apps', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/503/);
    expect(r.server.seen).toHaveLength(3);
  });

  test('--retries 0 sends once; --retries 4 up to five times', async ({ against }) => {
    const none = await against(failingFirst(100, 503), ['apps', 'list', '--retries', '0']);
    expect(none.code).toBe(1);
    expect(none.server.seen).toHaveLength(1);
    await none.server.close();
    const more = await against(failingFirst(4, 502), ['apps', 'list', '--retries', '4']);
    expect(more.code, more.stderr).toBe(0);
    expect(more.server.seen).toHaveLength(5);
  });

  test('a connection dropped before any answer is retried', async ({ against }) => {
    let n = 0;
    const r = await against((req, res) => {
      if (n++ === 0) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(APPS);
    }, ['apps', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.server.seen).toHaveLength(2);
  });

  test('a Retry-After longer than --max-wait ends the retries at once', async ({ against }) => {
    const r = await against(failingFirst(100, 503, { 'retry-after': '600' }), ['apps', 'list', '--max-wait', '5']);
    expect(r.code).toBe(1);
    expect(r.server.seen).toHaveLength(1);
  });

  test('-R counts the resends among the requests the command used', async ({ against }) => {
    const r = await against(failingFirst(1, 503), ['apps', 'list', '-R']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\(this command: 2 requests\)/);
  });
});

describe('never retried', () => {
  for (const status of [400, 401, 403, 404, 409, 500]) {
    test(`a GET answered ${status} is sent once`, async ({ against }) => {
      const r = await against(failingFirst(100, status), ['apps', 'list']);
      expect(r.code).not.toBe(0);
      expect(r.server.seen).toHaveLength(1);
    });
  }

  test('a POST answered 503 is sent once', async ({ against }) => {
    const r = await against(failingFirst(100, 503), ['api', '/apps', '-X', 'POST', '-f', 'name=x']);
    expect(r.code).toBe(1);
    expect(r.server.seen).toHaveLength(1);
    expect(r.server.seen[0]?.method).toBe('POST');
  });

  test('a POST whose connection dropped is sent once', async ({ against }) => {
    const r = await against((req) => req.socket.destroy(), ['api', '/apps', '-X', 'POST', '-f', 'name=x']);
    expect(r.code).toBe(6);
    expect(r.server.seen).toHaveLength(1);
  });

  test('a bad --retries is a usage error before any request', async ({ against }) => {
    const r = await against(failingFirst(0, 200), ['apps', 'list', '--retries', 'many']);
    expect(r.code).toBe(2);
    // Under --json (this file's runs), the error is one JSON line.
    expect((JSON.parse(r.stderr) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'usage', message: expect.stringMatching(/^--retries takes a whole number/) as unknown });
    expect(r.server.seen).toHaveLength(0);
  });
});

// Transient failures (issue 13): a GET answered 502/503/504, or whose connection dropped
// before an answer, is sent again (--retries, default 2); nothing else is. Judged by the
// requests a loopback server counted.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runCli, tmpDir, type RunResult } from '../support/inproc.js';
import { NO_PROXY_ENV, startHostile, type HostileServer } from '../support/hostile-server.js';

const TOKEN = 'hc_retrytesttoken0000000000000001';
let server: HostileServer | undefined;
let config: { path: string; cleanup(): void };

beforeEach(() => {
  config = tmpDir('hostctl-retry-');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  config.cleanup();
});

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

async function hostctl(behaviour: (req: IncomingMessage, res: ServerResponse) => void, args: string[]): Promise<RunResult> {
  server = await startHostile(behaviour);
  return runCli([...args, '--base-url', server.baseUrl, '--json'], {
    env: { ...NO_PROXY_ENV, HOSTCTL_TOKEN: TOKEN, HOSTCTL_CONFIG_DIR: config.path },
  });
}

describe('transient failures are retried', () => {
  for (const status of [502, 503, 504]) {
    it(`a GET answered ${status} twice succeeds on the third request`, async () => {
      const r = await hostctl(failingFirst(2, status), ['apps', 'list']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ publicId: 'ap-retry00001', name: 'fine' }]);
      expect(server?.seen).toHaveLength(3);
    });
  }

  it('gives up after --retries (default 2): three requests, exit 1, the status named', async () => {
    const r = await hostctl(failingFirst(100, 503), ['apps', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/503/);
    expect(server?.seen).toHaveLength(3);
  });

  it('--retries 0 sends once; --retries 4 up to five times', async () => {
    const none = await hostctl(failingFirst(100, 503), ['apps', 'list', '--retries', '0']);
    expect(none.code).toBe(1);
    expect(server?.seen).toHaveLength(1);
    await server?.close();
    const more = await hostctl(failingFirst(4, 502), ['apps', 'list', '--retries', '4']);
    expect(more.code, more.stderr).toBe(0);
    expect(server?.seen).toHaveLength(5);
  });

  it('a connection dropped before any answer is retried', async () => {
    let n = 0;
    const r = await hostctl((req, res) => {
      if (n++ === 0) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(APPS);
    }, ['apps', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(server?.seen).toHaveLength(2);
  });

  it('a Retry-After longer than --max-wait ends the retries at once', async () => {
    const r = await hostctl(failingFirst(100, 503, { 'retry-after': '600' }), ['apps', 'list', '--max-wait', '5']);
    expect(r.code).toBe(1);
    expect(server?.seen).toHaveLength(1);
  });

  it('-R counts the resends among the requests the command used', async () => {
    const r = await hostctl(failingFirst(1, 503), ['apps', 'list', '-R']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\(this command: 2 requests\)/);
  });
});

describe('never retried', () => {
  for (const status of [400, 401, 403, 404, 409, 500]) {
    it(`a GET answered ${status} is sent once`, async () => {
      const r = await hostctl(failingFirst(100, status), ['apps', 'list']);
      expect(r.code).not.toBe(0);
      expect(server?.seen).toHaveLength(1);
    });
  }

  it('a POST answered 503 is sent once', async () => {
    const r = await hostctl(failingFirst(100, 503), ['api', '/apps', '-X', 'POST', '-f', 'name=x']);
    expect(r.code).toBe(1);
    expect(server?.seen).toHaveLength(1);
    expect(server?.seen[0]?.method).toBe('POST');
  });

  it('a POST whose connection dropped is sent once', async () => {
    const r = await hostctl((req) => req.socket.destroy(), ['api', '/apps', '-X', 'POST', '-f', 'name=x']);
    expect(r.code).toBe(6);
    expect(server?.seen).toHaveLength(1);
  });

  it('a bad --retries is a usage error before any request', async () => {
    const r = await hostctl(failingFirst(0, 200), ['apps', 'list', '--retries', 'many']);
    expect(r.code).toBe(2);
    // Under --json (this file's runs), the error is one JSON line.
    expect((JSON.parse(r.stderr) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'usage', message: expect.stringMatching(/^--retries takes a whole number/) as unknown });
    expect(server?.seen).toHaveLength(0);
  });
});

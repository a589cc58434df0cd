// `hostctl api` answers any status with its body, then ends with the error that status
// means: the same error, exit code and message as every other request hostctl sends
// (src/http/status.ts), named by the request that got the answer. In-process
// (test/support/inproc.ts) against a loopback server of the test's own.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';

const test = cliTest();

/** Answers GET /v1/s/<status> with that status and a JSON error body. */
function byStatus(req: IncomingMessage, res: ServerResponse): void {
  const status = Number(/^\/v1\/s\/(\d{3})/.exec(req.url ?? '')?.[1] ?? 404);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code: 'some_code', message: `the server's word on ${status}` } }));
}

test('a status ends hostctl api with the error it means anywhere else: the same exit code and message as a --paginate walk', async ({ hostctl, hostile }) => {
  const server = await hostile(byStatus);
  // One token each: a 401 marks its token rejected, and the next run would not send it.
  let n = 0;
  const run = (args: string[]) => hostctl(args, { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: `token-${++n}` });
  for (const status of [400, 401, 403, 404, 409, 422, 500, 501]) {
    const plain = await run(['api', `/s/${status}`, '--retries', '0']);
    const walked = await run(['api', `/s/${status}`, '--paginate', '--retries', '0']);
    expect(plain.code, `${status}`).toBe(walked.code);
    expect(plain.code, `${status}`).not.toBe(0);
    // The plain call prints the body on stdout; the error on stderr is the same.
    expect(plain.stderr, `${status}`).toBe(walked.stderr);
    expect(plain.stdout, `${status}`).toContain(`the server's word on ${status}`);
  }
});

test('after a redirect, the error names the request that got the answer: a POST sent on by 303 is a GET', async ({ hostctl, hostile }) => {
  const server = await hostile((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/apps') {
      res.writeHead(303, { location: '/v1/apps/ap-made00001', 'content-length': '0' });
      res.end();
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'not_found', message: 'no such app yet' } }));
  });
  const r = await hostctl(['api', '-X', 'POST', '/apps', '-f', 'name=demo'], { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: 'token-303' });
  expect(server.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/apps', 'GET /v1/apps/ap-made00001']);
  expect(r.code).toBe(3);
  expect(r.stderr).toMatch(/^hostctl: Not found: GET \/v1\/apps\/ap-made00001 \(404\)\. The server said: "no such app yet"\.\n/);
});

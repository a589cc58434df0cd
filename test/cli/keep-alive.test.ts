// Connection reuse (issue 29): a server that hints `Keep-Alive: timeout=2` gets every page
// of a walk over one connection. undici's default margin (2 s before the hint) dropped
// the connection after each answer: one TCP connect per page.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tmpDir } from '../support/inproc.js';
import { startAltServer } from '../support/alt-server.js';

let server: Awaited<ReturnType<typeof startAltServer>>;
let config: { path: string; cleanup(): void };

beforeAll(async () => {
  config = tmpDir('hostctl-keepalive-');
  server = await startAltServer({ limit: 10_000, pageSize: 5, keepAliveSeconds: 2 });
});

afterAll(async () => {
  await server?.close();
  config?.cleanup();
});

it('walks every page over one connection when the server keeps idle connections for 2 s', async () => {
  const before = server.connections;
  const r = await runCli(['apps', 'list', '--all', '-o', 'ndjson'], {
    env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path },
  });
  expect(r.stderr.replace(/^hostctl: warning: the API sent the same items .*\n/gm, '')).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout.split('\n').slice(0, -1)).toHaveLength(server.objects('apps').length);
  expect(server.requests.length).toBeGreaterThanOrEqual(12);
  expect(server.connections - before).toBe(1);
});

it('opens a new connection for each request when the server keeps idle ones for only 1 s (the 1 s margin)', async () => {
  const brief = await startAltServer({ limit: 10_000, pageSize: 20, keepAliveSeconds: 1 });
  try {
    const r = await runCli(['apps', 'list', '--all', '-o', 'ndjson'], {
      env: { HOSTCTL_BASE_URL: brief.baseUrl, HOSTCTL_TOKEN: brief.token, HOSTCTL_CONFIG_DIR: config.path },
    });
    expect(r.code).toBe(0);
    expect(brief.requests.length).toBeGreaterThanOrEqual(3);
    expect(brief.connections).toBe(brief.requests.length);
  } finally {
    await brief.close();
  }
});

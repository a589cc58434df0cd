// Connection reuse (issue 29): a server that hints `Keep-Alive: timeout=2` gets every page
// of a walk over one connection. undici's default margin (2 s before the hint) dropped
// the connection after each answer: one TCP connect per page.

import { expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { runCli } from '../support/inproc.js';

const test = cliTest();

test('walks every page over one connection when the server keeps idle connections for 2 s', async ({ alt, config }) => {
  const { alt: server } = await alt({ limit: 10_000, pageSize: 5, keepAliveSeconds: 2 });
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

test('opens a new connection for each request when the server keeps idle ones for only 1 s (the 1 s margin)', async ({ alt, config }) => {
  const { alt: brief } = await alt({ limit: 10_000, pageSize: 20, keepAliveSeconds: 1 });
  const r = await runCli(['apps', 'list', '--all', '-o', 'ndjson'], {
    env: { HOSTCTL_BASE_URL: brief.baseUrl, HOSTCTL_TOKEN: brief.token, HOSTCTL_CONFIG_DIR: config.path },
  });
  expect(r.code).toBe(0);
  expect(brief.requests.length).toBeGreaterThanOrEqual(3);
  expect(brief.connections).toBe(brief.requests.length);
});

// A linked directory where it needs the real thing (issue 46): `hostctl link` with no ID in
// a real pseudo-terminal, and `hostctl status` beside the MCP server's app_status, the
// built CLI as a process and the SDK's own client over a real process.

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { e2eTest } from '../support/fixtures.js';
import { runCli, runInPtyInteractive, sandboxAdmin } from '../support/cli.js';
import { connectMcp } from '../support/mcp.js';
import { platformOf } from '../support/servers.js';

const test = e2eTest({ sandbox: ['--rate-limit', '100000'] });

const shown = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

test('on a terminal, link with no ID offers the first page of apps by name in one request, and links the one picked', { timeout: 60_000 }, async ({ sandbox, homeEnv, home }) => {
  const apps = await platformOf(sandbox).all('apps');
  const second = apps[1];
  if (!second) throw new Error('the sandbox has fewer than two apps');
  const dir = join(home.path, 'project');
  mkdirSync(dir);
  await sandboxAdmin(sandbox).clearRequests();
  const r = await runInPtyInteractive(['link'], [{ waitFor: /which app\?/, send: '2\r' }], {
    env: { ...homeEnv, HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token },
    cwd: dir,
  });
  expect(r.code, r.stdout).toBe(0);
  expect(shown(r.stdout)).toMatch(new RegExp(`2\\) ${String(second.publicId)} +${String(second.name)}`));
  expect(JSON.parse(readFileSync(join(dir, '.hostctl.json'), 'utf8'))).toEqual({ app: second.publicId });
  expect(await sandboxAdmin(sandbox).requests()).toHaveLength(1);
});

test('status --json and the MCP tool app_status send the same requests and give the same object', { timeout: 60_000 }, async ({ sandbox, homeEnv }) => {
  const env = { ...homeEnv, HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token };
  const envs = await platformOf(sandbox).all('environments');
  const app = String(envs[0]?.app);
  const admin = sandboxAdmin(sandbox);
  const asked = async () => (await admin.requests()).map((q) => `${q.method} ${q.path}?${q.query}`);

  await admin.clearRequests();
  const cli = await runCli(['status', app, '--json'], { env });
  expect(cli.code, cli.stderr).toBe(0);
  const byCli = await asked();

  await admin.clearRequests();
  const session = await connectMcp(env);
  try {
    const r = await session.client.callTool({ name: 'app_status', arguments: { app } }, undefined, { timeout: 60_000 });
    expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
    expect(r.structuredContent).toEqual(JSON.parse(cli.stdout));
  } finally {
    await session.close();
  }
  expect(await asked()).toEqual(byCli);
  expect(byCli.length).toBeGreaterThan(2);
});

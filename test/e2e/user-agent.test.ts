// User-Agent: hostctl/<version> on every request of the program users run (the built CLI
// in a process of its own), the version being package.json's, as --version prints it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { ROOT, runCli } from '../support/cli.js';
import { test } from '../support/fixtures.js';
import { behaviours, NO_PROXY_ENV, redirectTo } from '../support/hostile-server.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('User-Agent', () => {
  test('is hostctl/<version of package.json> on every request, a followed redirect included', async ({ hostile, config }) => {
    const api = await hostile(behaviours.ok);
    const moved = await hostile(redirectTo(api.origin, 307));
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toBe(VERSION);
    const env = { ...NO_PROXY_ENV, HOSTCTL_TOKEN: 'hct_user_agent_test_token_01', HOSTCTL_CONFIG_DIR: config.path };
    for (const base of [api.baseUrl, moved.baseUrl]) {
      const r = await runCli(['apps', 'list', '--json', '--base-url', base], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    const seen = [...api.seen, ...moved.seen];
    expect(seen).toHaveLength(3);
    for (const req of seen) expect(req.headers['user-agent']).toBe(`hostctl/${VERSION}`);
    // The hop to the other origin (another port) went without the token.
    expect(api.seen.map((r) => r.headers.authorization !== undefined)).toEqual([true, false]);
  });
});

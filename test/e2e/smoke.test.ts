// The built CLI as a child process, one command per area whose full tests run in-process
// (test/cli): that bin/hostctl.js, the bundle and its lazily loaded chunks are wired to
// the same code. The installed package and the single-file executable have their own
// smoke layer (test/support/smoke.ts).

import { describe, expect } from 'vitest';
import { sandboxAdmin } from '../support/cli.js';
import { e2eTest } from '../support/fixtures.js';

const test = e2eTest({ sandbox: ['--rate-limit', '1000'], runOnSandbox: true }).extend('appId', async ({ sandbox }) => {
  const apps = (await (await fetch(`${sandbox.origin}/_sandbox/objects/apps`)).json()) as { publicId: string; status: string }[];
  return String(apps[0]?.publicId);
});

describe('the real process, one command per area', () => {
  test('api, docs --operations, wait, rate-limit and -R answer as in-process', async ({ hostctl, sandbox, appId }) => {
    await sandboxAdmin(sandbox).clearRequests();
    const api = await hostctl(['api', `/apps?publicId[]=${appId}`]);
    expect(api.code, api.stderr).toBe(0);
    expect((JSON.parse(api.stdout) as { publicId: string }[])[0]?.publicId).toBe(appId);

    const ops = await hostctl(['docs', '--operations', '--json']);
    expect(ops.code, ops.stderr).toBe(0);
    expect((JSON.parse(ops.stdout) as unknown[]).length).toBeGreaterThan(3);

    const waited = await hostctl(['apps', 'wait', appId, '--for', 'publicId=' + appId, '--json', '-R']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stderr).toMatch(/^Rate limit: \d+\/1000 requests left/m);

    const rate = await hostctl(['rate-limit', '--json']);
    expect(rate.code, rate.stderr).toBe(0);
    expect(JSON.parse(rate.stdout)).toMatchObject({ limit: 1000 });

    // api, the reference, wait: three requests; rate-limit answers from the saved state.
    expect((await sandboxAdmin(sandbox).requests()).map((r) => r.path)).toEqual([`/v1/apps`, '/v1/docs', '/v1/apps']);
  });

  test('--cache answers a repeated get from the cache, and an unknown ID exits 3', async ({ hostctl, sandbox, appId }) => {
    await sandboxAdmin(sandbox).clearRequests();
    for (let i = 0; i < 2; i++) expect((await hostctl(['apps', 'get', appId, '--json', '--cache', '10m'])).code).toBe(0);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(1);
    const missing = await hostctl(['apps', 'get', 'ap-nosuchapp00']);
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
  });
});

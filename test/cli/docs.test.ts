// `hostctl docs` end to end: the URL with no token and no request, --open through a
// $BROWSER that records its argument (no real browser), and --operations read from the
// sandbox's generated OpenAPI reference.

import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { runCli } from '../support/inproc.js';
import { platformOf } from '../support/servers.js';

interface Row {
  method: string;
  path: string;
  summary: string;
  operationId: string | null;
}

const test = cliTest({ sandbox: ['--rate-limit', '100000'], runOnSandbox: true })
  .extend('server', { scope: 'file' }, ({ sandbox }) => platformOf(sandbox))
  // What the sandbox itself publishes, read without hostctl: every operation of every path.
  .extend('expected', { scope: 'file' }, async ({ sandbox }): Promise<Row[]> => {
    const res = await fetch(`${sandbox.baseUrl}/docs`, { headers: { accept: 'application/json', authorization: `Bearer ${sandbox.token}` } });
    const doc = (await res.json()) as { servers: { url: string }[]; paths: Record<string, Record<string, { summary: string; operationId: string }>> };
    expect(doc.servers[0]?.url).toBe('/v1');
    return Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, summary: op.summary, operationId: op.operationId })),
    );
  })
  /** Keeps the sandbox's reference in the test's config dir (docs --operations), and forgets that request. */
  .extend('keep', ({ hostctl, server }) => async () => {
    expect((await hostctl(['docs', '--operations', '--json'])).code).toBe(0);
    await server.clearRequests();
  });

describe('hostctl docs against the sandbox', () => {
  test('prints {base_url}/docs, needs no token and sends nothing', async ({ hostctl, server, config }) => {
    await server.clearRequests();
    const r = await hostctl(['docs'], { HOSTCTL_TOKEN: undefined, HOME: config.path, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' });
    expect(r).toEqual({ code: 0, stdout: `${server.baseUrl}/docs\n`, stderr: '' });
    expect(await server.requests()).toHaveLength(0);
  });

  test('without a base URL: exit 2 with the next step', async ({ hostctl }) => {
    const r = await hostctl(['docs'], { HOSTCTL_BASE_URL: undefined });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/No base URL is set.*\n.*--base-url/);
  });

  test('--open runs $BROWSER with the URL, and sends nothing', async ({ hostctl, server, config }) => {
    const record = join(config.path, 'opened.txt');
    const script = join(config.path, 'fake-browser.sh');
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\n`);
    chmodSync(script, 0o755);
    await server.clearRequests();
    const r = await hostctl(['docs', '--open'], { BROWSER: `${script} --new-tab` });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Opening ${server.baseUrl}/docs in your browser.`);
    expect(readFileSync(record, 'utf8')).toBe(`--new-tab\n${server.baseUrl}/docs\n`);
    expect(await server.requests()).toHaveLength(0);
  });

  test('--open with a browser that fails: exit 1, and the URL to open by hand', async ({ hostctl, config }) => {
    const missing = await hostctl(['docs', '--open'], { BROWSER: join(config.path, 'no-such-browser') });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Could not open a browser: \$BROWSER \(.*no-such-browser\) was not found\.\nOpen http:\/\/127\.0\.0\.1:\d+\/v1\/docs yourself/);
    const failing = await hostctl(['docs', '--open'], { BROWSER: 'false' });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/exited with code 1/);
  });

  test('--operations --json lists every operation of the reference, in one request', async ({ hostctl, server, expected }) => {
    await server.clearRequests();
    const r = await hostctl(['docs', '--operations', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expected);
    expect(expected).toContainEqual(expect.objectContaining({ method: 'POST', path: '/apps' }));
    expect(expected).toContainEqual(expect.objectContaining({ method: 'GET', path: '/environments/{id}/deployments' }));
    expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/docs', query: '' }]);
  });

  test('--operations piped: tsv rows of method, path and summary; -o ndjson one per line', async ({ hostctl, expected }) => {
    const tsv = await hostctl(['docs', '--operations']);
    expect(tsv.code).toBe(0);
    expect(tsv.stdout).toBe(expected.map((o) => `${o.method}\t${o.path}\t${o.summary}\n`).join(''));
    const nd = await hostctl(['docs', '--operations', '-o', 'ndjson']);
    expect(nd.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Row)).toEqual(expected);
  });

  test('every listed path works with hostctl api as it is printed', async ({ hostctl, expected }) => {
    const list = expected.filter((o) => o.method === 'GET' && !o.path.includes('{'));
    expect(list.length).toBeGreaterThan(3);
    for (const op of list.slice(0, 3)) expect((await hostctl(['api', op.path, '-o', 'tsv'])).code).toBe(0);
  });

  test('--operations again: the kept copy answers, no request', async ({ hostctl, server, expected, keep }) => {
    await keep();
    const r = await hostctl(['docs', '--operations', '--json']);
    expect(JSON.parse(r.stdout)).toEqual(expected);
    expect(await server.requests()).toEqual([]);
  });

  test('api <operationId> with the sandbox reference: method and path from it, one request for the call', async ({ hostctl, server, keep }) => {
    await keep();
    const apps = await server.all('apps');
    const id = String(apps[1]!.publicId);
    const env = (await server.all('environments'))[0]!;
    await server.clearRequests();
    const one = await hostctl(['api', 'getApp', '-f', `publicId=${id}`]);
    expect(one.stderr).toBe('');
    expect(JSON.parse(one.stdout)).toEqual(apps[1]);
    const page = await hostctl(['api', 'listApps', '-F', 'itemsPerPage=2', '-o', 'tsv', '--fields', 'publicId']);
    expect(page.stdout).toBe(`${String(apps[0]!.publicId)}\n${id}\n`);
    const nested = await hostctl(['api', 'listEnvironmentDeployments', '-f', `id=${String(env.publicId)}`, '--json', '--fields', 'environment']);
    expect(nested.code).toBe(0);
    expect(new Set((JSON.parse(nested.stdout) as { environment: unknown }[]).map((d) => JSON.stringify(d.environment)))).toEqual(new Set([JSON.stringify(env.publicId)]));
    const made = await hostctl(['api', 'createTeam', '-f', 'name=Named by operation']);
    expect(JSON.parse(made.stdout)).toMatchObject({ name: 'Named by operation' });
    const sent = (await server.requests()).map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`);
    expect(sent).toEqual([`GET /v1/apps/${id}`, 'GET /v1/apps?itemsPerPage=2', `GET /v1/environments/${String(env.publicId)}/deployments`, 'POST /v1/teams']);
  });

  test('docs diff: nothing changed in the sandbox, exit 0 also with --exit-status, one request', async ({ hostctl, server, keep }) => {
    await keep();
    const r = await hostctl(['docs', 'diff', '--exit-status', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toMatch(/^No operation changed since the copy kept at /);
    expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/docs', query: '' }]);
  });

  test('--open and --operations together: exit 2', async ({ hostctl }) => {
    const r = await hostctl(['docs', '--open', '--operations']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/one at a time/);
  });
});

describe('hostctl docs --operations against a server with no reference', () => {
  test('a 404 for /docs exits 3 with one message, no stack trace; api <name> says the same, api <path> works', async ({ alt, config }) => {
    const server = await alt({ limit: 100000 });
    for (const args of [['docs', '--operations'], ['api', 'listApps'], ['docs', 'diff']]) {
      const r = await runCli(args, { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path } });
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'hostctl: Not found: GET /v1/docs (404): the API serves no reference there, so hostctl cannot read operations from it.\nCall endpoints by path instead, such as: hostctl api /apps\n',
      );
    }
    const byPath = await runCli(['api', '/teams', '-o', 'tsv'], { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path } });
    expect(byPath.code).toBe(0);
  });
});

// Following the beta: `hostctl api <operationId>`, the kept reference and `docs diff`,
// end to end against the independent alt server (whose reference differs from the
// sandbox's: absolute server URL, snake_case path parameters through $ref, its own
// operation names and media type) while its reference gains and loses operations between
// runs, and against one that serves an HTML reference only. Request counts are read at
// the server.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest, type Env } from '../support/fixtures.js';
import { BIN, ROOT, runCli, runProcess } from '../support/inproc.js';

function keptFile(dir: string): string {
  const files = readdirSync(join(dir, 'references'));
  expect(files).toHaveLength(1);
  return join(dir, 'references', files[0]!);
}

// Each test has a server (its beta not changed yet) and a config dir of its own.
const test = cliTest()
  .extend('server', ({ alt }) => alt({ limit: 100000, reference: 'openapi' }))
  .extend('runEnv', ({ server }): Env => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token }))
  .extend('appId', async ({ server }) => String((await server.all('apps'))[3]!.publicId))
  .extend('sent', ({ server }) => async () => (await server.requests()).map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`))
  /** Keeps the server's current reference (docs --refresh), and forgets that request. */
  .extend('keep', ({ hostctl, server }) => async () => {
    expect((await hostctl(['docs', '--refresh'])).code).toBe(0);
    await server.clearRequests();
  });

// One whose reference is an HTML page.
const htmlTest = cliTest()
  .extend('server', ({ alt }) => alt({ limit: 100000, reference: 'html' }))
  .extend('runEnv', ({ server }): Env => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token }));

describe('the reference of a server whose beta changes between runs', () => {
  test('docs diff with nothing kept: says so, keeps the current reference, exit 0 (also with --exit-status)', async ({ hostctl, server, sent, config }) => {
    await server.clearRequests();
    const r = await hostctl(['docs', 'diff', '--json', '--exit-status']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toMatch(/^No reference was kept for http:\/\/127\.0\.0\.1:\d+\/v1 yet, so there is nothing to compare; kept the current one \(4 operations\)/);
    expect(await sent()).toEqual(['GET /v1/docs']);
    const kept = JSON.parse(readFileSync(keptFile(config.path), 'utf8')) as { baseUrl: string; hash: string; fetchedAt: number; operations: { operationId: string }[] };
    expect(kept.baseUrl).toBe(server.baseUrl);
    expect(kept.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(kept.operations.map((o) => o.operationId)).toEqual(['listApps', 'createApp', 'deploymentsOfEnvironment', 'listTeams']);
  });

  test('api <operationId> from the kept copy sends only the operation: path parameters filled, the rest as query (GET) or body', async ({ hostctl, server, appId, sent, keep }) => {
    const env = String((await server.all('environments'))[0]!.publicId);
    await keep();
    const list = await hostctl(['api', 'listApps', '-f', 'publicId[]=' + appId]);
    expect(list.stderr).toBe('');
    expect((JSON.parse(list.stdout) as { publicId: string }[]).map((a) => a.publicId)).toEqual([appId]);
    const deps = await hostctl(['api', 'deploymentsOfEnvironment', '-f', `environment_id=${env}`, '-o', 'tsv', '--fields', 'environmentId']);
    expect(deps).toMatchObject({ code: 0, stdout: `${env}\n` });
    const made = await hostctl(['api', 'createApp', '-f', 'name=by-name', '-F', 'replicas=2']);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ name: 'by-name', replicas: 2 });
    expect(await sent()).toEqual([`GET /v1/apps?publicId[]=${appId}`, `GET /v1/environments/${env}/deployments`, 'POST /v1/apps']);
    expect(server.alt.requests.at(-1)!.body).toBe('{"name":"by-name","replicas":2}');
  });

  test('a missing path parameter, -X against the reference, --paginate of a POST: exit 2 naming it, nothing sent', async ({ hostctl, sent, keep }) => {
    await keep();
    const missing = await hostctl(['api', 'deploymentsOfEnvironment']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^hostctl: deploymentsOfEnvironment \(GET \/environments\/\{environment_id\}\/deployments\) needs the path parameter "environment_id"\.\nGive it with -f: hostctl api deploymentsOfEnvironment -f environment_id=…\n$/);
    const method = await hostctl(['api', '-X', 'DELETE', 'listApps']);
    expect(method.code).toBe(2);
    expect(method.stderr).toMatch(/-X DELETE does not go with listApps \(GET \/apps\)/);
    const pages = await hostctl(['api', '--paginate', 'createApp']);
    expect(pages.code).toBe(2);
    expect(await sent()).toEqual([]);
  });

  test('an unknown name: one request for the reference, then exit 2 with the closest names', async ({ hostctl, sent, keep }) => {
    await keep();
    const r = await hostctl(['api', 'listApp']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'hostctl: The API reference has no operation named "listApp".\nDid you mean listApps? List them with: hostctl docs --operations. A path starts with a slash: hostctl api /listApp\n',
    );
    expect(await sent()).toEqual(['GET /v1/docs']);
  });

  test('after the beta changed: the kept copy still answers, a new name is fetched once, docs diff shows the change', async ({ hostctl, server, appId, sent, keep, config }) => {
    await keep();
    const before = readFileSync(keptFile(config.path), 'utf8');
    server.alt.evolveReference();
    await server.clearRequests();

    // The kept copy (less than a day old) answers: no request, the old list.
    const ops = await hostctl(['docs', '--operations', '--json']);
    expect((JSON.parse(ops.stdout) as { operationId: string }[]).map((o) => o.operationId)).toContain('listTeams');
    const completion = await hostctl(['__complete', 'api', 'list']);
    expect(completion.stdout).toBe('listApps\tGET /apps\nlistTeams\tGET /teams\n');
    // Through the shipped bash script too, with a `hostctl` on PATH.
    const bin = join(config.path, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'hostctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
    const script = `source '${join(ROOT, 'completions', 'hostctl.bash')}'; COMP_WORDS=(hostctl api cr); COMP_CWORD=2; _hostctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const bash = await runProcess('bash', ['--norc', '-c', script], {
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_CONFIG_DIR: config.path },
    });
    expect(bash.stdout).toBe('createApp\n');
    expect(await sent()).toEqual([]);

    // fetchApp is not in the kept copy: one request for the reference, then the call.
    const app = await hostctl(['api', 'fetchApp', '-f', `app_id=${appId}`]);
    expect(app.stderr).toBe('');
    expect(JSON.parse(app.stdout)).toMatchObject({ publicId: appId });
    expect(await sent()).toEqual(['GET /v1/docs', `GET /v1/apps/${appId}`]);
    await server.clearRequests();
    expect((await hostctl(['api', 'fetchApp', '-f', `app_id=${appId}`])).code).toBe(0);
    expect(await sent()).toEqual([`GET /v1/apps/${appId}`]);
    expect((await hostctl(['__complete', 'api', 'fe'])).stdout).toBe('fetchApp\tGET /apps/{app_id}\n');

    // docs diff against the copy kept before the change.
    writeFileSync(keptFile(config.path), before);
    await server.clearRequests();
    const diff = await hostctl(['docs', 'diff', '--json']);
    expect(diff.code).toBe(0);
    expect(JSON.parse(diff.stdout)).toEqual([
      { change: 'changed', operationId: 'listApps', method: 'GET', path: '/apps', details: 'parameters +status (query)' },
      { change: 'added', operationId: 'fetchApp', method: 'GET', path: '/apps/{app_id}', details: '' },
      { change: 'removed', operationId: 'listTeams', method: 'GET', path: '/teams', details: '' },
    ]);
    expect(diff.stderr).toMatch(/^3 operations changed since the copy kept at \d{4}-\d\d-\d\dT[\d:.]+Z; the current one is kept now\.\n$/);
    expect(await sent()).toEqual(['GET /v1/docs']);

    // The current one is kept: nothing changed since, exit 0 even with --exit-status.
    const again = await hostctl(['docs', 'diff', '--exit-status', '-o', 'tsv']);
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(again.stderr).toMatch(/^No operation changed since the copy kept at /);

    // --exit-status makes a change exit 1, with the rows as tsv and no error message.
    writeFileSync(keptFile(config.path), before);
    const ci = await hostctl(['docs', 'diff', '--exit-status', '-o', 'tsv', '-q']);
    expect(ci).toEqual({
      code: 1,
      stdout: 'changed\tlistApps\tGET\t/apps\tparameters +status (query)\nadded\tfetchApp\tGET\t/apps/{app_id}\t\nremoved\tlistTeams\tGET\t/teams\t\n',
      stderr: '',
    });
  });

  test('a kept copy older than a day is fetched again before it is used', async ({ hostctl, server, appId, sent, keep, config }) => {
    await keep();
    const file = keptFile(config.path);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { fetchedAt: number };
    writeFileSync(file, JSON.stringify({ ...kept, fetchedAt: kept.fetchedAt - 25 * 60 * 60 * 1000 }));
    await server.clearRequests();
    expect((await hostctl(['api', 'listApps', '-f', `publicId[]=${appId}`])).code).toBe(0);
    expect((await hostctl(['api', 'listApps', '-f', `publicId[]=${appId}`])).code).toBe(0);
    expect(await sent()).toEqual(['GET /v1/docs', `GET /v1/apps?publicId[]=${appId}`, `GET /v1/apps?publicId[]=${appId}`]);
  });

  test('docs --refresh fetches it now and keeps it; docs --operations then sends nothing', async ({ hostctl, server, sent }) => {
    server.alt.evolveReference();
    await server.clearRequests();
    const r = await hostctl(['docs', '--refresh']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Kept the reference of http:\/\/127\.0\.0\.1:\d+\/v1: 4 operations \(sha256:[0-9a-f]{12}…\)\.\n$/);
    const ops = await hostctl(['docs', '--operations']);
    expect(ops.stdout).toBe('GET\t/apps\tAll apps, 25 at a time\nPOST\t/apps\tMake an app\nGET\t/environments/{environment_id}/deployments\tDeployments of one environment\nGET\t/apps/{app_id}\tOne app by its public ID.\n');
    expect(await sent()).toEqual(['GET /v1/docs']);
  });
});

describe('a server whose reference is an HTML page only', () => {
  htmlTest('api <name>, docs --operations and docs diff say so in one sentence with the next step; api <path> works', async ({ hostctl, server, config }) => {
    const sentence = new RegExp(
      `^hostctl: The reference at ${server.baseUrl.replace(/[.]/g, '\\.')}/docs is a web page \\(text/html\\), not OpenAPI, so hostctl cannot read operations from it\\.\\nRead it with "hostctl docs --open", and call endpoints by path: hostctl api /apps\\n$`,
    );
    for (const args of [['api', 'listApps'], ['docs', '--operations'], ['docs', 'diff'], ['docs', 'diff', '--exit-status', '--json']]) {
      await server.clearRequests();
      const r = await hostctl(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      if (args.includes('--json')) {
        // The same sentence and next step, as one JSON line (issue 27).
        const { error } = JSON.parse(r.stderr) as { error: { message: string; hint: string } };
        expect(`hostctl: ${error.message}\n${error.hint}\n`).toMatch(sentence);
      } else {
        expect(r.stderr).toMatch(sentence);
      }
      expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/docs', query: '' }]);
    }
    const byPath = await hostctl(['api', '/apps', '-o', 'tsv', '--fields', 'publicId']);
    expect(byPath.code).toBe(0);
    expect(byPath.stdout.split('\n')).toHaveLength(26);
    // Nothing unusable is kept, and completion still offers the paths.
    expect(() => readdirSync(join(config.path, 'references'))).toThrow();
    const completion = await runCli(['__complete', 'api', '/a'], { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_CONFIG_DIR: config.path } });
    expect(completion.stdout).toBe('/apps\tApps\n');
  });
});

describe('a hostile reference', () => {
  test('its names and paths reach stderr and completion without control sequences', async ({ hostile, config }) => {
    const evil = '\u001b]0;pwned\u0007\u001b[31m';
    const doc = JSON.stringify({
      openapi: '3.1.0',
      paths: {
        [`/apps/{id${evil}}`]: { get: { operationId: `getApp${evil}`, parameters: [{ name: `id${evil}`, in: 'path', required: true }] } },
        '/apps': { get: { operationId: `listApps${evil}` } },
      },
    });
    const server = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(doc);
    });
    const env = { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: 'hostile-reference-token', HOSTCTL_CONFIG_DIR: config.path };
    const unknown = await runCli(['api', 'listApp'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Did you mean listApps?');
    expect(unknown.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const completion = await runCli(['__complete', 'api', ''], { env });
    expect(completion.stdout).not.toContain('listApps');
    expect(completion.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const ops = await runCli(['docs', '--operations', '-o', 'tsv'], { env });
    expect(ops.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(server.seen.map((r) => r.url)).toEqual(['/v1/docs']);
  });
});

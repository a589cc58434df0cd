// The resource commands end to end: hostctl in-process (test/support/inproc.ts) against a real
// server on loopback. Every scenario runs against our sandbox AND the independent alt
// server, so the client is not tuned to the sandbox's own choices.

import { describe, expect } from 'vitest';
import { cliTerminalTest, type Env } from '../support/fixtures.js';
import type { RunResult } from '../support/inproc.js';
import { platformOf, startAlt, type PlatformServer } from '../support/servers.js';
import { RawJson } from '../support/alt-server.js';

const HOSTILE = '\u001b]0;pwned\u0007\u001b[31mred\u001b[0m\u009b2J\u202eevil\tname\nnext';

const on = (server: { baseUrl: string; token: string }): Env => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token });

/** The app of hostile text every server of the file holds, beside its own. */
const plantHostile = (server: PlatformServer) => server.plant('apps', [{ publicId: 'ap-hostile1', name: HOSTILE, status: 'running', bigNumber: new RawJson('12345678901234567890') }]);

// The servers of the resource commands are the file's: the tests read them, and count
// requests after clearing them.
const test = cliTerminalTest({ sandbox: ['--rate-limit', '100000', '--seed', '7'] })
  .extend('sandboxWorld', { scope: 'file' }, async ({ sandbox }) => {
    const server = platformOf(sandbox);
    await plantHostile(server);
    return { server, apps: await server.all('apps') };
  })
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from an object pattern: `{}` is "nothing".
  .extend('altWorld', { scope: 'file' }, async ({}, { onCleanup }) => {
    const server = await startAlt({ limit: 100000 });
    onCleanup(() => server.stop());
    await plantHostile(server);
    return { server: server as PlatformServer, apps: await server.all('apps') };
  });

const json = (r: RunResult): unknown => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe.each(['sandbox', 'alt'] as const)('resource commands against %s', (kind) => {
  /** The file's sandbox or alt server (with the app of hostile text), its apps, and hostctl at it. */
  const resourceTest = test
    .extend('world', ({ sandboxWorld, altWorld }) => (kind === 'sandbox' ? sandboxWorld : altWorld))
    .extend('server', ({ world }) => world.server)
    .extend('apps', ({ world }) => world.apps)
    .extend('run', ({ hostctl, server }) => (args: string[], env: Env = {}): Promise<RunResult> => hostctl(args, { ...on(server), ...env }));

  resourceTest('lists the first page as JSON, with no JSON-LD members', async ({ run, server, apps }) => {
    await server.clearRequests();
    const list = json(await run(['apps', 'list', '--json'])) as Record<string, unknown>[];
    expect(Array.isArray(list)).toBe(true);
    expect(list.length).toBeGreaterThan(0);
    expect(list.length).toBeLessThan(apps.length);
    expect(list.map((a) => a.publicId)).toEqual(apps.slice(0, list.length).map((a) => a.publicId));
    expect(JSON.stringify(list)).not.toMatch(/"@/);
    expect(await server.requests()).toHaveLength(1);
  });

  resourceTest('--all returns every object exactly once', async ({ run, apps }) => {
    const list = json(await run(['apps', 'list', '--all', '--json'])) as Record<string, unknown>[];
    expect(list.map((a) => a.publicId)).toEqual(apps.map((a) => a.publicId));
  });

  resourceTest('--limit stops after N objects, across pages, without extra requests', async ({ run, server, apps }) => {
    await server.clearRequests();
    const list = json(await run(['apps', 'list', '--limit', '40', '--json'])) as Record<string, unknown>[];
    expect(list.map((a) => a.publicId)).toEqual(apps.slice(0, 40).map((a) => a.publicId));
    // 40 objects need two pages of 25 or 30: never a third request.
    expect(await server.requests()).toHaveLength(2);
  });

  resourceTest('--page N shows that page', async ({ run, server, apps }) => {
    const first = json(await run(['apps', 'list', '--json'])) as Record<string, unknown>[];
    await server.clearRequests();
    const second = json(await run(['apps', 'list', '--page', '2', '--json'])) as Record<string, unknown>[];
    expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/apps', query: 'page=2' }]);
    if (server.name === 'sandbox') {
      expect(second.map((a) => a.publicId)).toEqual(apps.slice(first.length, first.length * 2).map((a) => a.publicId));
    } else {
      // A cursor-paged server has no page numbers: it ignores ?page=2 and answers its first
      // page, which hostctl shows as it came.
      expect(second.map((a) => a.publicId)).toEqual(apps.slice(0, 25).map((a) => a.publicId));
    }
  });

  resourceTest('get of 3 IDs is exactly one request, output in the order asked', async ({ run, server, apps }) => {
    const ids = [apps[5], apps[1], apps[3]].map((a) => String(a?.publicId));
    await server.clearRequests();
    const got = json(await run(['apps', 'get', ...ids, '--json'])) as Record<string, unknown>[];
    expect(got.map((a) => a.publicId)).toEqual(ids);
    const requests = await server.requests();
    expect(requests).toHaveLength(1);
    expect(requests[0]?.path).toBe('/v1/apps');
    expect(decodeURIComponent(requests[0]?.query ?? '')).toBe(ids.map((id) => `publicId[]=${id}`).join('&'));
  });

  resourceTest('get of one ID prints the object itself, exactly as the server sent it', async ({ run, apps }) => {
    const app = apps.find((a) => a.publicId === 'ap-hostile1');
    const r = await run(['apps', 'get', 'ap-hostile1', '--json']);
    expect(json(r)).toEqual(app);
    // Lossless: the big number comes out digit for digit, the hostile name as JSON escapes.
    expect(r.stdout).toContain('12345678901234567890');
    expect(r.stdout).toContain('\\u001b]0;pwned\\u0007');
    expect(r.stdout).not.toContain('\u001b');
  });

  resourceTest('a missing ID: the others are printed, "hostctl: not found: <id>" and the command that lists on stderr, exit 3', async ({ run, apps }) => {
    const id = String(apps[0]?.publicId);
    const r = await run(['apps', 'get', id, 'ap-doesnotexist', '-o', 'tsv']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('hostctl: not found: ap-doesnotexist\nRun "hostctl apps list" to see the apps this token can see.\n');
    expect(r.stdout.split('\t')[0]).toBe(id);
  });

  resourceTest('a missing ID under --json: the found objects on stdout, exit 3, one JSON error line with the missing ids', async ({ run, apps }) => {
    const id = String(apps[0]?.publicId);
    const r = await run(['apps', 'get', id, 'ap-doesnotexist', 'ap-missingtoo', '--json']);
    expect(r.code).toBe(3);
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((a) => a.publicId)).toEqual([id]);
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'not_found', exit: 3, message: 'not found: ap-doesnotexist, ap-missingtoo', hint: 'Run "hostctl apps list" to see the apps this token can see.', ids: ['ap-doesnotexist', 'ap-missingtoo'] },
    });
  });

  resourceTest('a malformed ID is a usage error before any request (exit 2)', async ({ run, server }) => {
    await server.clearRequests();
    const wrongPrefix = await run(['apps', 'get', 'en-12345']);
    expect(wrongPrefix.code).toBe(2);
    expect(wrongPrefix.stderr).toMatch(/app IDs begin with "ap-"/);
    const junk = await run(['teams', 'get', 'a b;rm']);
    expect(junk.code).toBe(2);
    const badEnv = await run(['deployments', 'list', '--environment', 'ap-1']);
    expect(badEnv.code).toBe(2);
    expect(await server.requests()).toHaveLength(0);
  });

  resourceTest('every resource lists and gets through the same commands', async ({ run }) => {
    for (const resource of ['apps', 'environments', 'envs', 'deployments', 'domains', 'teams', 'people', 'payment-methods']) {
      const list = json(await run([resource, 'list', '--limit', '2', '--json'])) as Record<string, unknown>[];
      expect(list.length, resource).toBeGreaterThan(0);
      const id = String(list[0]?.publicId);
      const one = json(await run([resource, 'get', id, '--json'])) as Record<string, unknown>;
      expect(one.publicId).toBe(id);
    }
  });

  resourceTest('deployments list --environment calls /environments/{id}/deployments', async ({ run, server }) => {
    const envs = json(await run(['envs', 'list', '--limit', '1', '--json'])) as Record<string, unknown>[];
    const envId = String(envs[0]?.publicId);
    await server.clearRequests();
    const r = await run(['deployments', 'list', '--environment', envId, '--json']);
    expect(r.code).toBe(0);
    const requests = await server.requests();
    expect(requests.map((q) => q.path)).toEqual([`/v1/environments/${envId}/deployments`]);
  });

  resourceTest('piped output defaults to tsv: no header, publicId first, no ESC byte even for hostile names', async ({ run, apps }) => {
    const r = await run(['apps', 'list', '--all']);
    expect(r.code).toBe(0);
    // Only the final newline goes: the last row may end in empty cells (trailing tabs).
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    expect(lines).toHaveLength(apps.length);
    expect(lines[0]?.split('\t')[0]).toBe(apps[0]?.publicId);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    const hostile = lines.find((l) => l.startsWith('ap-hostile1\t'));
    expect(hostile).toBeDefined();
    expect(hostile).toContain('red');
    expect(hostile?.split('\t').length).toBe(lines[0]?.split('\t').length);
  });

  resourceTest('-o ndjson prints one object per line; --fields keeps only those', async ({ run, apps }) => {
    const r = await run(['apps', 'list', '--limit', '3', '-o', 'ndjson', '--fields', 'publicId,name']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(['name', 'publicId']);
    const tsv = await run(['apps', 'list', '--limit', '2', '-o', 'tsv', '--fields', 'name,publicId']);
    expect(tsv.stdout.split('\n')[0]).toBe(`${String(apps[0]?.name)}\t${String(apps[0]?.publicId)}`);
  });

  resourceTest('on a terminal: a table with a header, relative times, cut to the width', async ({ pty, server, apps }) => {
    const r = await pty(['apps', 'list', '--limit', '5'], on(server), { columns: 100 });
    expect(r.code).toBe(0);
    // What the terminal shows: the spinner's line is cleared (CSI 1G / 0K) before the table.
    const text = r.stdout
      .split(/\r?\n/)
      .map((line) => (line.split(/\u001b\[(?:1G|0?K|2K)/).pop() ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''))
      .join('\n');
    expect(text).toMatch(/^PUBLIC ID +NAME/m);
    expect(text).toContain(String(apps[0]?.publicId));
    if (apps[0]?.updatedAt !== undefined) expect(text).toMatch(/ago|in \d/);
    for (const line of text.split(/\r?\n/)) expect([...line].length).toBeLessThanOrEqual(100);
  });

  resourceTest('global options work before and after the command; -R prints the rate-limit line', async ({ run }) => {
    const before = await run(['-R', '--json', 'apps', 'list', '--limit', '1']);
    const after = await run(['apps', 'list', '--limit', '1', '-R', '--json']);
    expect(before.code).toBe(0);
    expect(after.stdout).toBe(before.stdout);
    expect(after.stderr).toMatch(/^Rate limit: \d+\/\d+ requests left, resets in \d+s \(this command: 1 request\)\n$/);
  });

  resourceTest('a 404 from the API is exit 3', async ({ run }) => {
    const r = await run(['deployments', 'list', '--environment', 'en-doesnotexist']);
    expect(r.code).toBe(3);
    expect(r.stderr).not.toMatch(/at .*\.js/);
  });
});

// hostctl asks for plain JSON (Accept: application/json), but a server may answer JSON-LD
// anyway: its `@` members never reach the output, and its envelope is paged through.
describe.each(['member', 'hydra'] as const)('a server that answers JSON-LD to Accept: application/json (%s envelope)', (style) => {
  /** An alt server of the test's own that answers JSON-LD, and hostctl at it. */
  const jsonLdTest = test
    .extend('server', ({ alt }) => alt({ limit: 100000, jsonLd: style }))
    .extend('apps', ({ server }): readonly Record<string, unknown>[] => server.alt.objects('apps'))
    .extend('run', ({ hostctl, server }) => (args: string[]): Promise<RunResult> => hostctl(args, on(server)));

  jsonLdTest('apps list --json: the first page, its objects as the server holds them, no @ member', async ({ run, apps }) => {
    const list = json(await run(['apps', 'list', '--json'])) as Record<string, unknown>[];
    expect(list).toEqual(apps.slice(0, 25));
    expect(JSON.stringify(list)).not.toMatch(/"@/);
  });

  jsonLdTest('apps list --all --json: every page, followed by the envelope\'s next (no Link header), no @ member', async ({ run, server, apps }) => {
    await server.clearRequests();
    const list = json(await run(['apps', 'list', '--all', '--json'])) as Record<string, unknown>[];
    expect(list).toEqual(apps);
    expect(JSON.stringify(list)).not.toMatch(/"@/);
    const requests = await server.requests();
    expect(requests).toHaveLength(Math.ceil(apps.length / 25));
    expect(requests.slice(1).every((r) => /^cursor=/.test(r.query))).toBe(true);
  });

  jsonLdTest('-o ndjson, tsv and a table show no @ member either', async ({ run, pty, server, apps }) => {
    const nd = await run(['apps', 'list', '-o', 'ndjson']);
    expect(nd.code).toBe(0);
    const lines = nd.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual(apps.slice(0, 25));
    const tsv = await run(['apps', 'list', '-o', 'tsv']);
    expect(tsv.code).toBe(0);
    expect(tsv.stdout.split('\n')[0]?.split('\t')[0]).toBe(apps[0]?.publicId);
    expect(tsv.stdout).not.toMatch(/@(id|type|context)|hydra:|\/v1\/apps\//i);
    const table = await pty(['apps', 'list'], on(server));
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(String(apps[0]?.publicId));
    expect(table.stdout).not.toMatch(/@(id|type|context)|hydra:|\/v1\/apps\//i);
  });

  jsonLdTest('apps get ID --json: the object without its @ members', async ({ run, apps }) => {
    const id = String(apps[2]?.publicId);
    const got = json(await run(['apps', 'get', id, '--json']));
    expect(got).toEqual(apps[2]);
  });
});

describe('usage and environment errors (no server needed)', () => {
  test('no base URL: exit 2 with the way out', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'list'], { HOSTCTL_TOKEN: 'x' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/No base URL/);
    expect(r.stderr).toMatch(/--base-url/);
  });

  test('plain http to a non-loopback host is refused before connecting (exit 2)', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'list', '--base-url', 'http://api.example.invalid/v1'], { HOSTCTL_TOKEN: 'secret-token-1234' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/https/);
    expect(r.stderr).not.toContain('secret-token');
  });

  test('no token: exit 4', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'list', '--base-url', 'http://127.0.0.1:9/v1'], { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/auth login|HOSTCTL_TOKEN/);
  });

  test('unknown flag or command: exit 2; bad --limit: exit 2', async ({ hostctl }) => {
    expect((await hostctl(['apps', 'list', '--bogus'])).code).toBe(2);
    expect((await hostctl(['nonsense'])).code).toBe(2);
    const r = await hostctl(['apps', 'list', '--limit', 'ten', '--base-url', 'http://127.0.0.1:9/v1'], { HOSTCTL_TOKEN: 't' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--limit/);
    expect((await hostctl(['-o', 'yaml', 'apps', 'list'])).code).toBe(2);
  });

  test('connection refused: exit 6, one plain message, no stack trace', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'list', '--base-url', 'http://127.0.0.1:9/v1'], { HOSTCTL_TOKEN: 'tok-abcdef' });
    expect(r.code).toBe(6);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toContain('tok-abcdef');
  });

  test('connection refused with --verbose: the cause underneath (code and text) on a line of its own', async ({ hostctl }) => {
    const env = { HOSTCTL_TOKEN: 'tok-abcdef' };
    const quiet = await hostctl(['apps', 'list', '--base-url', 'http://127.0.0.1:9/v1'], env);
    const r = await hostctl(['apps', 'list', '--verbose', '--base-url', 'http://127.0.0.1:9/v1'], env);
    expect(quiet.stderr).not.toContain('Cause:');
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^Cause: ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:9$/m);
    expect(r.stderr).not.toContain('tok-abcdef');
  });

  test('--version and --help', async ({ hostctl }) => {
    const v = await hostctl(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const h = await hostctl(['apps', 'get', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/Examples:/);
  });
});

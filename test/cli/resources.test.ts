// The resource commands end to end: hostctl in-process (test/support/inproc.ts) against a real
// server on loopback. Every scenario runs against our sandbox AND the independent alt
// server, so the client is not tuned to the sandbox's own choices.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runInPty, tmpDir, type RunResult } from '../support/inproc.js';
import { startAlt, startSandboxServer, type PlatformServer } from '../support/inproc.js';
import { RawJson } from '../support/alt-server.js';

const HOSTILE = '\u001b]0;pwned\u0007\u001b[31mred\u001b[0m\u009b2J\u202eevil\tname\nnext';

const servers: Array<[string, () => Promise<PlatformServer>]> = [
  ['sandbox', () => startSandboxServer(['--rate-limit', '100000', '--seed', '7'])],
  ['alt', () => startAlt({ limit: 100000 })],
];

describe.each(servers)('resource commands against %s', (_name, start) => {
  let server: PlatformServer;
  let config: { path: string; cleanup(): void };
  let apps: Record<string, unknown>[];

  const hostctl = (args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> =>
    runCli(args, {
      env: {
        HOSTCTL_BASE_URL: server.baseUrl,
        HOSTCTL_TOKEN: server.token,
        HOSTCTL_CONFIG_DIR: config.path,
        ...env,
      },
    });
  const json = (r: RunResult): unknown => {
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  beforeAll(async () => {
    server = await start();
    config = tmpDir();
    await server.plant('apps', [{ publicId: 'ap-hostile1', name: HOSTILE, status: 'running', bigNumber: new RawJson('12345678901234567890') }]);
    apps = await server.all('apps');
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
  });

  it('lists the first page as JSON, with no JSON-LD members', async () => {
    await server.clearRequests();
    const list = json(await hostctl(['apps', 'list', '--json'])) as Record<string, unknown>[];
    expect(Array.isArray(list)).toBe(true);
    expect(list.length).toBeGreaterThan(0);
    expect(list.length).toBeLessThan(apps.length);
    expect(list.map((a) => a.publicId)).toEqual(apps.slice(0, list.length).map((a) => a.publicId));
    expect(JSON.stringify(list)).not.toMatch(/"@/);
    expect(await server.requests()).toHaveLength(1);
  });

  it('--all returns every object exactly once', async () => {
    const list = json(await hostctl(['apps', 'list', '--all', '--json'])) as Record<string, unknown>[];
    expect(list.map((a) => a.publicId)).toEqual(apps.map((a) => a.publicId));
  });

  it('--limit stops after N objects, across pages, without extra requests', async () => {
    await server.clearRequests();
    const list = json(await hostctl(['apps', 'list', '--limit', '40', '--json'])) as Record<string, unknown>[];
    expect(list.map((a) => a.publicId)).toEqual(apps.slice(0, 40).map((a) => a.publicId));
    // 40 objects need two pages of 25 or 30: never a third request.
    expect(await server.requests()).toHaveLength(2);
  });

  it('--page N shows that page', async () => {
    const first = json(await hostctl(['apps', 'list', '--json'])) as Record<string, unknown>[];
    await server.clearRequests();
    const second = json(await hostctl(['apps', 'list', '--page', '2', '--json'])) as Record<string, unknown>[];
    expect(await server.requests()).toEqual([{ method: 'GET', path: '/v1/apps', query: 'page=2' }]);
    if (server.name === 'sandbox') {
      expect(second.map((a) => a.publicId)).toEqual(apps.slice(first.length, first.length * 2).map((a) => a.publicId));
    } else {
      // A cursor-paged server has no page numbers: it ignores ?page=2 and answers its first
      // page, which hostctl shows as it came.
      expect(second.map((a) => a.publicId)).toEqual(apps.slice(0, 25).map((a) => a.publicId));
    }
  });

  it('get of 3 IDs is exactly one request, output in the order asked', async () => {
    const ids = [apps[5], apps[1], apps[3]].map((a) => String(a?.publicId));
    await server.clearRequests();
    const got = json(await hostctl(['apps', 'get', ...ids, '--json'])) as Record<string, unknown>[];
    expect(got.map((a) => a.publicId)).toEqual(ids);
    const requests = await server.requests();
    expect(requests).toHaveLength(1);
    expect(requests[0]?.path).toBe('/v1/apps');
    expect(decodeURIComponent(requests[0]?.query ?? '')).toBe(ids.map((id) => `publicId[]=${id}`).join('&'));
  });

  it('get of one ID prints the object itself, exactly as the server sent it', async () => {
    const app = apps.find((a) => a.publicId === 'ap-hostile1');
    const r = await hostctl(['apps', 'get', 'ap-hostile1', '--json']);
    expect(json(r)).toEqual(app);
    // Lossless: the big number comes out digit for digit, the hostile name as JSON escapes.
    expect(r.stdout).toContain('12345678901234567890');
    expect(r.stdout).toContain('\\u001b]0;pwned\\u0007');
    expect(r.stdout).not.toContain('\u001b');
  });

  it('a missing ID: the others are printed, "hostctl: not found: <id>" and the command that lists on stderr, exit 3', async () => {
    const id = String(apps[0]?.publicId);
    const r = await hostctl(['apps', 'get', id, 'ap-doesnotexist', '-o', 'tsv']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('hostctl: not found: ap-doesnotexist\nRun "hostctl apps list" to see the apps this token can see.\n');
    expect(r.stdout.split('\t')[0]).toBe(id);
  });

  it('a missing ID under --json: the found objects on stdout, exit 3, one JSON error line with the missing ids', async () => {
    const id = String(apps[0]?.publicId);
    const r = await hostctl(['apps', 'get', id, 'ap-doesnotexist', 'ap-missingtoo', '--json']);
    expect(r.code).toBe(3);
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((a) => a.publicId)).toEqual([id]);
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'not_found', exit: 3, message: 'not found: ap-doesnotexist, ap-missingtoo', hint: 'Run "hostctl apps list" to see the apps this token can see.', ids: ['ap-doesnotexist', 'ap-missingtoo'] },
    });
  });

  it('a malformed ID is a usage error before any request (exit 2)', async () => {
    await server.clearRequests();
    const wrongPrefix = await hostctl(['apps', 'get', 'en-12345']);
    expect(wrongPrefix.code).toBe(2);
    expect(wrongPrefix.stderr).toMatch(/app IDs begin with "ap-"/);
    const junk = await hostctl(['teams', 'get', 'a b;rm']);
    expect(junk.code).toBe(2);
    const badEnv = await hostctl(['deployments', 'list', '--environment', 'ap-1']);
    expect(badEnv.code).toBe(2);
    expect(await server.requests()).toHaveLength(0);
  });

  it('every resource lists and gets through the same commands', async () => {
    for (const resource of ['apps', 'environments', 'envs', 'deployments', 'domains', 'teams', 'people', 'payment-methods']) {
      const list = json(await hostctl([resource, 'list', '--limit', '2', '--json'])) as Record<string, unknown>[];
      expect(list.length, resource).toBeGreaterThan(0);
      const id = String(list[0]?.publicId);
      const one = json(await hostctl([resource, 'get', id, '--json'])) as Record<string, unknown>;
      expect(one.publicId).toBe(id);
    }
  });

  it('deployments list --environment calls /environments/{id}/deployments', async () => {
    const envs = json(await hostctl(['envs', 'list', '--limit', '1', '--json'])) as Record<string, unknown>[];
    const envId = String(envs[0]?.publicId);
    await server.clearRequests();
    const r = await hostctl(['deployments', 'list', '--environment', envId, '--json']);
    expect(r.code).toBe(0);
    const requests = await server.requests();
    expect(requests.map((q) => q.path)).toEqual([`/v1/environments/${envId}/deployments`]);
  });

  it('piped output defaults to tsv: no header, publicId first, no ESC byte even for hostile names', async () => {
    const r = await hostctl(['apps', 'list', '--all']);
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

  it('-o ndjson prints one object per line; --fields keeps only those', async () => {
    const r = await hostctl(['apps', 'list', '--limit', '3', '-o', 'ndjson', '--fields', 'publicId,name']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(['name', 'publicId']);
    const tsv = await hostctl(['apps', 'list', '--limit', '2', '-o', 'tsv', '--fields', 'name,publicId']);
    expect(tsv.stdout.split('\n')[0]).toBe(`${String(apps[0]?.name)}\t${String(apps[0]?.publicId)}`);
  });

  it('on a terminal: a table with a header, relative times, cut to the width', async () => {
    const r = await runInPty(['apps', 'list', '--limit', '5'], {
      env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path },
      columns: 100,
    });
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

  it('global options work before and after the command; -R prints the rate-limit line', async () => {
    const before = await hostctl(['-R', '--json', 'apps', 'list', '--limit', '1']);
    const after = await hostctl(['apps', 'list', '--limit', '1', '-R', '--json']);
    expect(before.code).toBe(0);
    expect(after.stdout).toBe(before.stdout);
    expect(after.stderr).toMatch(/^Rate limit: \d+\/\d+ requests left, resets in \d+s \(this command: 1 request\)\n$/);
  });

  it('a 404 from the API is exit 3', async () => {
    const r = await hostctl(['deployments', 'list', '--environment', 'en-doesnotexist']);
    expect(r.code).toBe(3);
    expect(r.stderr).not.toMatch(/at .*\.js/);
  });
});

// hostctl asks for plain JSON (Accept: application/json), but a server may answer JSON-LD
// anyway: its `@` members never reach the output, and its envelope is paged through.
describe.each(['member', 'hydra'] as const)('a server that answers JSON-LD to Accept: application/json (%s envelope)', (style) => {
  let server: PlatformServer & { alt: Awaited<ReturnType<typeof startAlt>>['alt'] };
  let config: { path: string; cleanup(): void };
  let apps: readonly Record<string, unknown>[];

  const hostctl = (args: string[]): Promise<RunResult> =>
    runCli(args, { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path } });
  const json = (r: RunResult): unknown => {
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  beforeAll(async () => {
    server = await startAlt({ limit: 100000, jsonLd: style });
    config = tmpDir();
    apps = server.alt.objects('apps');
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
  });

  it('apps list --json: the first page, its objects as the server holds them, no @ member', async () => {
    const list = json(await hostctl(['apps', 'list', '--json'])) as Record<string, unknown>[];
    expect(list).toEqual(apps.slice(0, 25));
    expect(JSON.stringify(list)).not.toMatch(/"@/);
  });

  it('apps list --all --json: every page, followed by the envelope\'s next (no Link header), no @ member', async () => {
    await server.clearRequests();
    const list = json(await hostctl(['apps', 'list', '--all', '--json'])) as Record<string, unknown>[];
    expect(list).toEqual(apps);
    expect(JSON.stringify(list)).not.toMatch(/"@/);
    const requests = await server.requests();
    expect(requests).toHaveLength(Math.ceil(apps.length / 25));
    expect(requests.slice(1).every((r) => /^cursor=/.test(r.query))).toBe(true);
  });

  it('-o ndjson, tsv and a table show no @ member either', async () => {
    const nd = await hostctl(['apps', 'list', '-o', 'ndjson']);
    expect(nd.code).toBe(0);
    const lines = nd.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual(apps.slice(0, 25));
    const tsv = await hostctl(['apps', 'list', '-o', 'tsv']);
    expect(tsv.code).toBe(0);
    expect(tsv.stdout.split('\n')[0]?.split('\t')[0]).toBe(apps[0]?.publicId);
    expect(tsv.stdout).not.toMatch(/@(id|type|context)|hydra:|\/v1\/apps\//i);
    const table = await runInPty(['apps', 'list'], { env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path } });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(String(apps[0]?.publicId));
    expect(table.stdout).not.toMatch(/@(id|type|context)|hydra:|\/v1\/apps\//i);
  });

  it('apps get ID --json: the object without its @ members', async () => {
    const id = String(apps[2]?.publicId);
    const got = json(await hostctl(['apps', 'get', id, '--json']));
    expect(got).toEqual(apps[2]);
  });
});

describe('usage and environment errors (no server needed)', () => {
  it('no base URL: exit 2 with the way out', async () => {
    const config = tmpDir();
    const r = await runCli(['apps', 'list'], { env: { HOSTCTL_TOKEN: 'x', HOSTCTL_CONFIG_DIR: config.path } });
    config.cleanup();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/No base URL/);
    expect(r.stderr).toMatch(/--base-url/);
  });

  it('plain http to a non-loopback host is refused before connecting (exit 2)', async () => {
    const config = tmpDir();
    const r = await runCli(['apps', 'list', '--base-url', 'http://api.example.invalid/v1'], {
      env: { HOSTCTL_TOKEN: 'secret-token-1234', HOSTCTL_CONFIG_DIR: config.path },
    });
    config.cleanup();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/https/);
    expect(r.stderr).not.toContain('secret-token');
  });

  it('no token: exit 4', async () => {
    const config = tmpDir();
    const r = await runCli(['apps', 'list', '--base-url', 'http://127.0.0.1:9/v1'], {
      env: { HOSTCTL_CONFIG_DIR: config.path, HOME: config.path, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' },
    });
    config.cleanup();
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/auth login|HOSTCTL_TOKEN/);
  });

  it('unknown flag or command: exit 2; bad --limit: exit 2', async () => {
    expect((await runCli(['apps', 'list', '--bogus'])).code).toBe(2);
    expect((await runCli(['nonsense'])).code).toBe(2);
    const r = await runCli(['apps', 'list', '--limit', 'ten', '--base-url', 'http://127.0.0.1:9/v1'], { env: { HOSTCTL_TOKEN: 't' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--limit/);
    expect((await runCli(['-o', 'yaml', 'apps', 'list'])).code).toBe(2);
  });

  it('connection refused: exit 6, one plain message, no stack trace', async () => {
    const config = tmpDir();
    const r = await runCli(['apps', 'list', '--base-url', 'http://127.0.0.1:9/v1'], {
      env: { HOSTCTL_TOKEN: 'tok-abcdef', HOSTCTL_CONFIG_DIR: config.path },
    });
    config.cleanup();
    expect(r.code).toBe(6);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toContain('tok-abcdef');
  });

  it('connection refused with --verbose: the cause underneath (code and text) on a line of its own', async () => {
    const config = tmpDir();
    const env = { HOSTCTL_TOKEN: 'tok-abcdef', HOSTCTL_CONFIG_DIR: config.path };
    const quiet = await runCli(['apps', 'list', '--base-url', 'http://127.0.0.1:9/v1'], { env });
    const r = await runCli(['apps', 'list', '--verbose', '--base-url', 'http://127.0.0.1:9/v1'], { env });
    config.cleanup();
    expect(quiet.stderr).not.toContain('Cause:');
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^Cause: ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:9$/m);
    expect(r.stderr).not.toContain('tok-abcdef');
  });

  it('--version and --help', async () => {
    const v = await runCli(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const h = await runCli(['apps', 'get', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/Examples:/);
  });
});

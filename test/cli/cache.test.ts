// --cache (issue 13): answers and the objects of lists served from a private on-disk
// cache, revalidated with the sandbox's ETags, never errors, never the token; and
// `hostctl cache info|clear`. Judged by the requests the servers counted.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { filesContaining, runCli, sandboxAdmin, VirtualClock } from '../support/inproc.js';
import { answer, behaviours, firstThen, NO_PROXY_ENV, type Behaviour } from '../support/hostile-server.js';

// A large limit: this file is about the cache, and its requests outnumber one window.
const test = cliTest({ sandbox: ['--rate-limit', '1000'], runOnSandbox: true })
  .extend('requests', ({ sandbox }) => () => sandboxAdmin(sandbox).requests())
  .extend('apps', async ({ sandbox }) => (await (await fetch(`${sandbox.origin}/_sandbox/objects/apps`)).json()) as { publicId: string }[]);

test.beforeEach(async ({ sandbox }) => {
  await sandboxAdmin(sandbox).clearRequests();
});

describe('--cache', () => {
  test('without it nothing is served from the cache', async ({ hostctl, requests }) => {
    await hostctl(['apps', 'list', '--json']);
    await hostctl(['apps', 'list', '--json']);
    expect(await requests()).toHaveLength(2);
  });

  test('a second identical read within the duration sends nothing and prints the same', async ({ hostctl, requests }) => {
    const a = await hostctl(['apps', 'list', '--json', '--cache', '10m']);
    const b = await hostctl(['apps', 'list', '--json', '--cache', '10m', '-R']);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(b.stderr).toMatch(/this command: 0 requests, 1 answered from the cache/);
    expect(await requests()).toHaveLength(1);
  });

  test('after apps list --all, get of seen IDs sends nothing; unseen IDs go in one batched request', async ({ hostctl, requests, apps, sandbox }) => {
    const all = await hostctl(['apps', 'list', '--all', '--json', '--cache', '10m']);
    expect(all.code).toBe(0);
    const listed = (await requests()).length;
    const ids = apps.slice(0, 3).map((a) => a.publicId);
    const got = await hostctl(['apps', 'get', ...ids, '--json', '--cache', '10m']);
    expect(got.code, got.stderr).toBe(0);
    expect((JSON.parse(got.stdout) as { publicId: string }[]).map((o) => o.publicId)).toEqual(ids);
    expect(await requests()).toHaveLength(listed);

    // A new app the list never showed: one request, for it alone.
    await fetch(`${sandbox.origin}/_sandbox/objects/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ publicId: 'ap-cachenew001', name: 'new' }]) });
    const mixed = await hostctl(['apps', 'get', ids[0]!, 'ap-cachenew001', '--json', '--cache', '10m']);
    expect(mixed.code, mixed.stderr).toBe(0);
    const seen = await requests();
    expect(seen).toHaveLength(listed + 1);
    expect(seen.at(-1)?.query).toBe('publicId[]=ap-cachenew001');
  });

  test('HOSTCTL_CACHE and the profile setting turn it on too; the flag wins', async ({ hostctl, requests }) => {
    await hostctl(['apps', 'list', '--json'], { HOSTCTL_CACHE: '10m' });
    await hostctl(['apps', 'list', '--json'], { HOSTCTL_CACHE: '10m' });
    expect(await requests()).toHaveLength(1);
    expect((await hostctl(['config', 'set', 'profiles.default.cache', '10m'])).code).toBe(0);
    await hostctl(['apps', 'list', '--json']);
    expect(await requests()).toHaveLength(1);
    expect((await hostctl(['config', 'set', 'profiles.default.cache', 'soon'])).code).toBe(2);
  });

  test('a stale entry is revalidated with If-None-Match, and the 304 serves the stored body', async ({ hostctl, requests, sandbox }) => {
    const a = await hostctl(['apps', 'list', '--json', '--cache', '10m']);
    // --cache 0.001 (1 ms), and 2 ms of the run's clock later: the entry is stale.
    await sandbox.clock.sleep(2);
    const b = await hostctl(['apps', 'list', '--json', '--cache', '0.001']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const seen = await requests();
    expect(seen.map((r) => r.status)).toEqual([200, 304]);
  });

  test('the files are private (0700 / 0600) and never hold the token', async ({ hostctl, sandbox, config }) => {
    await hostctl(['apps', 'list', '--all', '--json', '--cache', '10m']);
    const dir = join(config.path, 'cache');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
    expect(filesContaining(config.path, sandbox.token)).toEqual([]);
    expect(readFileSync(join(dir, files[0]!), 'utf8')).not.toContain(sandbox.token);
  });

  test('errors are never cached', async ({ config, hostile }) => {
    const server = await hostile((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"title":"boom"}');
    });
    const env = { ...NO_PROXY_ENV, HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: 'hc_cachetesttoken000000000000001', HOSTCTL_CONFIG_DIR: config.path };
    for (let i = 0; i < 2; i++) expect((await runCli(['apps', 'list', '--cache', '10m'], { env })).code).toBe(1);
    expect(server.seen).toHaveLength(2);
  });

  test('wait never answers from the cache', async ({ hostctl, requests, apps }) => {
    await hostctl(['apps', 'list', '--all', '--json', '--cache', '10m']);
    const before = (await requests()).length;
    const r = await hostctl(['apps', 'wait', apps[0]!.publicId, '--for', `publicId=${apps[0]!.publicId}`, '--cache', '10m']);
    expect(r.code, r.stderr).toBe(0);
    expect(await requests()).toHaveLength(before + 1);
  });
});

describe('--cache keeps only answers the run used successfully', () => {
  // Each a 200 that hostctl itself rejects; the server then recovers (behaviours.ok).
  const rejected: [string, Behaviour][] = [
    ['an HTML page', answer(200, { 'content-type': 'text/html; charset=utf-8' }, '<!DOCTYPE html><html><body>Down for maintenance</body></html>')],
    ['invalid JSON', behaviours.invalidJson],
    ['truncated JSON', behaviours.truncatedJson],
    ['an empty body', behaviours.empty200],
    ['an object where a list belongs', answer(200, { 'content-type': 'application/json' }, '{"publicId":"ap-hostile001","name":"not a list"}')],
  ];
  for (const [what, bad] of rejected) {
    test(`${what} is not replayed after the server recovered`, async ({ config, hostile }) => {
      const server = await hostile(firstThen(bad, behaviours.ok));
      const env = { ...NO_PROXY_ENV, HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: 'hc_cachetesttoken000000000000002', HOSTCTL_CONFIG_DIR: config.path };
      const first = await runCli(['apps', 'list', '--json', '--cache', '10m'], { env });
      expect(first.code, first.stderr).not.toBe(0);
      const second = await runCli(['apps', 'list', '--json', '--cache', '10m'], { env });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain('ap-hostile001');
      expect(server.seen).toHaveLength(2);
      // The good answer is kept: a third run is served from disk.
      expect((await runCli(['apps', 'list', '--json', '--cache', '10m'], { env })).code).toBe(0);
      expect(server.seen).toHaveLength(2);
    });
  }
});

describe('a request that asks the server now never comes from the cache', () => {
  test('auth status --check on a token revoked since sends its request and says rejected', async ({ hostctl, requests, sandbox }) => {
    const token = await sandboxAdmin(sandbox).newToken('cache-check-revoked');
    const env = { HOSTCTL_TOKEN: token, HOSTCTL_CACHE: '10m' };
    const ok = await hostctl(['auth', 'status', '--check', '-R'], env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^Check: +accepted by the API \(1 request\)$/m);
    expect(ok.stderr).toMatch(/this command: 1 request\b/);
    await sandboxAdmin(sandbox).revoke('cache-check-revoked');
    const after = await hostctl(['auth', 'status', '--check'], env);
    expect(after.code).toBe(4);
    expect(after.stdout).toMatch(/^Check: +rejected$/m);
    expect(await requests()).toHaveLength(2);
  });

  test('rate-limit --refresh asks the API even when the same path was just cached', async ({ hostctl, requests }) => {
    expect((await hostctl(['apps', 'list', '--json'], { HOSTCTL_CACHE: '10m' })).code).toBe(0);
    const r = await hostctl(['rate-limit', '--refresh', '--json'], { HOSTCTL_CACHE: '10m' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ limit: expect.any(Number) });
    expect(await requests()).toHaveLength(2);
  });

  test('docs --refresh fetches the reference each time', async ({ hostctl, requests }) => {
    for (let i = 0; i < 2; i++) expect((await hostctl(['docs', '--refresh'], { HOSTCTL_CACHE: '10m' })).code).toBe(0);
    expect((await requests()).filter((r) => r.path.endsWith('/docs'))).toHaveLength(2);
  });
});

describe('revalidation by date (a server that sends Last-Modified and no ETag)', () => {
  test('a stale entry is asked for with If-Modified-Since, and the 304 serves the stored body', async ({ sandbox, config, hostile }) => {
    const modified = 'Tue, 03 Jun 2025 10:00:00 GMT';
    const body = JSON.stringify([{ publicId: 'ap-dated00001', name: 'dated' }]);
    const server = await hostile((req, res) => {
      if (req.headers['if-modified-since'] === modified) {
        res.writeHead(304, { 'last-modified': modified });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'last-modified': modified });
      res.end(body);
    });
    const clock = new VirtualClock(Date.now());
    const run = () => runCli(['apps', 'list', '--json', '--cache', '60s'], { clock, env: { ...NO_PROXY_ENV, HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path } });
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(server.seen[0]?.headers['if-modified-since']).toBeUndefined();
    await clock.sleep(60_001);
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(body));
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]?.headers['if-modified-since']).toBe(modified);
    expect(server.seen[1]?.headers['if-none-match']).toBeUndefined();
  });
});

describe('--cache reads the run\'s clock', () => {
  test('an entry is fresh up to the duration and revalidated just after it', async ({ requests, sandbox, config }) => {
    // hostctl's own clock, not the sandbox's: only the cache's notion of age moves.
    const clock = new VirtualClock(Date.now());
    const run = () => runCli(['apps', 'list', '--json', '--cache', '60s'], { clock, env: { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path } });
    expect((await run()).code).toBe(0);
    expect(clock.sleeps).toEqual([]);
    await clock.sleep(60_000);
    expect((await run()).code).toBe(0);
    expect(await requests()).toHaveLength(1);
    await clock.sleep(1);
    const late = await run();
    expect(late.code, late.stderr).toBe(0);
    expect((await requests()).map((r) => r.status)).toEqual([200, 304]);
  });
});

describe('hostctl cache info|clear', () => {
  test('info shows entries, size and the oldest; clear removes them; neither sends a request', async ({ hostctl, requests, config }) => {
    const empty = JSON.parse((await hostctl(['cache', 'info', '--json'])).stdout) as { entries: number; bytes: number; oldest: string | null };
    expect(empty).toMatchObject({ entries: 0, bytes: 0, oldest: null });
    await hostctl(['apps', 'list', '--json', '--cache', '10m']);
    const full = JSON.parse((await hostctl(['cache', 'info', '--json'])).stdout) as { entries: number; bytes: number; oldest: string | null };
    // One page, one request: two files, the answer and the objects it holds, and nothing else.
    const dir = join(config.path, 'cache');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
    expect(files.map((f) => f.split('/').slice(-2, -1)[0]).sort()).toEqual(['answers', 'objects']);
    const stats = files.map((f) => statSync(join(dir, f)));
    const bytes = stats.reduce((n, st) => n + st.size, 0);
    const oldest = new Date(Math.min(...stats.map((st) => st.mtimeMs))).toISOString();
    expect(full).toEqual({ path: dir, entries: 2, bytes, oldest });
    const text = await hostctl(['cache', 'info']);
    expect(text.stdout).toMatch(/^Entries: 2$/m);
    const cleared = await hostctl(['cache', 'clear']);
    expect(cleared.code).toBe(0);
    expect(cleared.stderr).toBe(`Removed 2 cached entries (${bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`}).\n`);
    expect(JSON.parse((await hostctl(['cache', 'info', '--json'])).stdout)).toMatchObject({ entries: 0 });
    expect(await requests()).toHaveLength(1);
  });
});

describe('--cache against the alt server (no validators promised)', () => {
  test('list then get of seen IDs: one request in all', async ({ config, alt }) => {
    const server = await alt();
    const env = { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path };
    await server.clearRequests();
    const list = await runCli(['apps', 'list', '--json', '--cache', '10m'], { env });
    expect(list.code, list.stderr).toBe(0);
    const ids = (JSON.parse(list.stdout) as { publicId: string }[]).slice(0, 2).map((o) => o.publicId);
    const got = await runCli(['apps', 'get', ...ids, '--json', '--cache', '10m'], { env });
    expect(got.code, got.stderr).toBe(0);
    expect(await server.requests()).toHaveLength(1);
  });
});

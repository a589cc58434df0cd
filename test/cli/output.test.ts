// Seeing and shaping objects (issue 14), end to end against the independent test server,
// whose field names (teamId, appId, environmentId, displayName, fqdn), reference nesting
// (flat IDs, or {"publicId", "displayName"} under names of its own) and paging (cursors,
// Link header, 25 a page) differ from the sandbox's: fixed tsv columns, relation filters,
// names for references, the detail view, the partial-list note, the --fields warning,
// --jq, and streaming that stops when the reader goes away.

import { describe, expect } from 'vitest';
import { cliTerminalTest, type Env } from '../support/fixtures.js';
import type { RunResult } from '../support/inproc.js';
import { RawJson, startAltServer } from '../support/alt-server.js';

type Alt = Awaited<ReturnType<typeof startAltServer>>;
type Obj = Record<string, unknown>;

/** An alt server for the whole file, with one app of big numbers: tests read it, and count requests after clearing them. */
async function fileAlt(options: Parameters<typeof startAltServer>[0], onCleanup: (fn: () => Promise<void>) => void): Promise<Alt> {
  // A limit no test reaches: these tests count requests, not waits.
  const server = await startAltServer({ limit: 10_000, ...options });
  onCleanup(() => server.close());
  server.addObjects('apps', [{ publicId: 'ap-big0001', name: 'big-numbers', status: 'live', bytes: new RawJson('123456789012345678901234567890'), ratio: new RawJson('1.00000000000000000000001') }]);
  return server;
}

const on = (server: Alt, extra: Env = {}): Env => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, ...extra });

/* eslint-disable no-empty-pattern -- vitest reads what a fixture needs from an object pattern: `{}` is "nothing". */
const test = cliTerminalTest()
  .extend('flat', { scope: 'file' }, ({}, { onCleanup }) => fileAlt({}, onCleanup))
  .extend('nested', { scope: 'file' }, ({}, { onCleanup }) => fileAlt({ nestReferences: true, totalHeader: true }, onCleanup))
  /* eslint-enable no-empty-pattern */
  /** hostctl in the test's home against `server`. */
  .extend('run', ({ hostctl }) => (server: Alt, args: string[], extra: Env = {}) => hostctl(args, on(server, extra)))
  /** The same on a terminal of `columns`, without colour. */
  .extend('screen', ({ pty }) => (server: Alt, args: string[], columns = 120) => pty([...args, '--no-color'], on(server), { columns }));

function ok(r: RunResult): RunResult {
  // The -R lines, and the paging walk's own note: this server ignores ?page=, so a
  // last page without a Link header is asked for once more (http/paging.ts).
  expect(r.stderr.replace(/^Filter .*\n|^Rate limit: .*\n|^hostctl: warning: the API sent the same items .*\n|^\{"warning":\{"message":"the API sent the same items .*\n/gm, '')).toBe('');
  expect(r.code).toBe(0);
  return r;
}

const ids = (list: readonly Obj[]) => list.map((o) => String(o.publicId)).sort();
const jsonIds = (r: RunResult) => ids(JSON.parse(ok(r).stdout) as Obj[]);

describe('tsv columns are fixed by the resource', () => {
  test('writes publicId and every declared column on every line, empty where the server has no such field', async ({ run, flat }) => {
    const r = ok(await run(flat, ['apps', 'list', '--all', '-o', 'tsv']));
    const lines = r.stdout.split('\n').slice(0, -1).map((l) => l.split('\t'));
    expect(lines).toHaveLength(flat.objects('apps').length);
    // publicId, name, status, region, team, updatedAt: the alt server has no "team" field.
    for (const cells of lines) expect(cells).toHaveLength(6);
    const big = lines.find((c) => c[0] === 'ap-big0001');
    expect(big).toEqual(['ap-big0001', 'big-numbers', 'live', '', '', '']);
    expect(new Set(lines.map((c) => c[2]))).toEqual(new Set(['live', 'paused', 'building']));
  });

  test('writes a nested reference as its public ID', async ({ run, nested }) => {
    const r = ok(await run(nested, ['environments', 'list', '--limit', '3', '--fields', 'publicId,application', '-o', 'tsv']));
    const appIds = new Set(nested.objects('apps').map((a) => a.publicId));
    for (const line of r.stdout.trimEnd().split('\n')) {
      const [, app] = line.split('\t');
      expect(appIds.has(app)).toBe(true);
    }
  });
});

describe('relation filters match by value, whatever the server calls the field', () => {
  for (const shape of ['flat', 'nested'] as const) {
    test(`environments list --app (${shape} references)`, async ({ run, flat, nested }) => {
      const server = () => (shape === 'flat' ? flat : nested);
      const app = server().objects('apps')[4] as Obj;
      const want = server().objects('environments').filter((e) => e.appId === app.publicId);
      expect(want.length).toBeGreaterThan(0);
      expect(jsonIds(await run(server(), ['environments', 'list', '--app', String(app.publicId), '--json']))).toEqual(ids(want));
    });

    test(`deployments and domains list --app, through the app's environments (${shape})`, async ({ run, flat, nested }) => {
      const server = () => (shape === 'flat' ? flat : nested);
      const app = server().objects('apps')[7] as Obj;
      const envs = new Set(server().objects('environments').filter((e) => e.appId === app.publicId).map((e) => e.publicId));
      const deployments = server().objects('deployments').filter((d) => envs.has(d.environmentId));
      const domains = server().objects('domains').filter((d) => envs.has(d.environmentId));
      server().clearRequests();
      const r = await run(server(), ['deployments', 'list', '--app', String(app.publicId), '--json', '-R']);
      expect(jsonIds(r)).toEqual(ids(deployments));
      // Two environments: the API's own route for each, after one walk of the environments.
      const spent = server().requests.length;
      expect(r.stderr).toContain(`Filter --app ${String(app.publicId)}: ${spent} requests`);
      const routes = new Set(server().requests.filter((q) => /^\/v1\/environments\/[^/]+\/deployments$/.test(q.path)).map((q) => q.path));
      expect(routes.size).toBe(envs.size);
      // No walk of the deployments collection itself.
      expect(server().requests.filter((q) => q.path === '/v1/deployments')).toHaveLength(0);
      expect(jsonIds(await run(server(), ['domains', 'list', '--app', String(app.publicId), '--json']))).toEqual(ids(domains));
    });

    test(`deployments list --environment uses the API's route; domains list --environment walks (${shape})`, async ({ run, flat, nested }) => {
      const server = () => (shape === 'flat' ? flat : nested);
      const environment = server().objects('environments')[10] as Obj;
      const id = String(environment.publicId);
      server().clearRequests();
      const deployments = server().objects('deployments').filter((d) => d.environmentId === id);
      expect(jsonIds(await run(server(), ['deployments', 'list', '--environment', id, '--json']))).toEqual(ids(deployments));
      expect(server().requests.map((q) => q.path)).toEqual([`/v1/environments/${id}/deployments`]);
      const domains = server().objects('domains').filter((d) => d.environmentId === id);
      expect(jsonIds(await run(server(), ['domains', 'list', '--environment', id, '--json']))).toEqual(ids(domains));
    });

    test(`apps, people and payment-methods list --team (${shape})`, async ({ run, flat, nested }) => {
      const server = () => (shape === 'flat' ? flat : nested);
      const team = String((server().objects('teams')[1] as Obj).publicId);
      for (const resource of ['apps', 'people', 'payment-methods']) {
        const want = server().objects(resource).filter((o) => o.teamId === team);
        expect(want.length, resource).toBeGreaterThan(0);
        expect(jsonIds(await run(server(), [resource, 'list', '--team', team, '--json'])), resource).toEqual(ids(want));
      }
    });
  }

  test('stops walking once --limit objects matched, and refuses --page and two filters at once', async ({ run, flat }) => {
    const team = String((flat.objects('teams')[0] as Obj).publicId);
    flat.clearRequests();
    const r = await run(flat, ['apps', 'list', '--team', team, '--limit', '2', '--json']);
    expect(JSON.parse(ok(r).stdout)).toHaveLength(2);
    expect(flat.requests).toHaveLength(1);
    flat.clearRequests();
    const both = await run(flat, ['domains', 'list', '--app', 'ap-x', '--environment', 'en-y']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give only one of --environment, --app');
    const page = await run(flat, ['apps', 'list', '--team', team, '--page', '2']);
    expect(page.code).toBe(2);
    expect(flat.requests).toHaveLength(0);
  });
});

describe('tables and the detail view on a terminal', () => {
  test('shows a reference by the name hostctl has seen, with no extra request', async ({ run, screen, flat }) => {
    ok(await run(flat, ['teams', 'list']));
    const team = flat.objects('teams')[0] as Obj;
    flat.clearRequests();
    const r = await screen(flat, ['apps', 'list', '--fields', 'publicId,teamId']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${String(team.displayName)} (${String(team.publicId)})`);
    expect(flat.requests).toHaveLength(1);
  });

  test('shows a nested reference by the name it carries, never as JSON, and short digests', async ({ screen, nested }) => {
    const r = await screen(nested, ['deployments', 'list', '--limit', '3', '--fields', 'publicId,deployTarget,sha']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('{');
    expect(r.stdout).toMatch(/(prod|preview) \(en-[0-9a-z]+\)/);
  });

  test('never cuts the public ID; drops the lowest-priority columns first on a narrow terminal', async ({ screen, flat }) => {
    const r = await screen(flat, ['apps', 'list'], 30);
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.split(/\r?\n/).filter((l) => l && !l.startsWith('Showing'));
    expect(header?.split(/\s{2,}/)[0]).toBe('PUBLIC ID');
    for (const row of rows) expect(row).toMatch(/^ap-[0-9a-z]{6,}\s/);
    const wide = await screen(flat, ['apps', 'list'], 200);
    expect(wide.stdout.split(/\r?\n/)[0]?.split(/\s{2,}/)).toEqual(['PUBLIC ID', 'NAME', 'STATUS', 'REGION', 'UPDATED AT', 'TEAM ID']);
  });

  test('prints one object as a key/value view with every field, references by name, times relative and absolute', async ({ run, screen, nested }) => {
    const app = nested.objects('apps')[2] as Obj;
    const team = nested.objects('teams').find((t) => t.publicId === app.teamId) as Obj;
    const r = await screen(nested, ['apps', 'get', String(app.publicId)]);
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\r/g, '');
    expect(text).toMatch(new RegExp(`^publicId:\\s+${String(app.publicId)}$`, 'm'));
    expect(text).toMatch(new RegExp(`^owningTeam:\\s+${String(team.displayName)} \\(${String(team.publicId)}\\)$`, 'm'));
    expect(text).toMatch(/^updatedAt:\s+\d+ (months|years?) ago \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/m);
    // Into a pipe nothing changes: one tsv row.
    expect(ok(await run(nested, ['apps', 'get', String(app.publicId)])).stdout.split('\n')).toHaveLength(2);
  });

  test('says on stderr when a list is only its first page: from a next link, or from a total', async ({ run, screen, flat, nested }) => {
    const linked = await screen(flat, ['apps', 'list']);
    expect(linked.stdout).toContain('Showing 25 apps; there are more. Use --all for every page, or --page 2.');
    const counted = await screen(nested, ['apps', 'list']);
    expect(counted.stdout).toContain(`Showing 25 of ${nested.objects('apps').length} apps. Use --all for every page, or --page 2.`);
    const all = await screen(flat, ['apps', 'list', '--all']);
    expect(all.stdout).not.toContain('Showing');
    // Not on a pipe: scripts get data only.
    expect(ok(await run(flat, ['apps', 'list'])).stderr).toBe('');
  });
});

describe('--fields', () => {
  test('warns about a field no object has, naming the fields there are; the exit code stays 0', async ({ run, flat }) => {
    const r = await run(flat, ['apps', 'list', '--fields', 'publicId,nosuch', '-o', 'tsv']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('--fields: no object has "nosuch"; the objects have: publicId, name, status, region, updatedAt, teamId');
    const fine = await run(flat, ['apps', 'list', '--fields', 'publicId,teamId']);
    expect(fine.stderr).toBe('');
  });
});

describe('--jq', () => {
  test('runs once over every page as one array, strings raw', async ({ run, flat }) => {
    const count = flat.objects('apps').length;
    expect(ok(await run(flat, ['apps', 'list', '--all', '--jq', 'length'])).stdout).toBe(`${count}\n`);
    const names = ok(await run(flat, ['apps', 'list', '--all', '--jq', '.[].name'])).stdout.split('\n').slice(0, -1);
    expect(names).toEqual(flat.objects('apps').map((a) => a.name));
  });

  test('keeps big numbers exact (jq 1.7 keeps number literals it does not compute with)', async ({ run, flat }) => {
    const r = ok(await run(flat, ['apps', 'get', 'ap-big0001', '--jq', '.bytes, .ratio, [.bytes]']));
    expect(r.stdout).toBe('123456789012345678901234567890\n1.00000000000000000000001\n[\n  123456789012345678901234567890\n]\n');
  });

  test('is a usage error (exit 2) before any request when the expression does not compile', async ({ run, flat }) => {
    flat.clearRequests();
    for (const args of [['apps', 'list'], ['apps', 'get', 'ap-big0001'], ['api', '/apps'], ['rate-limit', '--refresh']]) {
      const r = await run(flat, [...args, '--jq', '.[']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^hostctl: --jq: syntax error, unexpected end of file/);
      expect(r.stdout).toBe('');
    }
    expect(flat.requests).toHaveLength(0);
  });

  test('works on api, auth status, config list and rate-limit', async ({ run, flat }) => {
    expect(ok(await run(flat, ['api', '/apps', '--jq', 'length'])).stdout).toBe('25\n');
    expect(ok(await run(flat, ['auth', 'status', '--jq', '.tokenSource'])).stdout).toBe('env\n');
    expect(ok(await run(flat, ['config', 'list', '--jq', '.profiles | length'])).stdout).toBe('0\n');
    expect(ok(await run(flat, ['rate-limit', '--refresh', '--jq', '.limit'])).stdout).toBe('10000\n');
    expect(ok(await run(flat, ['auth', 'status', '--fields', 'profile,tokenSource', '-o', 'tsv'])).stdout).toBe('default\tenv\n');
  });

  test('reports a runtime error with exit 1', async ({ run, flat }) => {
    const r = await run(flat, ['apps', 'list', '--jq', 'error("boom")']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('hostctl: --jq: boom');
  });
});

describe('output that streams', () => {
  test('json, ndjson and tsv of --all carry every object once, in order', async ({ run, alt }) => {
    const many = await alt({ limit: 10_000 }).then((s) => s.alt);
    // A hundred more than the server's own: a walk of seven pages.
    const extra = Array.from({ length: 100 }, (_, i) => ({ publicId: `ap-s${String(i).padStart(5, '0')}`, name: `s-${i}`, status: 'live' }));
    many.addObjects('apps', extra);
    const all = many.objects('apps').map((a) => a.publicId);
    expect((JSON.parse(ok(await run(many, ['apps', 'list', '--all', '-o', 'json'])).stdout) as Obj[]).map((a) => a.publicId)).toEqual(all);
    expect(ok(await run(many, ['apps', 'list', '--all', '-o', 'ndjson'])).stdout.split('\n').slice(0, -1).map((l) => (JSON.parse(l) as Obj).publicId)).toEqual(all);
    expect(ok(await run(many, ['apps', 'list', '--all', '-o', 'tsv'])).stdout.split('\n').slice(0, -1).map((l) => l.split('\t')[0])).toEqual(all);
  });
});

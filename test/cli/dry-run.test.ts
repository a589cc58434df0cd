// --dry-run (issue 27): `api` and every resource command print the request they would send
// (method, URL, headers with the token as ****+last 4, body) and exit 0, with no request
// sent and nothing spent from the shared budget. Against the in-process sandbox, whose
// request log shows what arrived, and the budget file, which must not change.

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { sandboxAdmin, type RunResult, type Sandbox } from '../support/inproc.js';
import { RESOURCES } from '../../src/resources.js';

const test = cliTest({ sandbox: ['--rate-limit', '1000', '--seed', '5'], runOnSandbox: true });

test.beforeEach(async ({ sandbox }) => {
  await sandboxAdmin(sandbox).clearRequests();
});

/** Every file under the config dir with its bytes: what a run left behind. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p] = readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  then?: string;
}

function recorded(r: RunResult): Recorded[] {
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Recorded);
}

const masked = (sandbox: Sandbox) => `Bearer ****${sandbox.token.slice(-4)}`;

describe('--dry-run', () => {
  test('prints the request as a line of text, token masked; nothing sent, the budget file unchanged', async ({ hostctl, sandbox, config }) => {
    // A real run first, so that the budget file exists and has something to lose.
    expect((await hostctl(['apps', 'list', '--json'])).code).toBe(0);
    const before = snapshot(config.path);
    expect(Object.keys(before).some((p) => p.includes(`${join('budget', '')}`))).toBe(true);
    await sandboxAdmin(sandbox).clearRequests();

    const r = await hostctl(['apps', 'list', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`GET ${sandbox.baseUrl}/apps -H 'accept: application/json' -H 'user-agent: ${/user-agent: ([^']+)/.exec(r.stdout)?.[1]}' -H 'authorization: ${masked(sandbox)}'\n`);
    expect(r.stdout).not.toContain(sandbox.token);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
    expect(snapshot(config.path)).toEqual(before);
  });

  test('--json: one JSON object per request; every resource command (list, get, wait) sends nothing', async ({ hostctl, sandbox }) => {
    for (const r of RESOURCES) {
      const id = r.prefix ? `${r.prefix}dryrun001` : 'dryrun001';
      const list = recorded(await hostctl([r.name, 'list', '--dry-run', '--json']));
      expect(list).toEqual([{ method: 'GET', url: `${sandbox.baseUrl}${r.path}`, headers: expect.objectContaining({ authorization: masked(sandbox), accept: 'application/json' }) as unknown }]);
      const get = recorded(await hostctl([r.name, 'get', id, '--dry-run', '-o', 'ndjson']));
      expect(get).toHaveLength(1);
      expect(new URL(get[0]?.url ?? '').searchParams.getAll('publicId[]')).toEqual([id]);
      const wait = recorded(await hostctl([r.name, 'wait', id, '--for', 'status=running', '--dry-run', '--json']));
      expect(wait[0]?.then).toMatch(/again every round/);
    }
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });

  test('where later requests depend on the answer (--all, a relation walk), prints the first and says so', async ({ hostctl, sandbox }) => {
    const all = await hostctl(['apps', 'list', '--all', '--dry-run']);
    expect(all.code).toBe(0);
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(all.stderr).toBe('hostctl: dry run: only the first request is shown; then the next pages, which depend on what each answer says.\n');
    const walk = recorded(await hostctl(['environments', 'list', '--app', 'ap-dryrun001', '--dry-run', '--json']));
    expect(walk).toHaveLength(1);
    expect(walk[0]?.then).toMatch(/next pages/);
    const many = recorded(await hostctl(['apps', 'get', 'ap-dryrun001', 'ap-dryrun002', '--dry-run', '--json']));
    expect(new URL(many[0]?.url ?? '').searchParams.getAll('publicId[]')).toEqual(['ap-dryrun001', 'ap-dryrun002']);
    expect(many[0]?.then).toBeUndefined();
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });

  test('api: method, URL, headers and body as they would go out', async ({ hostctl, sandbox }) => {
    const [req] = recorded(await hostctl(['api', '/apps', '-X', 'POST', '-f', 'name=dry', '-H', 'X-Trace: 7', '--dry-run', '--json']));
    expect(req).toEqual({
      method: 'POST',
      url: `${sandbox.baseUrl}/apps`,
      headers: expect.objectContaining({ authorization: masked(sandbox), 'content-type': 'application/json', 'x-trace': '7' }) as unknown,
      body: '{"name":"dry"}',
    });
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });

  test("api --input FILE: the file's bytes as the body, read as UTF-8, and in the line of text quoted for a shell, quotes too", async ({ hostctl, sandbox, home }) => {
    const file = join(home.path, 'body.json');
    writeFileSync(file, `{"name":"it's d\u00e9j\u00e0 dry"}`);
    const text = await hostctl(['api', '/apps', '--input', file, '--dry-run']);
    expect(text.code, text.stderr).toBe(0);
    const agent = /user-agent: ([^']+)/.exec(text.stdout)?.[1];
    expect(text.stdout).toBe(
      `POST ${sandbox.baseUrl}/apps -H 'accept: application/json' -H 'user-agent: ${agent}' -H 'content-type: application/json' -H 'authorization: ${masked(sandbox)}'` +
        ` --data '{"name":"it'\\''s d\u00e9j\u00e0 dry"}'\n`,
    );
    const [req] = recorded(await hostctl(['api', '/apps', '--input', file, '--dry-run', '--json']));
    expect(req?.body).toBe(`{"name":"it's d\u00e9j\u00e0 dry"}`);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });

  test('a fleet\'s shared store is never opened, even required: the request is printed, exit 0, not one connection to the store', async ({ hostctl, sandbox }) => {
    // A store that is down in the worst way for a run that needed it: it accepts, then hangs up.
    let connections = 0;
    const store = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = store.address() as { port: number };
      const env = { HOSTCTL_REDIS_URL: `redis://127.0.0.1:${port}/0`, HOSTCTL_REDIS_REQUIRED: '1' };
      for (const args of [['apps', 'list', '--dry-run'], ['apps', 'get', 'ap-dryrun001', '--cache', '1m', '--dry-run'], ['-R', 'apps', 'list', '--dry-run', '--all']]) {
        const r = await hostctl(args, env);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^GET ${sandbox.baseUrl}/apps`));
        expect(r.stderr).not.toMatch(/shared store|warning/);
      }
      expect(connections).toBe(0);
      expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
    } finally {
      await new Promise((resolve) => store.close(resolve));
    }
  });

  test('no token: still prints the request, as Bearer <none>, and says a real run would stop', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'list', '--dry-run'], { HOSTCTL_TOKEN: undefined });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("-H 'authorization: Bearer <none>'");
    expect(r.stderr).toMatch(/^hostctl: warning: dry run without a token: .*exit 4\)\.\n$/);
  });

  test('a token marked rejected: printed masked (nothing is sent), with a warning; the real run still refuses', async ({ hostctl, sandbox }) => {
    const bad = 'hct_dry_rejected_token_4242';
    expect((await hostctl(['apps', 'list'], { HOSTCTL_TOKEN: bad })).code).toBe(4);
    await sandboxAdmin(sandbox).clearRequests();
    const r = await hostctl(['apps', 'list', '--dry-run', '--json'], { HOSTCTL_TOKEN: bad });
    expect(recorded(r)[0]?.headers.authorization).toBe('Bearer ****4242');
    expect(JSON.parse(r.stderr)).toEqual({ warning: { message: expect.stringMatching(/rejected this token .*exit 4/) as unknown } });
    expect(r.stdout + r.stderr).not.toContain(bad);
    expect((await hostctl(['apps', 'list'], { HOSTCTL_TOKEN: bad })).code).toBe(4);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(0);
  });
});

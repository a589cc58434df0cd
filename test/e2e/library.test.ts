// The built library (dist/lib, `import { createClient } from 'hostctl'`) as programs use
// it: Node processes that import it, against the sandbox serving from this worker. What
// an import loads, that a script exits by itself, that a script and CLI commands share the
// token's budget, and the example of docs/library.md. test/cli/library.test.ts holds the
// methods' answers; test/e2e/package.test.ts the installed tarball and its types.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect } from 'vitest';
import { e2eTest } from '../support/fixtures.js';
import { BIN, ROOT, runProcess, sandboxAdmin } from '../support/cli.js';

const LIB = pathToFileURL(join(ROOT, 'dist', 'lib', 'index.js')).href;

const test = e2eTest({ sandbox: ['--rate-limit', '100000', '--page-size', '10'] }).extend('script', ({ newDir }) => {
  /** A module of the test's own that imports the built library as `lib`; its path. */
  return (body: string): string => {
    if (!existsSync(join(ROOT, 'dist', 'lib', 'index.js'))) throw new Error('dist/lib is not built: run "npm run build" (npm test does).');
    const file = join(newDir('hostctl-lib-script-'), 'script.mjs');
    writeFileSync(file, `import * as lib from ${JSON.stringify(LIB)};\n${body}\n`);
    return file;
  };
});

describe('importing the library', () => {
  test('prints nothing, leaves nothing running, and loads none of the command line (commander, chalk, ora, the printers)', async ({ script, homeEnv }) => {
    // Nothing that keeps running: no timer, socket, server or child (a file read the loader
    // has not closed yet is Node's own).
    const file = script(`
const running = process.getActiveResourcesInfo().filter((r) => !/^(CloseReq|FSReqCallback|FSReqPromise)$/.test(r));
if (typeof lib.createClient !== 'function' || typeof lib.HostctlError !== 'function') process.exitCode = 3;
else if (running.length > 0) process.exitCode = 4;`);
    // A bounded wait: a process kept alive by the import fails here rather than hangs.
    const r = await runProcess(process.execPath, [file], { env: homeEnv, timeoutMs: 20_000 });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    // What the import loads, read off the bundle's own graph (scripts/build.mjs writes it).
    const loaded = JSON.parse(readFileSync(join(ROOT, 'dist', 'lib-import-graph.json'), 'utf8')) as string[];
    expect(loaded).toContain('src/lib/index.ts');
    expect(loaded.filter((f) => /node_modules\/(commander|@commander-js|chalk|ora|string-width)\/|^src\/(cli|global-options)\.ts$|^src\/commands\/|^src\/output\/(format|printer|table)\.ts$/.test(f))).toEqual([]);
  });
});

describe('a script using the library', () => {
  const work = `
const client = await lib.createClient();
let n = 0;
for await (const app of client.list('apps', { limit: 15 })) n++;
const { notFound } = await client.getMany('apps', ['ap-libgone0001']);
process.stdout.write(n + ' ' + notFound.join(',') + '\\n');
if (process.argv[2] === 'close') await client.close();`;

  test('exits by itself once it has closed its client', async ({ script, sandboxEnv }) => {
    const r = await runProcess(process.execPath, [script(work), 'close'], { env: sandboxEnv, timeoutMs: 30_000 });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '15 ap-libgone0001\n', '']);
  });

  test('exits by itself when it simply ends its work, without close()', async ({ script, sandboxEnv }) => {
    const r = await runProcess(process.execPath, [script(work), 'end'], { env: sandboxEnv, timeoutMs: 30_000 });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '15 ap-libgone0001\n', '']);
  });

  test('and CLI commands in parallel processes share the token\'s budget: not one 429 at a small limit', { timeout: 120_000 }, async ({ script, sandboxes, newDir, homeEnv }) => {
    const small = await sandboxes(['--rate-limit', '6', '--window', '1', '--page-size', '10']);
    const admin = sandboxAdmin(small);
    const token = await admin.newToken('lib-shared');
    const env = { ...homeEnv, HOSTCTL_BASE_URL: small.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: newDir('hostctl-lib-shared-') };
    const walk = script(`
const client = await lib.createClient();
let n = 0;
for await (const app of client.list('apps')) n++;
await client.close();
process.stdout.write(String(n));`);
    const runs = await Promise.all([
      runProcess(process.execPath, [walk], { env, timeoutMs: 90_000 }),
      runProcess(process.execPath, [walk], { env, timeoutMs: 90_000 }),
      runProcess(process.execPath, [BIN, '-q', 'apps', 'list', '--all', '--json'], { env, timeoutMs: 90_000 }),
    ]);
    for (const r of runs) expect([r.code, r.stderr]).toEqual([0, '']);
    const [a, b, listed] = runs;
    expect(a?.stdout).toBe(String((JSON.parse(listed?.stdout ?? '') as unknown[]).length));
    expect(b?.stdout).toBe(a?.stdout);
    const mine = (await admin.requests()).filter((r) => r.token === 'lib-shared');
    // More requests than one window holds: some waited for it, none was refused.
    expect(mine.length).toBeGreaterThan(10);
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
  });
});

describe('examples/deploy-watch.mjs', () => {
  test('lists an app\'s deployments, waits for those building, and says when they finished', { timeout: 90_000 }, async ({ sandbox, sandboxEnv, hostctl }) => {
    const all = JSON.parse((await hostctl(['deployments', 'list', '--all', '--json'], sandboxEnv)).stdout) as Record<string, unknown>[];
    const busy = (d: Record<string, unknown>) => d.status === 'building' || d.status === 'queued';
    const app = String(all.find(busy)?.app);
    const building = all.filter((d) => d.app === app && busy(d));
    const lines = building.map((d) => `${String(d.publicId)}\t${String(d.environment)}\t${String(d.status)}`);
    expect(lines.length).toBeGreaterThan(0);
    let finished = false;
    const r = await runProcess(process.execPath, [join(ROOT, 'examples', 'deploy-watch.mjs'), app], { env: sandboxEnv, timeoutMs: 60_000 }, (out) => {
      // Once the script has listed them (and waits), the deployments finish.
      if (finished || !lines.every((l) => out.includes(l))) return;
      finished = true;
      void sandboxAdmin(sandbox).plant('deployments', building.map((d) => ({ ...d, status: 'succeeded' })));
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    for (const d of building) expect(r.stdout).toContain(`${String(d.publicId)}\t${String(d.environment)}\tsucceeded (finished)`);
    const listed = JSON.parse((await hostctl(['deployments', 'list', '--app', app, '--json'], sandboxEnv)).stdout) as Record<string, unknown>[];
    expect(listed.length).toBeGreaterThan(0);
    for (const d of listed) expect(r.stdout).toContain(String(d.publicId));
  });
});

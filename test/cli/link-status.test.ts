// A linked directory (issue 46): `hostctl link`, `unlink`, the lists that default to the
// linked app, and `hostctl status`, in a project's directory, against the sandbox and the
// independent alt server (which names, nests and pages differently). Counts of requests,
// never timings. Each test plants an app of its own (its own IDs) into the file's sandbox.

import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { platformOf, type PlatformServer } from '../support/servers.js';
import { VirtualClock } from '../support/inproc.js';
import { smallWorld } from '../support/small-world.js';
import { InterruptedError } from '../../src/errors.js';
import type { Clock } from '../../src/runtime.js';

type Kind = 'sandbox' | 'alt';

const PAGE = 10;

/** One app's world, written in each server's own words: the sandbox's flat `app`/`environment`/`status`/`createdAt`, the alt server's `appId`/`environmentId` (sent nested), `state`, `startedAt`, `fqdn`. */
function world(kind: Kind, app: string, envCount: number) {
  const envs = Array.from({ length: envCount }, (_, i) => ({ id: `en-lnk${kind.slice(0, 3)}${i}${app.slice(-4)}`, name: i === 0 ? 'production' : `stage${i}` }));
  const at = (day: number) => `2025-0${1 + (day % 9)}-1${day % 10}T10:00:00Z`;
  const deployments = envs.flatMap((e, i) => [
    { id: `dp-old${i}${e.id}`, env: e.id, status: 'failed', at: at(1) },
    { id: `dp-new${i}${e.id}`, env: e.id, status: 'succeeded', at: at(5) },
    { id: `dp-mid${i}${e.id}`, env: e.id, status: 'canceled', at: at(3) },
  ]);
  const domains = envs.slice(0, 2).map((e, i) => ({ id: `do-lnk${i}${e.id.slice(-8)}`, env: e.id, host: `shop${i}.example.invalid` }));
  const plant = async (s: PlatformServer) => {
    if (kind === 'sandbox') {
      await s.plant('apps', [{ publicId: app, name: 'linked-shop', status: 'running' }]);
      await s.plant('environments', envs.map((e) => ({ publicId: e.id, name: e.name, app, status: 'running' })));
      await s.plant('deployments', deployments.map((d) => ({ publicId: d.id, environment: d.env, app, status: d.status, createdAt: d.at })));
      await s.plant('domains', domains.map((d) => ({ publicId: d.id, hostname: d.host, environment: d.env, app, status: 'active' })));
    } else {
      await s.plant('apps', [{ publicId: app, name: 'linked-shop', status: 'live' }]);
      await s.plant('environments', envs.map((e) => ({ publicId: e.id, name: e.name, appId: app })));
      await s.plant('deployments', deployments.map((d) => ({ publicId: d.id, environmentId: d.env, state: d.status, startedAt: d.at })));
      await s.plant('domains', domains.map((d) => ({ publicId: d.id, fqdn: d.host, environmentId: d.env })));
    }
  };
  const expected = {
    app: { publicId: app, name: 'linked-shop', status: kind === 'sandbox' ? 'running' : 'live' },
    environments: envs.map((e, i) => ({
      publicId: e.id,
      name: e.name,
      status: kind === 'sandbox' ? 'running' : null,
      latestDeployment: { publicId: `dp-new${i}${e.id}`, status: 'succeeded', at: at(5), timeField: kind === 'sandbox' ? 'createdAt' : 'startedAt' },
      deployments: 3,
    })),
    domains: domains.map((d) => ({ publicId: d.id, hostname: d.host, status: kind === 'sandbox' ? 'active' : null, environment: d.env })),
  };
  return { envs, deployments, domains, plant, expected };
}

/**
 * The sandbox's world besides what a test plants: three other apps, with more environments
 * than a page holds and ten pages of deployments, so that each walk spans pages and one
 * walk of every deployment costs more than the routes of a few environments (the bound of
 * the status tests tells them apart); the seed's thousand deployments would only make each
 * walk longer.
 */
function others(): Record<string, Record<string, unknown>[]> {
  const apps = [1, 2, 3].map((a) => ({ publicId: `ap-othershop${a}`, name: `other-shop-${a}`, status: 'running' }));
  const environments = apps.flatMap((app, a) => [1, 2, 3, 4].map((e) => ({ publicId: `en-othershop${a}${e}`, name: `stage${e}`, app: app.publicId, status: 'running' })));
  const deployments = environments.flatMap((e) => [1, 2, 3, 4, 5, 6, 7, 8].map((d) => ({ publicId: `dp-othershop${e.publicId.slice(-2)}${d}`, environment: e.publicId, app: e.app, status: 'succeeded', createdAt: `2025-02-0${d}T10:00:00Z` })));
  const domains = environments.slice(0, 2).map((e) => ({ publicId: `do-othershop${e.publicId.slice(-2)}`, hostname: `other${e.publicId.slice(-2)}.example.invalid`, environment: e.publicId, app: e.app, status: 'active' }));
  return { apps, environments, deployments, domains };
}

const test = cliTest({ sandbox: ['--rate-limit', '100000', '--page-size', String(PAGE), ...smallWorld(undefined, others())] })
  .extend('runOptions', () => ({ timeoutMs: 60_000 }))
  .extend('smallSandbox', ({ sandboxes, newDir }) => (flags: string[]) => sandboxes([...flags, ...smallWorld(newDir('hostctl-sandbox-'), others())]))
  .extend('server', ({ sandbox, alt }) => async (kind: Kind): Promise<PlatformServer> => {
    if (kind === 'sandbox') return platformOf(sandbox);
    return alt({ limit: 100000, pageSize: PAGE, nestReferences: true });
  })
  .extend('repo', ({ home }) => {
    // A project's checkout, with a directory below its top. hostctl looks for its link
    // file, never for `.git`: the directory only makes it look like one.
    const top = join(home.path, 'shop');
    mkdirSync(join(top, 'src', 'deep'), { recursive: true });
    mkdirSync(join(top, '.git'));
    return { top, below: join(top, 'src', 'deep') };
  });

const on = (s: PlatformServer) => ({ HOSTCTL_BASE_URL: s.baseUrl, HOSTCTL_TOKEN: s.token });

describe.each(['sandbox', 'alt'] as const)('a linked directory on the %s', (kind) => {
  test('link, then status and status --json show the environments, their latest deployments and the domains', async ({ hostctl, server, repo }) => {
    const s = await server(kind);
    const w = world(kind, 'ap-lnkshop001', 2);
    await w.plant(s);
    const linked = await hostctl(['link', 'ap-lnkshop001'], on(s), { cwd: repo.top });
    expect(linked.code, linked.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(repo.top, '.hostctl.json'), 'utf8'))).toEqual({ app: 'ap-lnkshop001' });
    expect(linked.stderr).toContain(join(repo.top, '.hostctl.json'));

    const json = await hostctl(['status', '--json'], on(s), { cwd: repo.below });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(w.expected);

    const screen = await hostctl(['status'], on(s), { cwd: repo.below, columns: 80 });
    expect(screen.code, screen.stderr).toBe(0);
    for (const line of stripVTControlCharacters(screen.stdout).split('\n')) expect(line.length, screen.stdout).toBeLessThanOrEqual(80);
    for (const id of ['ap-lnkshop001', ...w.envs.map((e) => e.id), ...w.envs.map((_, i) => `dp-new${i}${w.envs[i]?.id ?? ''}`), ...w.domains.map((d) => d.id)]) expect(screen.stdout).toContain(id);
    for (const d of w.domains) expect(screen.stdout).toContain(d.host);
    expect(screen.stdout).not.toContain('dp-old');
  });

  test('deployments list in a linked directory lists only the linked app\'s; --all-apps lists every app\'s', async ({ hostctl, server, repo }) => {
    const s = await server(kind);
    const w = world(kind, 'ap-lnkshop002', 2);
    await w.plant(s);
    writeFileSync(join(repo.top, '.hostctl.json'), '{"app":"ap-lnkshop002"}\n');
    const mine = await hostctl(['deployments', 'list', '--json'], on(s), { cwd: repo.below });
    expect(mine.code, mine.stderr).toBe(0);
    // In a pipe, no note.
    expect(mine.stderr).toBe('');
    expect((JSON.parse(mine.stdout) as { publicId: string }[]).map((d) => d.publicId).sort()).toEqual(w.deployments.map((d) => d.id).sort());
    const domains = await hostctl(['domains', 'list', '--json'], on(s), { cwd: repo.below });
    expect((JSON.parse(domains.stdout) as { publicId: string }[]).map((d) => d.publicId).sort()).toEqual(w.domains.map((d) => d.id).sort());

    const all = await hostctl(['deployments', 'list', '--all-apps', '--json'], on(s), { cwd: repo.below });
    expect(all.code, all.stderr).toBe(0);
    expect((JSON.parse(all.stdout) as { publicId: string }[]).some((d) => !d.publicId.includes('lnk'))).toBe(true);

    const explicit = await hostctl(['environments', 'list', '--app', 'ap-nothere01', '--json'], on(s), { cwd: repo.below });
    expect(explicit.code, explicit.stderr).toBe(0);
    expect(JSON.parse(explicit.stdout)).toEqual([]);

    const onTerminal = await hostctl(['environments', 'list'], on(s), { cwd: repo.below, columns: 100 });
    expect(onTerminal.code).toBe(0);
    expect(onTerminal.stderr).toContain('ap-lnkshop002');
    expect(onTerminal.stderr).toContain('--all-apps');
  });

  test.for([2, 5])('status of an app with %i environments sends at most 1 + the pages of each walk (+1 each to find its end) and nothing again with --cache', async (count, { hostctl, server, repo, config }) => {
    const s = await server(kind);
    const app = `ap-lnkcost00${count}`;
    const w = world(kind, app, count);
    await w.plant(s);
    const [envs, deps, doms] = await Promise.all([s.all('environments'), s.all('deployments'), s.all('domains')]);
    const walk = (n: number) => Math.ceil(n / PAGE) + 1;
    const bound = 1 + walk(envs.length) + (count <= 3 ? count * walk(3) : walk(deps.length)) + walk(doms.length);
    await s.clearRequests();
    const env = { ...on(s), HOSTCTL_CONFIG_DIR: config.path };
    const r = await hostctl(['status', app, '--json', '-R', '--cache', '10m'], env, { cwd: repo.top });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(w.expected);
    const sent = (await s.requests()).length;
    expect(sent).toBeLessThanOrEqual(bound);
    // -R names the cost, walk by walk, and it is what the server saw.
    expect(r.stderr).toMatch(new RegExp(`Status of ${app}: ${sent} requests \\(apps: 1, environments: `));
    await s.clearRequests();
    const again = await hostctl(['status', app, '--json', '--cache', '10m'], env, { cwd: repo.top });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(w.expected);
    expect(await s.requests()).toEqual([]);
  });

  test.for([
    ['a base URL', '{"app":"ap-lnkshop003","baseUrl":"http://evil.invalid/v1"}'],
    ['a token', '{"app":"ap-lnkshop003","token":"hct_stolen"}'],
    ['a Redis URL', '{"app":"ap-lnkshop003","redisUrl":"redis://evil.invalid:6379"}'],
    ['an unknown key', '{"app":"ap-lnkshop003","theme":"dark"}'],
    ['no JSON', 'app = ap-lnkshop003'],
    ['an app ID of the wrong shape', '{"app":"en-lnkshop003"}'],
    ['a profile that is no plain name', '{"app":"ap-lnkshop003","profile":"../../etc"}'],
    ['a profile the config does not have', '{"app":"ap-lnkshop003","profile":"staging"}'],
  ] as const)('a link file naming %s is refused with exit 2, naming the file, before any request', async ([, text], { hostctl, server, repo }) => {
    const s = await server(kind);
    const file = join(repo.top, '.hostctl.json');
    writeFileSync(file, text);
    await s.clearRequests();
    for (const args of [['status'], ['deployments', 'list'], ['apps', 'list']]) {
      const r = await hostctl(args, on(s), { cwd: repo.below });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(file);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(await s.requests()).toEqual([]);
    // The way out works with the file still there.
    const unlinked = await hostctl(['unlink'], on(s), { cwd: repo.below });
    expect(unlinked.code, unlinked.stderr).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

describe('link and unlink', () => {
  test('status with neither a link nor an app, and link with no ID in a script, are usage errors that say what to do, before any request', async ({ hostctl, server, repo }) => {
    const s = await server('sandbox');
    await s.clearRequests();
    const status = await hostctl(['status'], on(s), { cwd: repo.below });
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('hostctl link');
    const link = await hostctl(['link'], on(s), { cwd: repo.below });
    expect(link.code).toBe(2);
    expect(link.stderr).toContain('hostctl link ap-');
    expect(existsSync(join(repo.below, '.hostctl.json'))).toBe(false);
    expect(await s.requests()).toEqual([]);
  });

  test('unlink removes the nearest link file above, and says which', async ({ hostctl, repo }) => {
    expect((await hostctl(['link', 'ap-lnkshop004'], {}, { cwd: repo.top })).code).toBe(0);
    const r = await hostctl(['unlink'], {}, { cwd: repo.below });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(join(repo.top, '.hostctl.json'));
    expect(existsSync(join(repo.top, '.hostctl.json'))).toBe(false);
    const none = await hostctl(['unlink'], {}, { cwd: repo.below });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('Nothing to unlink');
  });

  test("a link names the profile given, whose settings then apply below it; an explicit --profile wins over the link's", async ({ hostctl, server, repo }) => {
    const s = await server('sandbox');
    const w = world('sandbox', 'ap-lnkshop005', 1);
    await w.plant(s);
    const token = { HOSTCTL_TOKEN: s.token };
    expect((await hostctl(['config', 'set', 'profiles.staging.baseUrl', s.baseUrl], token)).code).toBe(0);
    const linked = await hostctl(['--profile', 'staging', 'link', 'ap-lnkshop005'], token, { cwd: repo.top });
    expect(linked.code, linked.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(repo.top, '.hostctl.json'), 'utf8'))).toEqual({ app: 'ap-lnkshop005', profile: 'staging' });
    // No base URL but the linked profile's.
    const status = await hostctl(['status', '--json'], token, { cwd: repo.below });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual(w.expected);
    const other = await hostctl(['--profile', 'prod', 'status'], token, { cwd: repo.below });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('There is no profile prod');
    const fromEnv = await hostctl(['status'], { ...token, HOSTCTL_PROFILE: 'prod' }, { cwd: repo.below });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('There is no profile prod');
  });

  test('status of an app the token cannot see is exit 3 naming it; --all-apps with --app is a usage error before any request', async ({ hostctl, server, repo }) => {
    const s = await server('sandbox');
    const missing = await hostctl(['status', 'ap-lnknone001'], on(s), { cwd: repo.top });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('ap-lnknone001');
    await s.clearRequests();
    const both = await hostctl(['deployments', 'list', '--all-apps', '--app', 'ap-lnknone001'], on(s), { cwd: repo.top });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--all-apps');
    expect(await s.requests()).toEqual([]);
  });

  test('a directory whose name holds control characters is named in one harmless line', async ({ hostctl, home }) => {
    const dir = join(home.path, 'shop\u001b]0;pwned\u0007\u001b[31mred');
    mkdirSync(dir);
    for (const args of [['link', 'ap-lnkshop007'], ['unlink']]) {
      const r = await hostctl(args, {}, { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('\u001b');
      expect(r.stderr).not.toContain('\u0007');
    }
  });

  test('Tab offers the linked app first, for status and for --app, seen before or not, and sends nothing', async ({ hostctl, server, repo }) => {
    const s = await server('sandbox');
    expect((await hostctl(['apps', 'list'], on(s))).code).toBe(0);
    expect((await hostctl(['link', 'ap-lnkshop006'], on(s), { cwd: repo.top })).code).toBe(0);
    await s.clearRequests();
    for (const words of [['status', ''], ['deployments', 'list', '--app', ''], ['status', 'ap-']]) {
      const lines = (await hostctl(['__complete', ...words], on(s), { cwd: repo.below })).stdout.trim().split('\n');
      expect(lines[0], words.join(' ')).toMatch(/^ap-lnkshop006(\t|$)/);
      expect(lines.length, words.join(' ')).toBeGreaterThan(1);
    }
    const elsewhere = (await hostctl(['__complete', 'status', ''], on(s), { cwd: repo.top.replace(/shop$/, '') })).stdout;
    expect(elsewhere).not.toContain('ap-lnkshop006');
    expect(await s.requests()).toEqual([]);
  });
});

describe('status over time and under the budget', () => {
  test('says, rather than guess, when no deployment has a time that tells which is latest', async ({ hostctl, server }) => {
    const s = await server('sandbox');
    await s.plant('apps', [{ publicId: 'ap-lnktime001', name: 'timeless', status: 'running' }]);
    await s.plant('environments', [{ publicId: 'en-lnktime001', name: 'production', app: 'ap-lnktime001' }]);
    await s.plant('deployments', [
      { publicId: 'dp-lnktime001', environment: 'en-lnktime001', status: 'failed', note: 'yesterday' },
      { publicId: 'dp-lnktime002', environment: 'en-lnktime001', status: 'succeeded', when: 'today' },
    ]);
    const r = await hostctl(['status', 'ap-lnktime001', '--json'], on(s));
    expect(r.code, r.stderr).toBe(0);
    const env = (JSON.parse(r.stdout) as { environments: Record<string, unknown>[] }).environments[0];
    expect(env?.latestDeployment).toBeNull();
    expect(env?.deployments).toBe(2);
    expect(String(env?.note)).toContain('no way to tell which deployment is latest');
    const screen = await hostctl(['status', 'ap-lnktime001'], on(s), { columns: 100 });
    expect(screen.stdout).toContain('no way to tell which deployment is latest');
  });

  test('--watch prints the status again when a newer deployment appears, and not while nothing changes', async ({ hostctl, smallSandbox }) => {
    const sb = await smallSandbox(['--rate-limit', '100000']);
    const s = platformOf(sb);
    const w = world('sandbox', 'ap-lnkwatch01', 1);
    await w.plant(s);
    const env0 = w.envs[0]?.id ?? '';
    let interrupted = false;
    const keyboard: Clock = {
      now: sb.clock.now,
      sleep: async (ms) => {
        await sb.clock.sleep(ms);
        if (interrupted) throw new InterruptedError('Interrupted.');
      },
    };
    let held = sb.clock.hold();
    const running = hostctl(['status', 'ap-lnkwatch01', '--watch', '-o', 'ndjson', '--interval', '1s'], on(s), { clock: keyboard });
    const steps = [() => s.plant('deployments', [{ publicId: 'dp-lnknewest1', environment: env0, status: 'building', createdAt: '2025-12-01T10:00:00Z' }]), async () => undefined];
    for (const step of steps) {
      await Promise.race([held.reached, running.then((r) => Promise.reject(new Error(`ended early: ${r.code} ${r.stderr} ${r.stdout}`)))]);
      await step();
      const released = held;
      held = sb.clock.hold();
      released.release();
    }
    await held.reached;
    interrupted = true;
    held.release();
    const r = await running;
    expect(r.code, r.stderr).toBe(130);
    const rounds = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { environments: { latestDeployment: { publicId: string } }[] });
    expect(rounds.map((o) => o.environments[0]?.latestDeployment.publicId)).toEqual([`dp-new0${env0}`, 'dp-lnknewest1']);
  });

  test('before a walk that must wait for the budget, one line says how many requests and about how long', async ({ hostctl, alt }) => {
    const clock = new VirtualClock();
    const s = await alt({ limit: 6, pageSize: 10, totalHeader: true, now: clock.now });
    const w = world('alt', 'ap-lnkwait001', 1);
    await w.plant(s);
    const r = await hostctl(['status', 'ap-lnkwait001', '--json', '--max-wait', '600'], on(s), { clock });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(w.expected);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('Status of ap-lnkwait001: about '));
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/more requests to walk environments and deployments and domains; the budget has \d+ left, so this will wait about \d+s\./);
  });
});

// Concurrent runs (issue 8): ten hostctl processes at once sharing one config dir, each
// writing the state file (rate state, IDs seen), the config file, or a token file, must
// leave every file whole and lose nothing: no profile, no token file, no state entry.
// Ten concurrent `config set` alone: config.test.ts.
//
// Processes started together still reach their writes tens of milliseconds apart, and a
// write takes a millisecond or two: left alone, few of them would meet. So the processes
// that send a request reach the sandbox through a loopback relay that holds every request
// of a round until all of them have come, then lets them through at once: their answers
// arrive together, and so do the writes that follow (the budget, the state file, the
// config and the token files of a login).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { sandboxAdmin } from '../support/cli.js';
import { e2eTest } from '../support/fixtures.js';

interface Relay {
  /** The base URL (…/v1) through the relay. */
  baseUrl: string;
  /** Holds the next `n` requests until the last of them has come. */
  gather(n: number): void;
  close(): Promise<void>;
}

/** A loopback relay to `origin` that lets requests through in groups (see gather()). */
async function startRelay(origin: string): Promise<Relay> {
  const target = new URL(origin);
  let need = 0;
  let held: Array<() => void> = [];
  const pass = (req: IncomingMessage, res: ServerResponse, body: Buffer) => () => {
    const out = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      held.push(pass(req, res, Buffer.concat(chunks)));
      if (held.length < need) return;
      const go = held;
      held = [];
      need = 0;
      for (const send of go) send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    gather: (n) => {
      need = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

// The file's sandbox, and a relay to it of the test's own.
const test = e2eTest().extend('relay', async ({ sandbox }, { onCleanup }) => {
  const relay = await startRelay(sandbox.origin);
  onCleanup(() => relay.close());
  return relay;
});

describe('10 hostctl processes at once, one config dir', () => {
  test('never corrupt config or state, and never lose a profile, a token file or a state entry', { timeout: 120_000 }, async ({ sandbox, relay, config, hostctl, newDir }) => {
    const newToken = (name: string) => sandboxAdmin(sandbox).newToken(name);
    // JSON.parse throws on a half-written or interleaved file: that is the corruption check.
    const json = (file: string) => JSON.parse(readFileSync(join(config.path, file), 'utf8')) as Record<string, unknown>;
    const baseUrl = relay.baseUrl;
    expect((await hostctl(['config', 'set', 'profiles.keep.baseUrl', baseUrl])).code).toBe(0);
    expect((await hostctl(['config', 'set', 'profiles.keep.output', 'json'])).code).toBe(0);

    // Ten app IDs, one for each state writer of the two rounds: each writer remembers a
    // different one in the same file (state.json), so a lost update is a missing ID.
    const listed = await hostctl(['apps', 'list', '--limit', '10', '--json'], { HOSTCTL_CONFIG_DIR: newDir('hostctl-concurrency-ids-'), HOSTCTL_TOKEN: sandbox.token, HOSTCTL_BASE_URL: sandbox.baseUrl });
    const appIds = (JSON.parse(listed.stdout) as { publicId: string }[]).map((a) => a.publicId);
    expect(new Set(appIds).size).toBe(10);
    const listTokens: string[] = [];
    const setProfiles: string[] = [];
    const logins: { profile: string; token: string }[] = [];
    // Two rounds: each meeting of writes loses an update without the locks only when the
    // writes overlap by a millisecond, so one round may miss it.
    for (const round of [1, 2]) {
      const lists = await Promise.all([0, 1, 2, 3, 4].map((i) => newToken(`list-r${round}n${i}`)));
      const sets = [`set-r${round}n5`];
      const logs = await Promise.all([6, 7, 8, 9].map(async (i) => ({ profile: `login-r${round}n${i}`, token: await newToken(`login-r${round}n${i}`) })));
      listTokens.push(...lists);
      setProfiles.push(...sets);
      logins.push(...logs);
      // The lists and the logins send one request each.
      relay.gather(lists.length + logs.length);
      const results = await Promise.all([
        // State writers: rate state under each token's fingerprint, and an ID seen, each its own.
        ...lists.map((token, i) => hostctl(['apps', 'get', appIds[(round - 1) * 5 + i]!, '--json'], { HOSTCTL_TOKEN: token, HOSTCTL_BASE_URL: baseUrl })),
        // A config writer.
        ...sets.map((profile) => hostctl(['config', 'set', `profiles.${profile}.baseUrl`, `http://127.0.0.1:${9000 + round}/v1`])),
        // Config, token file and state writers at once.
        ...logs.map(({ profile, token }) => hostctl(['--profile', profile, 'auth', 'login', '--with-token', '--insecure-storage', '--base-url', baseUrl], {}, { input: token })),
      ]);
      results.forEach((r, i) => expect(r.code, `round ${round}, process ${i}: ${r.stderr}`).toBe(0));
    }

    const cfg = json('config.json') as { profiles: Record<string, Record<string, unknown>> };
    expect(cfg.profiles.keep).toEqual({ baseUrl, output: 'json' });
    expect(Object.keys(cfg.profiles).sort()).toEqual(['keep', ...setProfiles, ...logins.map((l) => l.profile)].sort());
    for (const { profile, token } of logins) {
      expect(cfg.profiles[profile]).toMatchObject({ baseUrl, storage: 'file' });
      const file = join(config.path, 'tokens', profile);
      expect(readFileSync(file, 'utf8').trim()).toBe(token);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(statSync(join(config.path, 'tokens')).mode & 0o777).toBe(0o700);
    expect(statSync(join(config.path, 'config.json')).mode & 0o777).toBe(0o600);

    const state = json('state.json') as { ids: Record<string, Record<string, string[]>> };
    // Every process that sent a request left its token's rate state (in the token's budget file): no write was lost.
    for (const token of [...listTokens, ...logins.map((l) => l.token)]) expect((json(`budget/${sha(token)}.json`) as { rate?: unknown }).rate, `rate state of …${token.slice(-4)}`).toBeDefined();
    // The ID cache is keyed by base URL, not by profile; every writer's ID is in it.
    expect([...(state.ids[baseUrl]?.apps ?? [])].sort()).toEqual([...appIds].sort());
    expect(statSync(join(config.path, 'state.json')).mode & 0o777).toBe(0o600);

    // No temporary file or lock left behind.
    expect(readdirSync(config.path).sort()).toEqual(['budget', 'config.json', 'state.json', 'tokens']);
    // The shared request budget: one whole file per token fingerprint, no lock or temporary file.
    const budgets = readdirSync(join(config.path, 'budget'));
    expect(budgets.length).toBeGreaterThanOrEqual(listTokens.length);
    for (const f of budgets) {
      expect(f).toMatch(/^[0-9a-f]{64}\.json$/);
      expect(() => json(join('budget', f))).not.toThrow();
    }
    expect(readdirSync(join(config.path, 'tokens')).sort()).toEqual(logins.map((l) => l.profile).sort());

    // And the stored profiles work.
    const last = logins[logins.length - 1]!;
    const token = await hostctl(['--profile', last.profile, 'auth', 'token']);
    expect(token.stdout).toBe(`${last.token}\n`);
  });
});

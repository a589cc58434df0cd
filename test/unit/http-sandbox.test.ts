// The HTTP core against the in-process sandbox (real HTTP on loopback): paging in both
// of its forms, batch filtering, and pacing that avoids a 429 (the client and the
// sandbox's window on one virtual clock: the wait takes no real time).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandboxServer, type RunningSandbox } from '../../src/sandbox/server.js';
import { makeToken } from '../../src/auth/token.js';
import { walkPages, pageOf } from '../../src/http/paging.js';
import { cleanupDirs, harness, type Harness } from './http-support.js';
import { VirtualClock } from '../support/inproc.js';

let sb: RunningSandbox | undefined;
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.done();
  await sb?.close();
  sb = undefined;
});
afterAll(cleanupDirs);

async function start(opts: { rateLimit?: number; windowSeconds?: number } = {}, clock = new VirtualClock()): Promise<{ sb: RunningSandbox; h: Harness }> {
  sb = await startSandboxServer({ log: () => undefined, clock: clock.now, ...opts });
  const h = harness(sb.url, { token: makeToken(sb.token, 'env'), clock });
  open.push(h);
  return { sb, h };
}

function publicIds(items: unknown[]): string[] {
  return items.map((x) => (x as Record<string, string>).publicId ?? (x as Record<string, string>)['@id'] ?? '');
}

describe('against the sandbox', () => {
  it('walks every app with --all, as plain JSON and as JSON-LD (hydra envelope), with the same result', async () => {
    const { h } = await start({ rateLimit: 1000 });
    const plain: unknown[] = [];
    for await (const page of walkPages(h.client, { path: '/apps' }, { all: true })) plain.push(...page);
    expect(plain.length).toBeGreaterThanOrEqual(95);
    const ids = publicIds(plain);
    expect(new Set(ids).size).toBe(ids.length);

    const ld: unknown[] = [];
    for await (const page of walkPages(h.client, { path: '/apps', headers: { accept: 'application/ld+json' } }, { all: true })) ld.push(...page);
    expect(ld.map((x) => (x as Record<string, string>).publicId)).toEqual(ids);
  });

  it('publicId[] filtering returns exactly the asked objects in one request', async () => {
    const { h } = await start({ rateLimit: 1000 });
    const first = await h.client.request({ path: '/apps' });
    const want = publicIds(pageOf(first.json(), first.headers, first.url).items).slice(0, 3);
    const res = await h.client.request({ path: '/apps', query: want.map((id) => ['publicId[]', id] as const) });
    expect(publicIds(pageOf(res.json(), res.headers, res.url).items).sort()).toEqual([...want].sort());
    expect(h.client.requestCount).toBe(2);
  });

  it('paces from the rate-limit headers instead of collecting a 429', async () => {
    const clock = new VirtualClock();
    const { sb, h } = await start({ rateLimit: 2, windowSeconds: 1 }, clock);
    const t0 = clock.now();
    for (let i = 0; i < 4; i++) await h.client.request({ path: '/teams' });
    expect(h.client.requestCount).toBe(4);
    expect(h.stderr.text).toContain('Rate limit window spent: waiting');
    expect(h.stderr.text).not.toContain('Rate limit reached');
    // Four requests at two a second: the last two waited for the window, once.
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.now() - t0).toBeGreaterThanOrEqual(1_000);
    const log = (await (await fetch(`${sb.origin}/_sandbox/requests`)).json()) as { status: number }[];
    expect(log.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });
});

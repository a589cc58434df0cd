// What the sandbox keeps of the objects added after its seed is bounded, as its request log
// is: a script that POSTs (or a test that plants) without end leaves it with a bounded
// collection and bounded list pages, the newest objects kept, the oldest added dropped,
// the seed intact. Over real HTTP on loopback; what it keeps is read from the admin
// endpoint, never from its memory or the clock.

import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startSandboxServer, type RunningSandbox } from '../../src/sandbox/server.js';
import { tmpDir } from '../support/cli.js';
import { JSON_ACCEPT, req, type Obj } from './helpers.js';

const started: RunningSandbox[] = [];
afterEach(async () => {
  for (const sb of started.splice(0)) await sb.close();
});

async function sandbox(stateFile?: string): Promise<RunningSandbox> {
  const sb = await startSandboxServer({ port: 0, rateLimit: 100_000, seed: 5, log: () => undefined, stateFile });
  started.push(sb);
  return sb;
}

/** The whole collection as the admin endpoint sends it: its JSON text. */
async function kept(sb: RunningSandbox, resource = 'apps'): Promise<string> {
  const res = await req(`${sb.origin}/_sandbox/objects/${resource}`);
  expect(res.status).toBe(200);
  return res.text;
}

const count = async (sb: RunningSandbox) => (JSON.parse(await kept(sb)) as Obj[]).length;

/** POSTs one app of about `size` characters; its publicId. */
async function create(sb: RunningSandbox, size: number, n: number): Promise<string> {
  const res = await req(`${sb.url}/apps`, {
    method: 'POST',
    token: sb.token,
    headers: { ...JSON_ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `big-${n}`, notes: 'x'.repeat(size) }),
  });
  expect(res.status, res.text.slice(0, 200)).toBe(201);
  return String((res.json() as Obj).publicId);
}

/** Plants `n` small apps in one admin request. */
async function plant(sb: RunningSandbox, n: number, tag: string): Promise<void> {
  const objects = Array.from({ length: n }, (_, i) => ({ name: `${tag}-${i}` }));
  const res = await req(`${sb.origin}/_sandbox/objects/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(objects) });
  expect(res.status).toBe(201);
}

const status = async (sb: RunningSandbox, id: string) => (await req(`${sb.url}/apps/${id}`, { token: sb.token, headers: JSON_ACCEPT })).status;

describe('objects added after the seed are bounded', () => {
  it('large POSTs: what is kept stops growing, below what was sent; the newest are served, the oldest added are gone, the seed stays', async () => {
    const sb = await sandbox();
    const seeded = JSON.parse(await kept(sb)) as Obj[];
    const size = 900 * 1024;
    const ids: string[] = [];
    // Past the bound (16 MiB): 20 bodies of 900 KiB are 18 MiB.
    for (let i = 0; i < 20; i++) ids.push(await create(sb, size, i));
    const after20 = (await kept(sb)).length;
    expect(after20).toBeLessThan(20 * size);
    for (let i = 20; i < 32; i++) ids.push(await create(sb, size, i));
    const after32 = (await kept(sb)).length;
    // Kept without a bound from here, 1.6 times as much; some slack for where in its
    // trimming it stands.
    expect(after32).toBeLessThan(after20 * 1.5);
    expect(await status(sb, ids.at(-1) ?? '')).toBe(200);
    expect(await status(sb, ids[0] ?? '')).toBe(404);
    for (const app of [seeded[0], seeded.at(-1)]) expect(await status(sb, String(app?.publicId))).toBe(200);
    // A list page holds what is kept, no more.
    const page = await req(`${sb.url}/apps?page=1&itemsPerPage=100`, { token: sb.token, headers: JSON_ACCEPT });
    expect(page.text.length).toBeLessThanOrEqual(after32);
  });

  it('many small objects: the count stops growing; the seed stays whole', async () => {
    const sb = await sandbox();
    const seeded = JSON.parse(await kept(sb)) as Obj[];
    // Past the bound (10,000 objects), each in one request, the sandbox's cheapest way in.
    await plant(sb, 11_000, 'a');
    const first = await count(sb);
    expect(first).toBeLessThan(seeded.length + 11_000);
    await plant(sb, 8_000, 'b');
    // Kept without a bound, 19,000 where there were 11,000; some slack for where in its
    // trimming it stands.
    expect(await count(sb)).toBeLessThan(first * 1.5);
    const now = new Set((JSON.parse(await kept(sb)) as Obj[]).map((a) => a.publicId));
    for (const app of seeded) expect(now.has(app.publicId)).toBe(true);
  });

  it('with --state, what earlier runs added counts too: a restart does not start a new allowance', async () => {
    const dir = tmpDir('hostctl-sandbox-bounds-');
    try {
      const file = join(dir.path, 'state.json');
      const before = await sandbox(file);
      // Below the bound (10,000 objects) alone; past it with what the next run adds.
      await plant(before, 7_000, 'a');
      const full = await count(before);
      await before.close();
      started.splice(started.indexOf(before), 1);
      const after = await sandbox(file);
      expect(await count(after)).toBe(full);
      await plant(after, 4_000, 'b');
      expect(await count(after)).toBeLessThan(full + 4_000);
    } finally {
      dir.cleanup();
    }
  });
});

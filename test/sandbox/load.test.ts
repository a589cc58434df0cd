// Under load: 2,000 requests from 20 tokens at once against `hostctl sandbox` in its own
// process, at the default limit (20 a minute). Every token gets exactly its 20, every
// answer is the right one for its token, nothing leaks from one token's window (or view)
// into another's, and the server is still well afterwards. Bounded in count; no timing.

import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../support/cli.js';
import { allObjects, createToken, ids, JSON_ACCEPT, req, type Res } from './helpers.js';

const TOKENS = 20;
const PER_TOKEN = 100;

describe('load: 2,000 requests from 20 tokens concurrently', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox(['--seed', '11']);
  });
  afterAll(async () => {
    await sb?.stop();
  });

  it('each token gets exactly 20 answers and 80 429s, each answer right for its token', async () => {
    const people = await allObjects(sb.origin, 'people');
    const member = people.find((p) => p.role !== 'owner' && Array.isArray(p.teams) && p.teams.length === 1)!;
    const apps = await allObjects(sb.origin, 'apps');
    // Half the tokens act as the owner, half as a member of one team: their answers differ.
    const ownerIds = apps.slice(0, 5).map((a) => a.publicId);
    const memberIds = apps.filter((a) => a.team === member.team).slice(0, 5).map((a) => a.publicId);
    const tokens: Array<{ name: string; token: string; expected: unknown[] }> = [];
    for (let i = 0; i < TOKENS; i++) {
      const asMember = i % 2 === 1;
      const name = `load-${i}`;
      tokens.push({ name, token: await createToken(sb.origin, name, asMember ? String(member.publicId) : undefined), expected: asMember ? memberIds : ownerIds });
    }
    await req(`${sb.origin}/_sandbox/requests`, { method: 'DELETE' });

    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    const jobs: Array<Promise<{ t: (typeof tokens)[number]; res: Res }>> = [];
    // Interleaved, so that every token's requests are in flight at the same time as the others'.
    for (let n = 0; n < PER_TOKEN; n++) {
      for (const t of tokens) {
        jobs.push(req(`${sb.baseUrl}/apps?itemsPerPage=5`, { token: t.token, headers: JSON_ACCEPT, agent }).then((res) => ({ t, res })));
      }
    }
    const results = await Promise.all(jobs);
    agent.destroy();
    expect(results).toHaveLength(TOKENS * PER_TOKEN);

    for (const t of tokens) {
      const mine = results.filter((r) => r.t === t).map((r) => r.res);
      const ok = mine.filter((r) => r.status === 200);
      const limited = mine.filter((r) => r.status === 429);
      expect(ok, t.name).toHaveLength(20);
      expect(limited, t.name).toHaveLength(80);
      // Each accepted request took one slot of this token's window, and only of this one.
      expect(ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
      for (const r of ok) {
        expect(r.headers['x-ratelimit-limit']).toBe('20');
        expect(ids(r.json())).toEqual(t.expected);
      }
      for (const r of limited) {
        expect(r.headers['x-ratelimit-remaining']).toBe('0');
        const retry = Number(r.headers['retry-after']);
        expect(retry >= 1 && retry <= 60).toBe(true);
        expect((r.json() as { status: number }).status).toBe(429);
      }
    }

    // The server's own record agrees, and it still answers.
    const log = (await req(`${sb.origin}/_sandbox/requests`)).json() as Array<{ token: string; status: number }>;
    expect(log).toHaveLength(TOKENS * PER_TOKEN);
    for (const t of tokens) {
      expect(log.filter((e) => e.token === t.name && e.status === 200), t.name).toHaveLength(20);
      expect(log.filter((e) => e.token === t.name && e.status === 429), t.name).toHaveLength(80);
    }
    const after = await createToken(sb.origin, 'after-load');
    expect((await req(`${sb.baseUrl}/teams`, { token: after, headers: JSON_ACCEPT })).status).toBe(200);
    expect(sb.process.exitCode).toBeNull();
  });
});

// One `hostctl mcp` process, many concurrent calls, one budget: every call is a reservation
// of its own, so that a burst never sends more than the server's limit allows, whether the
// budget has seen the server's window yet or not, kept in the file or in a fleet's Redis;
// each waits within its own --max-wait; and a call cancelled while it waits for a slot
// sends nothing. The MCP SDK's client over the built CLI as a child process, against a
// sandbox with a small limit and a short window.
//
// Each test has its own sandbox and its own server, and spends most of its time waiting
// for windows to pass: the tests run at once.

import { describe, expect } from 'vitest';
import { e2eTest, type Env } from '../support/fixtures.js';
import { sandboxAdmin } from '../support/cli.js';
import { connectMcp, type McpSession } from '../support/mcp.js';
import { redisUnavailable, startRedis } from '../support/redis.js';

const LIMIT = 5;
const WINDOW_SECONDS = 2;

const noRedis = redisUnavailable();
if (noRedis) console.warn(`skipping the Redis store's burst: ${noRedis}`);

/** A `hostctl mcp` of the test's own, the sandbox it talks to, and an app of the sandbox's data. */
interface World {
  session: McpSession;
  admin: ReturnType<typeof sandboxAdmin>;
  app: string;
}

const test = e2eTest().extend('mcp', async ({ homeEnv, sandboxes }, { onCleanup }) => {
  const sessions: McpSession[] = [];
  onCleanup(async () => {
    for (const s of sessions) await s.close();
  });
  /**
   * `hostctl [args] mcp` in the test's home (a fresh config dir: a new CI runner), at a
   * sandbox of its own with a small limit and a short window: WINDOW_SECONDS, long enough
   * that on a busy machine no answer is still on its way when its slot comes free (the
   * budget predicts a slot from its answer's arrival).
   */
  return async (o: { env?: Env; args?: string[]; windowSeconds?: number } = {}): Promise<World> => {
    const sandbox = await sandboxes(['--rate-limit', String(LIMIT), '--window', String(o.windowSeconds ?? WINDOW_SECONDS)]);
    const session = await connectMcp({ ...homeEnv, HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, ...o.env }, o.args);
    sessions.push(session);
    // Read through the sandbox's admin endpoint: no token, no budget.
    const apps = (await (await fetch(`${sandbox.origin}/_sandbox/objects/apps`)).json()) as { publicId: string }[];
    return { session, admin: sandboxAdmin(sandbox), app: apps[0]!.publicId };
  };
});

function getObjects(s: McpSession, id: string, options: { signal?: AbortSignal } = {}) {
  return s.client.callTool({ name: 'get_objects', arguments: { resource: 'apps', ids: [id], fields: ['publicId'] } }, undefined, { timeout: 60_000, ...options });
}

/** `calls` concurrent get_objects calls, sent at once: every one answered with the app, and not one request refused. */
async function burst({ session, admin, app }: World, calls: number): Promise<void> {
  const results = await Promise.all(Array.from({ length: calls }, () => getObjects(session, app)));
  const answered = results.filter((r) => !r.isError && JSON.stringify(r.structuredContent) === JSON.stringify({ items: [{ publicId: app }], notFound: [] }));
  const log = await admin.requests();
  const errors = results.filter((r) => r.isError).map((r) => (r.content as { text: string }[])[0]?.text);
  expect({ answered: answered.length, refused: log.filter((r) => r.status === 429).length, sent: log.length, errors: errors.slice(0, 2) }).toEqual({ answered: calls, refused: 0, sent: calls, errors: [] });
}

describe.concurrent('a burst of concurrent calls to one hostctl mcp', () => {
  test("15 calls, three windows' worth, on a cold budget are all answered, and the server refuses none", async ({ mcp }) => {
    await burst(await mcp(), 15);
  });

  test.skipIf(noRedis !== undefined)("15 calls on a cold budget kept in a fleet's Redis are all answered, and the server refuses none", async ({ mcp, onTestFinished }) => {
    const redis = await startRedis();
    onTestFinished(() => redis.stop());
    await burst(await mcp({ env: { HOSTCTL_REDIS_URL: redis.url } }), 15);
  });

  test('each call waits within its own --max-wait, not a share of one the whole server spends', async ({ mcp }) => {
    // 15 calls on a limit of 5 a window: none waits much more than two windows (4 s), all
    // of them together 30 s or more.
    await burst(await mcp({ args: ['--max-wait', '10'] }), 15);
  });
});

describe.concurrent('a call cancelled while it waits for the budget', () => {
  test('sends nothing once its slot frees, whichever tool it was, and leaves the slot to the calls after it', async ({ mcp }) => {
    // A longer window: the four calls below must all be waiting before it frees, however
    // busy the machine; the test waits it out once.
    const { session, admin, app } = await mcp({ windowSeconds: 6 });
    await Promise.all(Array.from({ length: LIMIT }, () => getObjects(session, app)));
    const mark = session.stderr().length;
    // Every tool that sends: one request each (list_operations fetches the reference, which
    // this config dir has never kept).
    const calls = [
      { name: 'get_objects', arguments: { resource: 'apps', ids: [app] } },
      { name: 'list_objects', arguments: { resource: 'apps', limit: 1 } },
      { name: 'call_operation', arguments: { path: `/apps/${app}` } },
      { name: 'list_operations', arguments: {} },
    ];
    const cancels = calls.map(() => new AbortController());
    let answered = 0;
    const cancelled = calls.map((c, i) => session.client.callTool(c, undefined, { timeout: 60_000, signal: cancels[i]!.signal }));
    for (const p of cancelled) p.then(() => answered++, () => undefined);
    const waiting = () => session.stderr().slice(mark).match(/waiting \d+s before sending/g)?.length ?? 0;
    // Until all four wait, or one was answered without waiting (the window freed first).
    while (waiting() < calls.length && answered === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect({ waiting: waiting(), answered }).toEqual({ waiting: calls.length, answered: 0 });
    for (const c of cancels) c.abort();
    for (const p of cancelled) await expect(p).rejects.toThrow();
    // The next call gets a slot when the window frees, as the cancelled ones would have.
    // That window then has room for it and LIMIT - 1 more: had the cancelled calls sent
    // their requests when their slots came (before these, which came after them), these
    // would wait for the window after, and be answered after every one of theirs.
    const next = await getObjects(session, app);
    expect(next.isError).toBeFalsy();
    const after = await Promise.all(Array.from({ length: LIMIT - 1 }, () => getObjects(session, app)));
    expect(after.filter((r) => r.isError)).toEqual([]);
    const log = await admin.requests();
    expect({ sent: log.length, refused: log.filter((r) => r.status === 429).length }).toEqual({ sent: 2 * LIMIT, refused: 0 });
  });

  test('one cancelled while its request is in flight aborts that request, and the server goes on', async ({ hostile, homeEnv, onTestFinished }) => {
    let hungUp!: () => void;
    const closed = new Promise<void>((resolve) => (hungUp = resolve));
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    // Holds every answer: only the client can end the exchange.
    const server = await hostile((_req, res) => {
      res.on('close', hungUp);
      arrived();
    });
    // A --timeout past the test's own: only the cancel can end the request in time.
    const session = await connectMcp({ ...homeEnv, HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: 'mcp-burst-token-0123456789abcdef' }, ['--timeout', '300']);
    onTestFinished(() => session.close());
    const call = new AbortController();
    const cancelled = getObjects(session, 'ap-0123456789', { signal: call.signal });
    cancelled.catch(() => undefined);
    await inFlight;
    call.abort();
    await closed;
    await expect(cancelled).rejects.toThrow();
    expect((await session.client.callTool({ name: 'auth_status', arguments: {} })).isError).toBeFalsy();
  });
});

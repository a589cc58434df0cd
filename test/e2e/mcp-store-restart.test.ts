// A long-lived `hostctl mcp` outlives its shared store's outages: after Redis restarts, the
// server's calls use the fleet's budget again (one warning for the outage), and with
// HOSTCTL_REDIS_REQUIRED=1 the calls that failed while Redis was down succeed again once it
// is back. The MCP SDK's client over the built CLI as a child process, a real redis-server
// stopped and started again on the same port.
//
// The server tries Redis again a few seconds after a fault, in the call that uses it: the
// test calls until that has happened (a bounded number of calls, half a second apart),
// asserting what the server did, never how long it took. The two tests, each with its own
// Redis, sandbox and server, spend that pause at once.

import { describe, expect } from 'vitest';
import { e2eTest } from '../support/fixtures.js';
import { connectMcp, type McpSession } from '../support/mcp.js';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis.js';

const noRedis = redisUnavailable();
if (noRedis) console.warn(`skipping the MCP server's store restarts: ${noRedis}`);

const test = e2eTest();

function getApps(s: McpSession) {
  return s.client.callTool({ name: 'list_objects', arguments: { resource: 'apps', limit: 1, fields: ['publicId'] } }, undefined, { timeout: 30_000 });
}

/** The budget key hostctl keeps in `redis`, if any. */
async function budgetKeys(redis: RedisServer): Promise<string[]> {
  return (await redis.dump()).map((e) => e.key).filter((k) => /^hostctl:\{[0-9a-f]+\}:budget$/.test(k));
}

/** Calls until `done()` holds, at most `max` calls half a second apart; what the last call answered. */
async function callUntil(s: McpSession, done: (r: Awaited<ReturnType<typeof getApps>>) => Promise<boolean>, max = 40) {
  for (let i = 0; ; i++) {
    const r = await getApps(s);
    if ((await done(r)) || i >= max) return r;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe.skipIf(noRedis !== undefined)('hostctl mcp when its shared store restarts', { concurrent: true }, () => {
  test('the server uses the fleet budget again once Redis is back, after one warning for the outage', async ({ homeEnv, sandboxes, onTestFinished }) => {
    let redis = await startRedis([]);
    const port = redis.port;
    onTestFinished(() => redis.stop());
    const sandbox = await sandboxes(['--rate-limit', '1000']);
    const session = await connectMcp({ ...homeEnv, HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_REDIS_URL: redis.url });
    onTestFinished(() => session.close());

    expect((await getApps(session)).isError).toBeFalsy();
    expect(await budgetKeys(redis)).toHaveLength(1);

    await redis.kill();
    expect((await getApps(session)).isError).toBeFalsy();
    redis = await startRedis([], { port });
    expect(await budgetKeys(redis)).toEqual([]);

    const last = await callUntil(session, async () => (await budgetKeys(redis)).length === 1);
    expect(last.isError).toBeFalsy();
    expect(await budgetKeys(redis)).toHaveLength(1);
    expect(session.stderr().match(/warning: the shared store/g)).toHaveLength(1);
  });

  test('with HOSTCTL_REDIS_REQUIRED=1, calls fail while Redis is down and succeed again once it is back', async ({ homeEnv, sandboxes, onTestFinished }) => {
    let redis = await startRedis([]);
    const port = redis.port;
    onTestFinished(() => redis.stop());
    const sandbox = await sandboxes(['--rate-limit', '1000']);
    const session = await connectMcp({ ...homeEnv, HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_REDIS_URL: redis.url, HOSTCTL_REDIS_REQUIRED: '1' });
    onTestFinished(() => session.close());

    expect((await getApps(session)).isError).toBeFalsy();
    await redis.kill();
    const down = await getApps(session);
    expect(down.isError).toBe(true);
    expect(JSON.parse((down.content as { text: string }[])[0]!.text)).toMatchObject({ error: { code: 'network' } });
    redis = await startRedis([], { port });

    const last = await callUntil(session, async (r) => !r.isError);
    expect(last.isError).toBeFalsy();
    expect(await budgetKeys(redis)).toHaveLength(1);
  });
});

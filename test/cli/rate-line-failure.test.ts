// -R after a run that failed part-way (exit 6): its line tells the rate state of the last
// answer that did arrive in this run, not "no response seen yet", whether the failure was
// the API's connection or the shared store that kept the budget. hostctl in-process
// against a loopback server that answers pages of a --all walk and then fails; the store
// is a real redis-server, killed mid-walk.

import { describe, expect } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cliTest } from '../support/fixtures.js';
import type { Behaviour, HostileServer } from '../support/hostile-server.js';
import { redisUnavailable, startRedis } from '../support/redis.js';

const TOKEN = 'hct_ratelinefailure_token_7k3m';
const LIMIT = 100;
const test = cliTest().extend('runEnv', () => ({ HOSTCTL_TOKEN: TOKEN }));

/**
 * Answers pages of a cursor walk with the window's headers (each answer spends one of
 * LIMIT), except where `fail` takes the request (it gets the request's number, and may
 * answer later); `answered()` counts the pages sent.
 */
function pages(fail: (n: number, req: IncomingMessage, res: ServerResponse, answer: () => void) => boolean): Behaviour & { answered(): number } {
  let n = 0;
  let answered = 0;
  const behaviour = (req: IncomingMessage, res: ServerResponse) => {
    n++;
    const answer = () => {
      answered++;
      const page = Array.from({ length: 25 }, (_, i) => ({ publicId: `ap-${String(n * 100 + i).padStart(10, '0')}`, name: `app ${n}-${i}` }));
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-ratelimit-limit': String(LIMIT),
        'x-ratelimit-remaining': String(LIMIT - answered),
        'x-ratelimit-reset': '30',
        link: `</v1/apps?cursor=${n}>; rel="next"`,
      });
      res.end(JSON.stringify(page));
    };
    if (!fail(n, req, res, answer)) answer();
  };
  return Object.assign(behaviour, { answered: () => answered });
}

describe('-R after exit 6 part-way through a walk', () => {
  test('the server stops answering after 6 pages: the line is the 6th answer\'s', async ({ hostctl, hostile }) => {
    const walk = pages((n, req) => {
      if (n <= 6) return false;
      void server.close();
      req.socket.destroy();
      return true;
    });
    const server: HostileServer = await hostile(walk);
    const r = await hostctl(['apps', 'list', '--all', '-R', '-o', 'tsv', '--base-url', server.baseUrl]);
    expect(r.code).toBe(6);
    expect(walk.answered()).toBe(6);
    expect(r.stderr).toMatch(new RegExp(`^Rate limit: ${LIMIT - 6}/${LIMIT} requests left`, 'm'));
  });

  test.skipIf(redisUnavailable() !== undefined)('the shared store is lost after 6 pages (HOSTCTL_REDIS_REQUIRED=1): the line is still the last answer\'s', async ({ hostctl, hostile }) => {
    const redis = await startRedis();
    try {
      const walk = pages((n, _req, _res, answer) => {
        if (n !== 6) return false;
        // The 6th answer goes out once Redis is gone: a later reservation fails.
        void redis.kill().then(answer);
        return true;
      });
      const server = await hostile(walk);
      const r = await hostctl(['apps', 'list', '--all', '-R', '-o', 'tsv', '--base-url', server.baseUrl], { HOSTCTL_REDIS_URL: redis.url, HOSTCTL_REDIS_REQUIRED: '1' });
      expect(r.code).toBe(6);
      expect(r.stderr).toContain('The shared store');
      expect(r.stderr).not.toContain('no response seen yet');
      expect(walk.answered()).toBeGreaterThanOrEqual(6);
      expect(r.stderr).toMatch(new RegExp(`^Rate limit: ${LIMIT - walk.answered()}/${LIMIT} requests left`, 'm'));
    } finally {
      await redis.stop();
    }
  });
});

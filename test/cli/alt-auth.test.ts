// Bad tokens against the independent alt server, whose answers are its own: a 401 with an
// {"error": {"code", "message"}} body, and after 5 failed authentications from one
// address a 403 lockout for 300 s (the API document leaves both open). The client and the
// server share one virtual clock.

import { describe, expect } from 'vitest';
import { cliTest } from '../support/fixtures.js';
import { VirtualClock, type RunResult } from '../support/inproc.js';

const test = cliTest()
  .extend('clock', () => new VirtualClock(Date.now()))
  .extend('server', ({ alt, clock }) => alt({ limit: 1000, now: clock.now }))
  .extend('run', ({ hostctl, server, clock }) => (token: string, args = ['apps', 'list', '--json']): Promise<RunResult> =>
    hostctl(args, { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: token }, { clock }))
  .extend('statuses', ({ server }) => () => server.alt.requests.map((r) => r.status));

describe('the alt server and a bad token', () => {
  test('its 401: exit 4, one request, the token never sent again', async ({ run, statuses }) => {
    const bad = 'alt_not_a_valid_token_0001';
    const first = await run(bad);
    expect(first.code).toBe(4);
    expect(first.stdout).toBe('');
    expect(JSON.parse(first.stderr)).toMatchObject({ error: { code: 'auth', exit: 4, message: expect.stringMatching(/^The API rejected the token \(401 Unauthorized for GET \/v1\/apps\)\./) as unknown } });
    const again = await run(bad);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/will not send it again/);
    expect(statuses()).toEqual([401]);
  });

  test('its 403 lockout: exit 4 with the server\'s own message; the good token is not marked, and works once the lockout is over', async ({ run, statuses, server, clock }) => {
    // Five bad tokens, each sent once (hostctl never resends one): the fifth locks the address.
    for (let i = 0; i < 5; i++) expect((await run(`alt_not_a_valid_token_100${i}`)).code).toBe(4);
    expect(statuses()).toEqual([401, 401, 401, 401, 401]);

    const locked = await run(server.token);
    expect(locked.code).toBe(4);
    expect(locked.stdout).toBe('');
    const error = (JSON.parse(locked.stderr) as { error: { message: string } }).error;
    expect(error.message).toMatch(/^The API refused this request \(403 Forbidden for GET \/v1\/apps\)\. The server said: "Too many failed authentications from this address\."$/);
    expect((JSON.parse(locked.stderr) as { error: { hint: string } }).error.hint).toMatch(/locked out for a while: wait before any further request\.$/);
    expect(statuses()).toEqual([401, 401, 401, 401, 401, 403]);

    // 300 s later the address is let in again, and the same token goes.
    clock.advance(301_000);
    const after = await run(server.token);
    expect(after.code, after.stderr).toBe(0);
    expect((JSON.parse(after.stdout) as unknown[]).length).toBe(server.alt.objects('apps').slice(0, 25).length);
    expect(statuses()).toEqual([401, 401, 401, 401, 401, 403, 200]);
  });
});

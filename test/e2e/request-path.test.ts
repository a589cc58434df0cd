// The request path of the program users run: the built CLI (bin/hostctl.js → dist/, with
// the undici that scripts/trim.mjs rewrote) in a process of its own, against loopback
// servers. Redirects (docs/requests.md "Redirects", docs/security.md), TLS (a certificate
// the run trusts through NODE_EXTRA_CA_CERTS, as the TLS error's hint says, and one it does
// not), a proxy that opens its tunnel, and --timeout (a server that never answers, one
// that stalls part-way, one that trickles its body): each ends as the contract says, in
// one sentence and its exit code, never a hang, never the token. Proxies that misbehave
// are test/e2e/proxy.test.ts's; a server that echoes the token everywhere is
// test/e2e/token-echo.test.ts's.

/* eslint-disable no-empty-pattern -- vitest reads what a fixture needs from its first parameter, which must be an object pattern: `{}` is "nothing". */

import { connect, createServer as createNetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { e2eTest, type Env } from '../support/fixtures.js';
import { tmpDir, type RunResult } from '../support/cli.js';
import { answer, behaviours, expectCleanFailure, startHostile, type Behaviour, type HostileServer } from '../support/hostile-server.js';
import { opensslUnavailable, selfSignedCert, type TestCert } from '../support/tls.js';

const TOKEN = 'hct_e2e_requestPath_K3v9Qm2Lx8';
const APPS = '[{"publicId":"ap-path00001","name":"reached"}]';
const JSON_TYPE = { 'content-type': 'application/json' };

const test = e2eTest()
  .extend('runEnv', (): Env => ({ HOSTCTL_TOKEN: TOKEN }))
  // A hang shows as this, not as a wrong answer: the runs' own --timeout is 1 s.
  .extend('runOptions', () => ({ timeoutMs: 25_000 }))
  // A run in a config dir of its own (its state and budget), unless the test names the one
  // an earlier run left.
  .extend('run', ({ hostctl, newDir }) => (args: string[], env: Env = {}, configDir = newDir('hostctl-path-')): Promise<RunResult> => hostctl(args, { HOSTCTL_CONFIG_DIR: configDir, ...env }))
  // A server behaving as `behaviour`, over HTTPS with `tls`; stopped after the test.
  .extend('server', ({}, { onCleanup }) => {
    const servers: HostileServer[] = [];
    onCleanup(async () => {
      for (const s of servers) await s.close();
    });
    return async (behaviour: Behaviour, tls?: TestCert): Promise<HostileServer> => {
      const s = await startHostile(behaviour, tls);
      servers.push(s);
      return s;
    };
  })
  // Two certificates, made once for the file: one for loopback's names, and one trusted but
  // made for another name than the one asked for.
  .extend('certs', { scope: 'file' }, ({}, { onCleanup }) => {
    const dir = tmpDir('hostctl-path-tls-');
    onCleanup(() => dir.cleanup());
    return { cert: selfSignedCert(dir.path, { dns: ['localhost'], ip: ['127.0.0.1'] }), stranger: selfSignedCert(dir.path, { dns: ['api.example.invalid'] }, 'stranger') };
  });

/** Neither the token nor a long piece of it, in any case, on stdout or stderr. */
function expectNoToken(r: RunResult): void {
  const all = `${r.stdout}\n${r.stderr}`.toLowerCase();
  expect(all, all).not.toContain(TOKEN.toLowerCase());
  expect(all, all).not.toContain(TOKEN.slice(0, 14).toLowerCase());
}

const authOf = (s: HostileServer) => s.seen.map((r) => r.headers.authorization);

describe.concurrent('redirects, followed by the built CLI as docs/requests.md says', () => {
  test('a same-origin 301, 302, 307 and 308 are followed, each hop with the token', async ({ server, run }) => {
    for (const status of [301, 302, 307, 308]) {
      const s = await server((req, res) => {
        if (req.url === '/v1/apps') answer(status, { location: '/v1/moved/apps', 'content-length': '0' }, '')(req, res);
        else answer(200, JSON_TYPE, APPS)(req, res);
      });
      const r = await run(['apps', 'list', '--json', '--base-url', s.baseUrl, '-v']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(JSON.parse(APPS));
      expect(s.seen.map((x) => x.url)).toEqual(['/v1/apps', '/v1/moved/apps']);
      expect(authOf(s)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
      expect(r.stderr).toContain(`* following redirect to ${s.origin}/v1/moved/apps\n`);
      expectNoToken(r);
    }
  });

  test('a redirect to another origin goes there without the token or the user\'s own headers; its 401 does not mark the token', async ({ server, run, newDir }) => {
    const other = await server(answer(401, JSON_TYPE, '{"detail":"who are you?"}'));
    const s = await server((req, res) => {
      if (req.url === '/v1/apps') answer(302, { location: `${other.origin}/v1/apps`, 'content-length': '0' }, '')(req, res);
      else answer(200, JSON_TYPE, APPS)(req, res);
    });
    const config = newDir('hostctl-path-');
    const r = await run(['api', '/apps', '-H', 'X-Api-Key: k-secret-1', '--base-url', s.baseUrl, '-v'], {}, config);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`hostctl: A redirect led to ${other.origin}, which asks for credentials (401); hostctl sends the token only to the base URL's origin.`);
    expect(r.stderr).toContain('(another origin: without the token)');
    expect(s.seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(s.seen[0]?.headers['x-api-key']).toBe('k-secret-1');
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
    expect(other.seen[0]?.headers['x-api-key']).toBeUndefined();
    expect(other.seen[0]?.headers['user-agent']).toMatch(/^hostctl\//);
    expectNoToken(r);
    // The token is not marked rejected: the next run sends it to the base URL again.
    const again = await run(['api', '/other', '--base-url', s.baseUrl], {}, config);
    expect(again.code, again.stderr).toBe(0);
    expect(s.seen.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  test('a redirect to plain http on a host that is not loopback, or to another scheme, is refused (exit 1), nothing sent on', async ({ server, run }) => {
    for (const [location, says] of [
      ['http://api.example.invalid/v1/apps', 'The API redirected to plain http (http://api.example.invalid); hostctl refuses to follow, so that nothing travels unencrypted.'],
      ['file:///etc/passwd', 'The API redirected to a file: address; hostctl follows http(s) redirects only.'],
    ] as const) {
      const s = await server(answer(302, { location, 'content-length': '0' }, ''));
      const r = await run(['apps', 'list', '--base-url', s.baseUrl]);
      expectCleanFailure(r, 1, TOKEN);
      expect(r.stderr).toContain(`hostctl: ${says}`);
      expect(s.seen).toHaveLength(1);
    }
  });

  test('more than 5 redirects: stopped after the sixth answer (exit 1)', async ({ server, run }) => {
    let n = 0;
    const s = await server((req, res) => answer(302, { location: `/v1/apps?hop=${++n}`, 'content-length': '0' }, '')(req, res));
    const r = await run(['apps', 'list', '--base-url', s.baseUrl]);
    expectCleanFailure(r, 1, TOKEN);
    expect(r.stderr).toContain('hostctl: The API redirected more than 5 times for GET /v1/apps; hostctl stopped following.');
    expect(s.seen).toHaveLength(6);
  });

  test('a POST: 307 to another origin is not followed (its body would go there); 303 on the same origin goes on as a GET without the body', async ({ server, run }) => {
    const other = await server(behaviours.ok);
    const cross = await server(answer(307, { location: `${other.origin}/v1/apps`, 'content-length': '0' }, ''));
    const refused = await run(['api', '/apps', '-X', 'POST', '-f', 'name=secret-app', '--base-url', cross.baseUrl]);
    expectCleanFailure(refused, 1, TOKEN);
    expect(refused.stderr).toContain(`hostctl: The API redirected POST /v1/apps to another origin (${other.origin}) with 307, which would resend the request body there; hostctl does not follow.`);
    expect(other.seen).toEqual([]);

    const bodies: string[] = [];
    const same = await server((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push(body);
        if (req.method === 'POST') answer(303, { location: '/v1/apps/ap-path00001', 'content-length': '0' }, '')(req, res);
        else answer(200, JSON_TYPE, '{"publicId":"ap-path00001","name":"made"}')(req, res);
      });
    });
    const made = await run(['api', '/apps', '-X', 'POST', '-f', 'name=made', '--base-url', same.baseUrl]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({ publicId: 'ap-path00001', name: 'made' });
    expect(same.seen.map((x) => `${x.method} ${x.url}`)).toEqual(['POST /v1/apps', 'GET /v1/apps/ap-path00001']);
    expect(bodies).toEqual(['{"name":"made"}', '']);
    expect(same.seen[1]?.headers['content-type']).toBeUndefined();
    expect(same.seen[1]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

const noOpenssl = opensslUnavailable();
if (noOpenssl) console.warn(`request-path TLS tests skipped: ${noOpenssl}`);

describe.skipIf(noOpenssl !== undefined)('TLS: the certificate decides, never the token', () => {
  test('a certificate trusted through NODE_EXTRA_CA_CERTS: the request goes, with the token', async ({ server, run, certs }) => {
    const { cert } = certs;
    const s = await server(behaviours.ok, cert);
    for (const host of ['localhost', '127.0.0.1']) {
      const r = await run(['apps', 'list', '--json', '--base-url', `https://${host}:${s.port}/v1`], { NODE_EXTRA_CA_CERTS: cert.certFile });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ publicId: 'ap-hostile001', name: 'fine' }]);
      expect(r.stderr).toBe('');
    }
    expect(authOf(s)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  test('a certificate the run does not trust: exit 6, one sentence, the hint names NODE_EXTRA_CA_CERTS, no request sent', async ({ server, run, certs }) => {
    const { cert } = certs;
    const s = await server(behaviours.ok, cert);
    const r = await run(['apps', 'list', '--base-url', `https://localhost:${s.port}/v1`]);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toMatch(new RegExp(`^hostctl: Could not make a secure connection to localhost:${s.port} \\((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\\): the server's TLS certificate was not accepted\\.\\n`));
    expect(r.stderr).toContain('set NODE_EXTRA_CA_CERTS to its CA certificate file');
    expect(s.seen).toEqual([]);
    expectNoToken(r);
  });

  test('through a proxy that opens the tunnel: CONNECT with its credentials, TLS inside, the token never in clear on the proxy', async ({ server, run, certs }) => {
    const { stranger } = certs;
    // The API host is a name under .invalid that only the proxy resolves: to the test's server.
    const api = await server(behaviours.ok, stranger);
    const tunnel = await tunnelProxy(api.port);
    try {
      const r = await run(['apps', 'list', '--json', '--base-url', 'https://api.example.invalid/v1', '-v'], {
        NODE_EXTRA_CA_CERTS: stranger.certFile,
        HTTPS_PROXY: `http://corp-user:pr0xy-pw@127.0.0.1:${tunnel.port}`,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ publicId: 'ap-hostile001', name: 'fine' }]);
      expect(tunnel.heads).toHaveLength(1);
      expect(tunnel.heads[0]).toMatch(/^CONNECT api\.example\.invalid:443 HTTP\/1\.1\r\n/);
      expect(tunnel.heads[0]).toMatch(/^proxy-authorization: Basic Y29ycC11c2VyOnByMHh5LXB3\r?$/im);
      expect(authOf(api)).toEqual([`Bearer ${TOKEN}`]);
      // What the proxy carried was TLS: neither the token nor the request line in clear.
      expect(tunnel.relayed().length).toBeGreaterThan(0);
      expect(tunnel.relayed().includes(TOKEN)).toBe(false);
      expect(tunnel.relayed().includes('GET /v1/apps')).toBe(false);
      expect(r.stderr).not.toContain('pr0xy-pw');
      expectNoToken(r);
    } finally {
      await tunnel.close();
    }
  });

  test('a trusted certificate made for another name: exit 6, no request sent', async ({ server, run, certs }) => {
    const { stranger } = certs;
    const s = await server(behaviours.ok, stranger);
    const r = await run(['apps', 'list', '--base-url', `https://localhost:${s.port}/v1`], { NODE_EXTRA_CA_CERTS: stranger.certFile });
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toMatch(new RegExp(`^hostctl: Could not make a secure connection to localhost:${s.port} \\(ERR_TLS_CERT_ALTNAME_INVALID\\)`));
    expect(s.seen).toEqual([]);
  });
});

/**
 * An HTTP proxy that opens every CONNECT tunnel, to 127.0.0.1:`target` whatever host was
 * asked for, and keeps the request heads and the bytes it relayed from the client.
 */
async function tunnelProxy(target: number): Promise<{ port: number; heads: string[]; relayed(): string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const heads: string[] = [];
  const relayed: Buffer[] = [];
  const s = createNetServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      client.off('data', onData);
      heads.push(head.subarray(0, end + 2).toString('latin1'));
      const rest = head.subarray(end + 4);
      const upstream = connect(target, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length > 0) {
          relayed.push(rest);
          upstream.write(rest);
        }
        client.on('data', (d: Buffer) => {
          relayed.push(d);
          upstream.write(d);
        });
        upstream.pipe(client);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    port: (s.address() as AddressInfo).port,
    heads,
    relayed: () => Buffer.concat(relayed).toString('latin1'),
    close: async () => {
      for (const x of sockets) x.destroy();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

/** A TCP server that accepts every connection and never says a word (no TLS handshake, no HTTP). */
async function silentServer(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const s = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.resume();
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    port: (s.address() as AddressInfo).port,
    connections: () => connections,
    close: async () => {
      for (const x of sockets) x.destroy();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

// Side by side: each waits out its own --timeout.
describe.concurrent('--timeout bounds every request of the built CLI', () => {
  test('a server that takes the request and never answers: exit 6 after one request (a timeout is never resent)', async ({ server, run }) => {
    const s = await server(behaviours.neverAnswers);
    const r = await run(['apps', 'list', '--timeout', '1', '--base-url', s.baseUrl]);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toBe(`hostctl: No answer from 127.0.0.1:${s.port} within 1s.\nRaise --timeout or try later.\n`);
    expect(s.seen).toHaveLength(1);
  });

  test('an https server that accepts the connection and never starts TLS: the same sentence, exit 6', async ({ run }) => {
    const silent = await silentServer();
    try {
      const r = await run(['apps', 'list', '--timeout', '1', '--base-url', `https://localhost:${silent.port}/v1`]);
      expectCleanFailure(r, 6, TOKEN);
      expect(r.stderr).toBe(`hostctl: No answer from localhost:${silent.port} within 1s.\nRaise --timeout or try later.\n`);
      expect(silent.connections()).toBe(1);
    } finally {
      await silent.close();
    }
  });

  test('a body that stalls after its first bytes: exit 6, the message says it stalled part-way, nothing printed', async ({ server, run }) => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('[{"publicId":"ap-path00001",');
    });
    const r = await run(['apps', 'list', '--timeout', '1', '--base-url', s.baseUrl]);
    expectCleanFailure(r, 6, TOKEN);
    expect(r.stderr).toContain(`hostctl: No answer from 127.0.0.1:${s.port} within 1s (the response stalled part-way).\nRaise --timeout or try later.`);
  });

  test('a body that trickles a byte at a time for ever: --timeout covers the whole body, not each chunk', async ({ server, run }) => {
    const timers = new Set<NodeJS.Timeout>();
    const s = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      // A space every 200 ms: never a gap as long as the timeout, never an end.
      const t = setInterval(() => res.write(' '), 200);
      timers.add(t);
      req.socket.on('close', () => clearInterval(t));
    });
    try {
      const r = await run(['apps', 'list', '--timeout', '1', '--base-url', s.baseUrl]);
      expectCleanFailure(r, 6, TOKEN);
      expect(r.stderr).toContain(`hostctl: No answer from 127.0.0.1:${s.port} within 1s (the response stalled part-way)`);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });
});

// The proxy through the built CLI, with the bundle's own undici: a proxy that closes the
// connection after CONNECT made undici open tunnels without end (nodejs/undici#3897),
// each carrying the proxy's credentials. Whatever the proxy does, hostctl ends with exit
// 6, names the proxy (never its password), and sends at most --retries+1 CONNECTs. The
// proxies are small node:net servers on loopback; the API host is a name under .invalid
// that only the proxy ever sees.

import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { e2eTest, type Env } from '../support/fixtures.js';

const PASSWORD = 'pr0xy-s3cret';
const TOKEN = 'hctl_proxy_e2e_token_0123456789';
const TARGET = 'https://api.example.invalid/v1';

interface Proxy {
  port: number;
  /** CONNECT request lines received. */
  connects: string[];
  /** Whether every CONNECT carried the Proxy-Authorization header. */
  authorised: boolean[];
  close(): Promise<void>;
}

type Behaviour = (socket: Socket) => void;

/** What the proxy does after each CONNECT, and, where it is its own, what hostctl then says (the proxy's port given). */
const BEHAVIOURS: Record<string, { behaviour: Behaviour; says?: (port: number) => string }> = {
  'closes the connection after CONNECT': { behaviour: (socket) => socket.destroy() },
  'stalls after CONNECT': {
    behaviour: () => undefined,
    says: (port) => `hostctl: No answer from api.example.invalid:443 through the proxy 127.0.0.1:${port} (HTTPS_PROXY) within 1s`,
  },
  'answers 407': {
    behaviour: (socket) => socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n'),
  },
  'answers 502': { behaviour: (socket) => socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n') },
};

async function startProxy(behaviour: Behaviour): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const connects: string[] = [];
  const authorised: boolean[] = [];
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      // Each request head, whole: count it and act once.
      while (head.includes('\r\n\r\n')) {
        const end = head.indexOf('\r\n\r\n');
        const request = head.slice(0, end);
        head = head.slice(end + 4);
        connects.push(request.split('\r\n')[0]!);
        authorised.push(/^proxy-authorization: basic /im.test(request));
        behaviour(socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connects,
    authorised,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const test = e2eTest()
  .extend('runEnv', (): Env => ({ HOSTCTL_TOKEN: TOKEN }))
  // A hang shows as this timeout, not as a wrong count: hostctl's own --timeout is 1 s.
  .extend('runOptions', () => ({ timeoutMs: 25_000 }))
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from its first parameter, an object pattern: `{}` is "nothing".
  .extend('proxy', ({}, { onCleanup }) => {
    const proxies: Proxy[] = [];
    onCleanup(async () => {
      for (const p of proxies) await p.close();
    });
    /** A proxy on loopback that does `behaviour` after each CONNECT; closed after the test. */
    return async (behaviour: Behaviour): Promise<Proxy> => {
      const p = await startProxy(behaviour);
      proxies.push(p);
      return p;
    };
  });

// Side by side: a proxy that stalls waits out its --timeout.
describe.concurrent('a proxy that misbehaves ends hostctl (exit 6) after at most --retries+1 CONNECTs', () => {
  for (const [name, { behaviour, says }] of Object.entries(BEHAVIOURS)) {
    for (const retries of [0, 2]) {
      test(`${name}, --retries ${retries}`, async ({ proxy: startOne, hostctl }) => {
        const proxy = await startOne(behaviour);
        const r = await hostctl(['--base-url', TARGET, 'apps', 'list', '--retries', String(retries), '--timeout', '1'], { HTTPS_PROXY: `http://corp-user:${PASSWORD}@127.0.0.1:${proxy.port}` });
        expect(r.code, r.stderr).toBe(6);
        expect(r.stderr).toMatch(/^hostctl: /);
        if (says) expect(r.stderr).toContain(says(proxy.port));
        expect(r.stderr).toContain(`127.0.0.1:${proxy.port}`);
        expect(r.stderr).toContain('HTTPS_PROXY');
        expect(r.stderr).not.toContain(PASSWORD);
        expect(r.stderr).not.toContain(TOKEN);
        expect(r.stderr).not.toMatch(/\n\s+at /);
        expect(r.stdout).toBe('');
        expect(proxy.connects.length).toBeGreaterThanOrEqual(1);
        expect(proxy.connects.length).toBeLessThanOrEqual(retries + 1);
        expect(new Set(proxy.connects)).toEqual(new Set(['CONNECT api.example.invalid:443 HTTP/1.1']));
        expect(proxy.authorised.every(Boolean)).toBe(true);
      });
    }
  }

  test('a proxy that asks for credentials: the message says so and points at the variable', async ({ proxy: startOne, hostctl }) => {
    const proxy = await startOne(BEHAVIOURS['answers 407']!.behaviour);
    const r = await hostctl(['--base-url', TARGET, 'apps', 'list'], { https_proxy: `127.0.0.1:${proxy.port}` });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`hostctl: The proxy 127.0.0.1:${proxy.port} (https_proxy) asks for credentials (407)`);
    expect(r.stderr).toContain('Check the user name and password in https_proxy');
  });

  test('a malformed HTTPS_PROXY is a usage error naming the variable, its password masked, nothing sent', async ({ hostctl }) => {
    const r = await hostctl(['--base-url', TARGET, 'apps', 'list'], { HTTPS_PROXY: `http://corp-user:${PASSWORD}@proxy host:80` });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`hostctl: HTTPS_PROXY is not a valid proxy URL: http://corp-user:****@proxy host:80.\nSet HTTPS_PROXY to a URL such as http://proxy.example.com:3128, or unset it.\n`);
  });
});

// The proxy through the built CLI, with the bundle's own undici: a proxy that closes the
// connection after CONNECT made undici open tunnels without end (nodejs/undici#3897),
// each carrying the proxy's credentials. Whatever the proxy does, hostctl ends with exit
// 6, names the proxy (never its password), and sends at most --retries+1 CONNECTs. The
// proxies are small node:net servers on loopback; the API host is a name under .invalid
// that only the proxy ever sees.

import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tmpDir, type RunResult } from '../support/cli.js';
import { NO_PROXY_ENV } from '../support/hostile-server.js';

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

const BEHAVIOURS: Record<string, Behaviour> = {
  'closes the connection after CONNECT': (socket) => socket.destroy(),
  'stalls after CONNECT': () => undefined,
  'answers 407': (socket) => socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n'),
  'answers 502': (socket) => socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'),
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

describe('a proxy that misbehaves ends hostctl (exit 6) after at most --retries+1 CONNECTs', () => {
  let home: { path: string; cleanup(): void };
  let proxy: Proxy | undefined;
  beforeAll(() => {
    home = tmpDir('hostctl-proxy-');
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(() => home?.cleanup());

  const run = (args: string[], env: Record<string, string | undefined>): Promise<RunResult> =>
    runCli(['--base-url', TARGET, ...args], {
      env: { ...NO_PROXY_ENV, HOME: home.path, HOSTCTL_CONFIG_DIR: `${home.path}/config`, XDG_STATE_HOME: undefined, XDG_CACHE_HOME: `${home.path}/cache`, HOSTCTL_TOKEN: TOKEN, ...env },
      // A hang shows as this timeout, not as a wrong count: hostctl's own --timeout is 1 s.
      timeoutMs: 25_000,
    });

  for (const [name, behaviour] of Object.entries(BEHAVIOURS)) {
    for (const retries of [0, 2]) {
      it(`${name}, --retries ${retries}`, async () => {
        proxy = await startProxy(behaviour);
        const r = await run(['apps', 'list', '--retries', String(retries), '--timeout', '1'], { HTTPS_PROXY: `http://corp-user:${PASSWORD}@127.0.0.1:${proxy.port}` });
        expect(r.code, r.stderr).toBe(6);
        expect(r.stderr).toMatch(/^hostctl: /);
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

  it('a proxy that stalls: the message is the timeout, through that proxy', async () => {
    proxy = await startProxy(BEHAVIOURS['stalls after CONNECT']!);
    const r = await run(['apps', 'list', '--retries', '0', '--timeout', '1'], { HTTPS_PROXY: `http://corp-user:${PASSWORD}@127.0.0.1:${proxy.port}` });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`hostctl: No answer from api.example.invalid:443 through the proxy 127.0.0.1:${proxy.port} (HTTPS_PROXY) within 1s`);
  });

  it('a proxy that asks for credentials: the message says so and points at the variable', async () => {
    proxy = await startProxy(BEHAVIOURS['answers 407']!);
    const r = await run(['apps', 'list'], { https_proxy: `127.0.0.1:${proxy.port}` });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`hostctl: The proxy 127.0.0.1:${proxy.port} (https_proxy) asks for credentials (407)`);
    expect(r.stderr).toContain('Check the user name and password in https_proxy');
  });

  it('a malformed HTTPS_PROXY is a usage error naming the variable, its password masked, nothing sent', async () => {
    const r = await run(['apps', 'list'], { HTTPS_PROXY: `http://corp-user:${PASSWORD}@proxy host:80` });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`hostctl: HTTPS_PROXY is not a valid proxy URL: http://corp-user:****@proxy host:80.\nSet HTTPS_PROXY to a URL such as http://proxy.example.com:3128, or unset it.\n`);
  });
});

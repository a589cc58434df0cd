import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { NetworkError } from '../../src/errors.js';
import { TOKEN, cleanupDirs, closeAfterEach, closedPort, harness, json, rejection, stub } from './http-support.js';

const track = closeAfterEach();
// Set and restored key by key: replacing process.env with a copy would leave later files
// in this worker (the unit project shares its workers) an object that no longer reaches
// the real environment native code reads.
const PROXY_KEYS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];
const saved = PROXY_KEYS.map((k) => [k, process.env[k]] as const);
beforeEach(() => {
  for (const k of PROXY_KEYS) delete process.env[k];
});
afterEach(() => {
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
afterAll(cleanupDirs);

describe('proxies', () => {
  it('HTTPS_PROXY is used for a remote host: a CONNECT tunnel, the token never in the clear', async () => {
    const connects: IncomingMessage[] = [];
    const sockets = new Set<Socket>();
    const proxy = createServer();
    proxy.on('connect', (req: IncomingMessage, socket: Socket) => {
      connects.push(req);
      sockets.add(socket);
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    process.env.HTTPS_PROXY = `http://127.0.0.1:${port}`;
    const h = harness('https://api.hostctl-test.invalid/v1');
    track(h);
    try {
      const err = await rejection(h.client.request({ path: '/apps' }));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).not.toContain(TOKEN);
      expect(err.message).toBe(`The proxy 127.0.0.1:${port} (HTTPS_PROXY) refused to connect to api.hostctl-test.invalid:443 (it answered 502).`);
      expect(connects.map((r) => r.url)).toEqual(['api.hostctl-test.invalid:443']);
      expect(JSON.stringify(connects[0]!.headers)).not.toContain(TOKEN);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('loopback hosts never go through the proxy', async () => {
    process.env.HTTP_PROXY = `http://127.0.0.1:${await closedPort()}`;
    const s = await stub((_req, res) => json(res, ['direct']));
    track(s);
    const h = harness(s.baseUrl);
    track(h);
    const res = await h.client.request({ path: '/apps' });
    expect(res.json()).toEqual(['direct']);
  });
});

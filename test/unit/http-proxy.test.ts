import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors.js';
import { PROXY_RETRY_CODE, ProxyGate } from '../../src/http/proxy.js';
import { TOKEN, cleanupDirs, closeAfterEach, closedPort, harness, json, loopbackProxy, rejection, stub } from './http-support.js';

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
    const proxy = await loopbackProxy((socket) => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    const { port, connects } = proxy;
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
      await proxy.close();
    }
  });

  // undici opens a tunnel again at once when the proxy closes the connection after CONNECT,
  // without end (nodejs/undici#3897): hostctl lets each exchange try one.
  it('a proxy that closes the connection after CONNECT gets one CONNECT per request, and the error says what it did', async () => {
    const proxy = await loopbackProxy((socket) => socket.destroy());
    const h = harness('https://api.hostctl-test.invalid/v1', { retries: 0, env: { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` } });
    track(h);
    try {
      for (const n of [1, 2]) {
        const err = await rejection(h.client.request({ path: '/apps' }));
        expect(err).toBeInstanceOf(NetworkError);
        expect(err.message).toBe(`The proxy 127.0.0.1:${proxy.port} (HTTPS_PROXY) closed the connection before the tunnel to api.hostctl-test.invalid:443 was open.`);
        expect((err as NetworkError).hint).toBe('Check the proxy in HTTPS_PROXY (and its credentials), or list the host in NO_PROXY to go without it.');
        expect(proxy.connects.map((r) => r.url)).toEqual(Array(n).fill('api.hostctl-test.invalid:443'));
      }
    } finally {
      await proxy.close();
    }
  });

  it('the gate lets each exchange open one tunnel; a second is refused with the code failures.ts reads, carrying the first one\'s failure', async () => {
    const gate = new ProxyGate();
    const closed = new Error('socket hang up');
    let opened = 0;
    const failing = () => {
      opened++;
      return Promise.reject(closed);
    };
    gate.begin();
    expect(await rejection(gate.connect(failing))).toBe(closed);
    const refusal = await rejection(gate.connect(failing));
    expect(refusal.message).toBe('The proxy closed the connection before the tunnel was open.');
    expect((refusal as Error & { code?: string }).code).toBe(PROXY_RETRY_CODE);
    expect(refusal.cause).toBe(closed);
    expect([opened, gate.attempts]).toEqual([1, 1]);
    // The next exchange may open one again.
    gate.begin();
    expect(await gate.connect(async () => 'tunnel')).toBe('tunnel');
    expect([opened, gate.attempts]).toEqual([1, 2]);
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

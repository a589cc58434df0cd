// The wire alone (wire.ts): one exchange over undici against loopback servers and a
// loopback proxy, its body read up to a cap, its pools; timeouts on a fake clock.

import { describe, expect, it, vi } from 'vitest';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, NetworkError } from '../../src/errors.js';
import type { Exchange } from '../../src/http/layers.js';
import { MAX_BODY_BYTES, Wire } from '../../src/http/wire.js';
import { closeAfterEach, json, loopbackProxy, onFakeTimers, rejection, stub, tunnelTo } from './http-support.js';

const track = closeAfterEach();

const KIB = 1024;
/** What an error body is cut to (wire.ts: MAX_ERROR_BODY_BYTES). */
const ERROR_CAP = 64 * KIB;

/** A server that keeps an idle connection for ten minutes, and tells its clients so. */
const keptAlive = (server: Server) => void (server.keepAliveTimeout = 600_000);

const get = (url: string): Exchange => ({ method: 'GET', url: new URL(url), headers: {}, body: undefined });

function wire(env: NodeJS.ProcessEnv = {}, timeoutMs = 5_000): Wire {
  return track(new Wire({ timeoutMs, env }));
}

/** `size` bytes of text whose every position is known: 'a'…'z' over and over. */
function letters(size: number): string {
  let out = '';
  while (out.length < size) out += 'abcdefghijklmnopqrstuvwxyz';
  return out.slice(0, size);
}

describe('bodies', () => {
  it('an error body is cut after 64 KiB, announced or streamed, and read whole when the caller keeps it', async () => {
    const body = letters(100 * KIB);
    const s = track(await stub((req, res) => {
      if (req.url === '/streamed') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.write(body.slice(0, 50 * KIB));
        res.end(body.slice(50 * KIB));
      } else {
        res.writeHead(500, { 'content-type': 'text/plain', 'content-length': String(body.length) });
        res.end(body);
      }
    }));
    const w = wire();
    expect(await w.send(get(`${s.origin}/announced`), false)).toEqual({ status: 500, headers: expect.any(Object), text: body.slice(0, ERROR_CAP) });
    expect((await w.send(get(`${s.origin}/streamed`), false)).text).toBe(body.slice(0, ERROR_CAP));
    expect((await w.send(get(`${s.origin}/announced`), true)).text).toBe(body);
  });

  it('every 2xx is a success, read whole: 200 and 299 alike', async () => {
    const body = letters(100 * KIB);
    const s = track(await stub((req, res) => {
      res.writeHead(req.url === '/edge' ? 299 : 200, { 'content-type': 'text/plain' });
      res.end(body);
    }));
    const w = wire();
    expect((await w.send(get(`${s.origin}/edge`), false)).text).toBe(body);
    expect((await w.send(get(`${s.origin}/plain`), false)).text).toBe(body);
  });

  it('a body of exactly 32 MiB is read whole; one byte more, streamed unannounced, is refused with the next step', async () => {
    const chunk = Buffer.alloc(KIB * KIB, 0x61);
    const s = track(await stub((req, res) => {
      const extra = req.url!.startsWith('/over') ? 1 : 0;
      res.writeHead(200, { 'content-type': 'text/plain', ...(req.url === '/exact' ? { 'content-length': String(MAX_BODY_BYTES) } : {}) });
      res.on('error', () => undefined);
      let left = MAX_BODY_BYTES + extra;
      const pump = () => {
        while (left > 0) {
          const part = chunk.subarray(0, Math.min(left, chunk.length));
          left -= part.length;
          if (!res.write(part)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    }));
    const w = wire();
    const exact = await w.send(get(`${s.origin}/exact`), false);
    expect(exact.text.length).toBe(MAX_BODY_BYTES);
    const err = await rejection(w.send(get(`${s.origin}/over?x=1`), false));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('The API sent more than 32 MiB for GET /over?x=1; hostctl stopped reading it.');
    expect((err as ApiError).hint).toBe('Ask for less at a time (for example --limit, or a narrower query).');
  });

  it('a header sent twice is one value, the two joined with ", "', async () => {
    const s = track(await stub((_req, res) => {
      res.setHeader('X-Note', ['first', 'second']);
      json(res, []);
    }));
    const answer = await wire().send(get(`${s.origin}/v1/apps`), false);
    expect(answer.headers['x-note']).toBe('first, second');
  });
});

describe('through a proxy', () => {
  /**
   * A server that answers every request, and a proxy whose tunnels all lead to it. Its
   * connections are kept alive for ten minutes, on the fake clock as on the real one.
   */
  async function tunnelled() {
    const target = track(await stub((_req, res) => json(res, ['via the proxy']), keptAlive));
    const proxy = track(await loopbackProxy(tunnelTo(target.port)));
    return { target, proxy };
  }

  it("a run's exchanges share one tunnel, even once an exchange's time has passed, or a direct one has timed out", async () => {
    const { proxy } = await tunnelled();
    let asked!: () => void;
    const requested = new Promise<void>((resolve) => (asked = resolve));
    const silent = track(await stub(() => asked()));
    // The exchange's own timer is the first one set: it fires as the fake clock reaches 30 s.
    const w = wire({ HTTP_PROXY: proxy.url }, 30_000);
    await onFakeTimers(async () => {
      expect((await w.send(get('http://api.hostctl-test.invalid/v1/apps'), false)).text).toBe('["via the proxy"]');
      // The first exchange's timeout is over and done with: it ends nothing now.
      await vi.advanceTimersByTimeAsync(30_000);
      expect((await w.send(get('http://api.hostctl-test.invalid/v1/apps'), false)).text).toBe('["via the proxy"]');
      // A direct exchange that times out leaves the proxy's pool alone.
      const direct = rejection(w.send(get(`${silent.origin}/v1/apps`), false));
      await requested;
      await vi.advanceTimersByTimeAsync(30_000);
      expect((await direct).message).toBe(`No answer from 127.0.0.1:${silent.port} within 30s.`);
      expect((await w.send(get('http://api.hostctl-test.invalid/v1/apps'), false)).text).toBe('["via the proxy"]');
    });
    expect(proxy.connects.map((r) => r.url)).toEqual(['api.hostctl-test.invalid:80']);
  });

  it('a request for which another proxy is chosen goes through that one', async () => {
    const { proxy } = await tunnelled();
    const other = track(await loopbackProxy((socket) => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')));
    const w = wire({ HTTP_PROXY: proxy.url, HTTPS_PROXY: other.url });
    await w.send(get('http://api.hostctl-test.invalid/v1/apps'), false);
    const err = await rejection(w.send(get('https://api.hostctl-test.invalid/v1/apps'), false));
    expect(err.message).toBe(`The proxy 127.0.0.1:${other.port} (HTTPS_PROXY) refused to connect to api.hostctl-test.invalid:443 (it answered 502).`);
    expect(proxy.connects.map((r) => r.url)).toEqual(['api.hostctl-test.invalid:80']);
    expect(other.connects.map((r) => r.url)).toEqual(['api.hostctl-test.invalid:443']);
  });

  it('an exchange through the proxy opens one tunnel at most, even while a direct one goes out', async () => {
    const held: Socket[] = [];
    let asked!: () => void;
    const connected = new Promise<void>((resolve) => (asked = resolve));
    // The proxy holds the first CONNECT, and refuses any other.
    const proxy = track(await loopbackProxy((socket) => {
      if (held.push(socket) === 1) asked();
      else socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    }));
    const direct = track(await stub((_req, res) => json(res, ['direct'])));
    const w = wire({ HTTP_PROXY: proxy.url });
    const tunnelled = rejection(w.send(get('http://api.hostctl-test.invalid/v1/apps'), false));
    await connected;
    expect((await w.send(get(`${direct.origin}/v1/apps`), false)).text).toBe('["direct"]');
    // The proxy drops the tunnel it held: undici would try again at once, and is not let.
    held[0]!.destroy();
    expect((await tunnelled).message).toBe(`The proxy 127.0.0.1:${proxy.port} (HTTP_PROXY) closed the connection before the tunnel to api.hostctl-test.invalid:80 was open.`);
    expect(proxy.connects.map((r) => r.url)).toEqual(['api.hostctl-test.invalid:80']);
  });

  it('a tunnel that never opens ends at the timeout, and the next exchange asks the proxy again', async () => {
    let first = true;
    let asked!: () => void;
    const connected = new Promise<void>((resolve) => (asked = resolve));
    // The proxy says nothing to the first CONNECT; it opens the second.
    const target = track(await stub((_req, res) => json(res, ['at last'])));
    const open = tunnelTo(target.port);
    const proxy = track(await loopbackProxy((socket) => {
      if (first) {
        first = false;
        asked();
      } else open(socket);
    }));
    // The exchange's own timer is the first one set: it fires as the fake clock reaches 30 s.
    const w = wire({ HTTP_PROXY: proxy.url }, 30_000);
    const err = await onFakeTimers(async () => {
      let settled = false;
      const pending = rejection(w.send(get('http://api.hostctl-test.invalid/v1/apps'), false)).finally(() => (settled = true));
      await connected;
      await vi.advanceTimersByTimeAsync(30_000);
      // undici would not end a request still waiting for its tunnel; the timeout itself does,
      // at once, with no further I/O.
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(true);
      return pending;
    });
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe(`No answer from api.hostctl-test.invalid:80 through the proxy 127.0.0.1:${proxy.port} (HTTP_PROXY) within 30s.`);
    expect((await w.send(get('http://api.hostctl-test.invalid/v1/apps'), false)).text).toBe('["at last"]');
    expect(proxy.connects.map((r) => r.url)).toEqual(['api.hostctl-test.invalid:80', 'api.hostctl-test.invalid:80']);
  });
});

describe('close', () => {
  it('ends the kept-alive connections, and leaves the stack traces of the process as they were', async () => {
    let closed!: Promise<unknown>;
    const s = track(await stub((req, res) => {
      closed ??= new Promise((resolve) => req.socket.once('close', resolve));
      json(res, []);
    }, keptAlive));
    // Kept alive for ten minutes: only the client's close ends the connection within the test.
    const w = new Wire({ timeoutMs: 5_000, env: {} });
    await w.send(get(`${s.origin}/v1/apps`), false);
    const saved = Error.stackTraceLimit;
    Error.stackTraceLimit = 17;
    try {
      await w.close();
      expect(Error.stackTraceLimit).toBe(17);
    } finally {
      Error.stackTraceLimit = saved;
    }
    // The server sees its end of the connection close: nothing is left to hold the process open.
    await closed;
  });
});

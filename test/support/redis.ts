// A real redis-server for the fleet tests (src/http/redis.ts): one per test file, on a free
// loopback port, with persistence off, stopped after. Never a mock. Where redis-server is
// missing the tests skip with the reason, except under CI, where they must run.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { underCI } from './ci.js';
import { freePort } from './servers.js';

export { freePort };

/** Why the fleet tests cannot run here, or undefined. Under CI nothing is a reason: they run (and fail). */
export function redisUnavailable(): string | undefined {
  if (underCI()) return undefined;
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : 'redis-server is not installed (Debian: apt-get install redis-server)';
}


export interface RedisServer {
  port: number;
  /** redis://127.0.0.1:port/0 (with `password` when one was set). */
  url: string;
  /** A client of the test's own, for looking at what Redis holds. */
  client(): Redis;
  /** Everything Redis holds: each key with its value as text. */
  dump(): Promise<{ key: string; value: string }[]>;
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Stops the server's process (SIGSTOP): the kernel still accepts connections, nothing answers them, as a hung Redis. */
  freeze(): void;
  stop(): Promise<void>;
}

/** Starts redis-server with `extra` arguments (e.g. --requirepass, TLS), and waits until it accepts connections. */
export async function startRedis(extra: string[] = [], o: { password?: string; port?: number } = {}): Promise<RedisServer> {
  const port = o.port ?? (await freePort());
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${log}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not listen on ${port} within 10 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const auth = o.password === undefined ? '' : `:${encodeURIComponent(o.password)}@`;
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis({ host: '127.0.0.1', port, password: o.password, lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
    c.on('error', () => undefined);
    clients.push(c);
    return c;
  };
  const stop = async () => {
    for (const c of clients) c.disconnect();
    // A frozen server takes SIGTERM only once it runs again.
    if (child.exitCode === null) child.kill('SIGCONT');
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}/0`,
    client,
    async dump() {
      const c = client();
      const out: { key: string; value: string }[] = [];
      for (const key of await c.keys('*')) {
        const type = await c.type(key);
        const value = type === 'string' ? await c.get(key) : type === 'hash' ? JSON.stringify(await c.hgetall(key)) : JSON.stringify(await c.dump(key));
        out.push({ key, value: value ?? '' });
      }
      return out;
    },
    async kill() {
      for (const c of clients) c.disconnect();
      child.kill('SIGKILL');
      await exited;
    },
    freeze() {
      child.kill('SIGSTOP');
    },
    stop,
  };
}

/**
 * Another client refreshing the TTL of `keys` in a loop, as fast as Redis takes it: a
 * stream of PEXPIREs that keeps the server's input from it full, so that one is run
 * between any other client's WATCH and its EXEC (a key whose TTL changes aborts the
 * transaction that watches it). stop() ends it.
 */
export async function refreshInLoop(port: number, keys: string[]): Promise<{ stop(): Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  // Its replies are read and dropped: Redis keeps what a client has not read.
  socket.on('data', () => undefined);
  const one = keys.map((k) => `*3\r\n$7\r\nPEXPIRE\r\n$${Buffer.byteLength(k)}\r\n${k}\r\n$7\r\n3600000\r\n`).join('');
  const chunk = Buffer.from(one.repeat(Math.max(1, Math.floor(64_000 / one.length))));
  let stopped = false;
  const fill = () => {
    while (!stopped && socket.write(chunk));
  };
  socket.on('drain', fill);
  fill();
  return {
    async stop() {
      stopped = true;
      socket.destroy();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

// A real redis-server for the fleet tests (src/http/redis.ts): one per test file, on a free
// loopback port, with persistence off, stopped after; and a real Redis Cluster of three
// such servers (startRedisCluster). Never a mock. Where redis-server (or redis-cli, for the
// cluster) is missing the tests skip with the reason, except under CI, where they must run.

import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

/** Why no Redis Cluster can be started here (redis-server, and redis-cli to join the nodes), or undefined. Under CI nothing is a reason. */
export function redisClusterUnavailable(): string | undefined {
  if (underCI()) return undefined;
  const server = redisUnavailable();
  if (server !== undefined) return server;
  const r = spawnSync('redis-cli', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : 'redis-cli is not installed (Debian: apt-get install redis-tools)';
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

/** Files of a TLS server (PEM): its certificate and key, and the CA that signed it. */
export interface RedisTls {
  cert: string;
  key: string;
  ca: string;
}

/**
 * Starts redis-server with `extra` arguments (e.g. --requirepass), and waits until it
 * accepts connections. With `tls`, the port is its TLS port (no plain one) and the test's
 * own clients speak TLS.
 */
export async function startRedis(extra: string[] = [], o: { password?: string; port?: number; tls?: RedisTls } = {}): Promise<RedisServer> {
  if (o.port !== undefined) return launchRedis(extra, { ...o, port: o.port });
  return onFreePorts(async () => launchRedis(extra, { ...o, port: await freePort() }));
}

/**
 * A port freePort() found free may be taken before redis-server binds it (every loopback
 * connection the tests make takes a port from the same range): redis-server then exits
 * saying so, and `start` is tried again on new ports, up to five times.
 */
async function onFreePorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt === 5 || !(err instanceof Error && /Address already in use/.test(err.message))) throw err;
    }
  }
}

async function launchRedis(extra: string[], o: { password?: string; port: number; tls?: RedisTls }): Promise<RedisServer> {
  const port = o.port;
  const listen = o.tls ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', o.tls.cert, '--tls-key-file', o.tls.key, '--tls-ca-cert-file', o.tls.ca, '--tls-auth-clients', 'no'] : ['--port', String(port)];
  const child: ChildProcess = spawn('redis-server', [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra], {
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
    const tls = o.tls && { ca: readFileSync(o.tls.ca) };
    const c = new Redis({ host: '127.0.0.1', port, password: o.password, tls, lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
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
    url: `${o.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}/0`,
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

/** The port of the node that serves `slot`, as the first node's CLUSTER SLOTS says. */
async function ownerOf(slot: number, clients: Map<number, Redis>): Promise<number> {
  const ranges = (await [...clients.values()][0]!.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, ...unknown[]]][];
  const range = ranges.find(([start, end]) => start <= slot && slot <= end);
  if (!range) throw new Error(`no node serves slot ${slot}`);
  return Number(range[2][1]);
}

export interface RedisCluster {
  /** Each node: a master serving a third of the slots, on 127.0.0.1. */
  nodes: RedisServer[];
  /** `redis[s]://…127.0.0.1:port?cluster=1` (with the password), naming the node at `port` as the seed (by default the first). */
  url(port?: number): string;
  /** Everything the cluster holds: each key with its value as text, and the port of the node that holds it. */
  dump(): Promise<{ port: number; key: string; value: string }[]>;
  /** The slot of `key` (CLUSTER KEYSLOT). */
  slotOf(key: string): Promise<number>;
  /** Moves `slot`, with its keys, to the node on `port`, as a resharding does (MIGRATING/IMPORTING, MIGRATE, SETSLOT NODE on every node). */
  moveSlot(slot: number, port: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a Redis Cluster of three masters (no replicas) on free loopback ports, each with
 * its own temporary directory (nodes.conf) and persistence off, joined with
 * `redis-cli --cluster create`; resolves once every node says `cluster_state:ok`.
 */
export async function startRedisCluster(o: { password?: string; tls?: RedisTls } = {}): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-redis-cluster-'));
  const nodes: RedisServer[] = [];
  const stop = async () => {
    for (const n of nodes) await n.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const node = await onFreePorts(async () => {
        const port = await freePort();
        // The bus port is named: the default, port + 10000, may be taken or beyond 65535.
        const bus = await freePort();
        const extra = ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--dir', dir, '--cluster-port', String(bus), '--cluster-node-timeout', '5000'];
        if (o.password !== undefined) extra.push('--requirepass', o.password, '--masterauth', o.password);
        if (o.tls) extra.push('--tls-cluster', 'yes');
        return launchRedis(extra, { port, password: o.password, tls: o.tls });
      });
      nodes.push(node);
    }
    const cli = [...(o.password === undefined ? [] : ['-a', o.password, '--no-auth-warning']), ...(o.tls ? ['--tls', '--cacert', o.tls.ca] : [])];
    await promisify(execFile)('redis-cli', [...cli, '--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    const deadline = Date.now() + 30_000;
    for (const n of nodes) {
      const c = n.client();
      while (!/cluster_state:ok/.test(String(await c.call('CLUSTER', 'INFO')))) {
        if (Date.now() > deadline) throw new Error(`the cluster's node on ${n.port} is not ok within 30 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const auth = o.password === undefined ? '' : `:${encodeURIComponent(o.password)}@`;
  return {
    nodes,
    url: (port = nodes[0]!.port) => `${o.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}?cluster=1`,
    async dump() {
      const all = await Promise.all(nodes.map(async (n) => (await n.dump()).map((e) => ({ port: n.port, ...e }))));
      return all.flat();
    },
    async slotOf(key) {
      return Number(await nodes[0]!.client().call('CLUSTER', 'KEYSLOT', key));
    },
    async moveSlot(slot, port) {
      const clients = new Map(nodes.map((n) => [n.port, n.client()]));
      const ids = new Map<number, string>();
      for (const [p, c] of clients) ids.set(p, String(await c.call('CLUSTER', 'MYID')));
      const owner = await ownerOf(slot, clients);
      if (owner === port) return;
      const from = clients.get(owner)!;
      const to = clients.get(port)!;
      await to.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', ids.get(owner)!);
      await from.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', ids.get(port)!);
      const keys = (await from.call('CLUSTER', 'GETKEYSINSLOT', slot, 1000)) as string[];
      const auth = o.password === undefined ? [] : ['AUTH', o.password];
      if (keys.length > 0) await from.call('MIGRATE', '127.0.0.1', port, '', 0, 5000, ...auth, 'KEYS', ...keys);
      for (const c of [to, from, ...clients.values()]) await c.call('CLUSTER', 'SETSLOT', slot, 'NODE', ids.get(port)!);
    },
    stop,
  };
}

// A fake Redis on a loopback port, for the faults a real redis-server will not produce (an
// EXEC that is always nil, a TIME that is not a number, a GET answered with an integer, a
// clock the test sets). It speaks RESP2 (it refuses HELLO, as Redis 5 does, and ioredis
// falls back) and keeps strings in memory with enough of MULTI/EXEC (WATCH is only acknowledged) for hostctl's
// store; `answer` decides any command first. Never a stand-in for the real server in the
// tests of what works: test/support/redis.ts is.

import { createServer, type Server, type Socket } from 'node:net';

/** A RESP reply, as the test writes it. */
export type Reply = { ok: string } | { error: string } | { int: number } | { bulk: string | null } | { array: Reply[] | null };

export const reply = {
  ok: (text = 'OK'): Reply => ({ ok: text }),
  error: (text: string): Reply => ({ error: text }),
  int: (n: number): Reply => ({ int: n }),
  bulk: (text: string | null): Reply => ({ bulk: text }),
  array: (items: Reply[] | null): Reply => ({ array: items }),
};

function encode(r: Reply): string {
  if ('ok' in r) return `+${r.ok}\r\n`;
  if ('error' in r) return `-${r.error}\r\n`;
  if ('int' in r) return `:${r.int}\r\n`;
  if ('bulk' in r) return r.bulk === null ? '$-1\r\n' : `$${Buffer.byteLength(r.bulk)}\r\n${r.bulk}\r\n`;
  return r.array === null ? '*-1\r\n' : `*${r.array.length}\r\n${r.array.map(encode).join('')}`;
}

/** One command as the server received it: its name upper-cased, then its arguments. */
export type Command = [string, ...string[]];

export interface FakeRedisOptions {
  /** Answers a command itself, or returns undefined for the fake's own answer. `n`: how many of this command came before on its connection. */
  answer?(cmd: Command, n: number): Reply | undefined;
  /** The fake's clock for TIME, epoch ms (the real one unless told). */
  now?(): number;
}

export interface FakeRedis {
  port: number;
  url: string;
  /** Every command received, in order. */
  readonly commands: Command[];
  /** How many connections it accepted. */
  readonly connections: number;
  /** The strings it holds. */
  readonly data: Map<string, string>;
  close(): Promise<void>;
}

/** Splits complete RESP arrays of bulk strings off the front of `buf`; returns them and what is left. */
function parse(buf: Buffer): { cmds: Command[]; rest: Buffer } {
  const cmds: Command[] = [];
  let at = 0;
  for (;;) {
    const start = at;
    const line = (): string | undefined => {
      const end = buf.indexOf('\r\n', at);
      if (end === -1) return undefined;
      const text = buf.toString('utf8', at, end);
      at = end + 2;
      return text;
    };
    const head = line();
    if (head === undefined || !head.startsWith('*')) return { cmds, rest: buf.subarray(start) };
    const parts: string[] = [];
    for (let i = 0, n = Number(head.slice(1)); i < n; i++) {
      const len = line();
      if (len === undefined || at + Number(len.slice(1)) + 2 > buf.length) return { cmds, rest: buf.subarray(start) };
      parts.push(buf.toString('utf8', at, at + Number(len.slice(1))));
      at += Number(len.slice(1)) + 2;
    }
    cmds.push([parts[0]!.toUpperCase(), ...parts.slice(1)]);
  }
}

export async function startFakeRedis(o: FakeRedisOptions = {}): Promise<FakeRedis> {
  const commands: Command[] = [];
  const data = new Map<string, string>();
  const sockets = new Set<Socket>();
  const now = o.now ?? Date.now;

  const own = (cmd: Command): Reply => {
    const [name, ...args] = cmd;
    switch (name) {
      case 'HELLO':
        return reply.error("ERR unknown command 'HELLO'");
      case 'PING':
        return reply.ok('PONG');
      case 'TIME': {
        const t = now();
        return reply.array([reply.bulk(String(Math.floor(t / 1000))), reply.bulk(String((t % 1000) * 1000))]);
      }
      case 'WATCH':
      case 'UNWATCH':
        return reply.ok();
      case 'GET':
        return reply.bulk(data.get(args[0]!) ?? null);
      case 'EXISTS':
        return reply.int(args.filter((k) => data.has(k)).length);
      case 'DEL':
        return reply.int(args.filter((k) => data.delete(k)).length);
      case 'SET': {
        if (args.some((a) => a.toUpperCase() === 'NX') && data.has(args[0]!)) return reply.bulk(null);
        data.set(args[0]!, args[1]!);
        return reply.ok();
      }
      default:
        return reply.error(`ERR unknown command '${name}'`);
    }
  };

  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const conn: { queued?: Command[]; counts: Map<string, number> } = { counts: new Map() };
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const { cmds, rest } = parse(Buffer.concat([pending, chunk]));
      pending = rest;
      let out = '';
      for (const cmd of cmds) {
        commands.push(cmd);
        const n = conn.counts.get(cmd[0]) ?? 0;
        conn.counts.set(cmd[0], n + 1);
        const told = o.answer?.(cmd, n);
        if (told !== undefined) {
          if (cmd[0] === 'MULTI' && 'ok' in told) conn.queued = [];
          else if (cmd[0] === 'EXEC' || cmd[0] === 'DISCARD') conn.queued = undefined;
          out += encode(told);
        } else if (cmd[0] === 'MULTI') {
          conn.queued = [];
          out += encode(reply.ok());
        } else if (cmd[0] === 'DISCARD') {
          conn.queued = undefined;
          out += encode(reply.ok());
        } else if (cmd[0] === 'EXEC') {
          const queued = conn.queued ?? [];
          conn.queued = undefined;
          out += encode(reply.array(queued.map((q) => own(q))));
        } else if (conn.queued) {
          conn.queued.push(cmd);
          out += encode(reply.ok('QUEUED'));
        } else {
          out += encode(own(cmd));
        }
      }
      if (out) socket.write(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    commands,
    data,
    get connections() {
      return connections;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// The in-process layer: runs `main(argv, rt)` in the test's own worker, with in-memory
// streams, a test environment and a virtual clock, against the sandbox started in-process
// on a real loopback port. It has the faces of test/support/cli.ts (runCli, startSandbox),
// so a test moves from the real process to this layer by changing its import. What needs
// the real process (signals, EPIPE, the pty, shells, start-up) stays in test/e2e/.

import { clearLine, cursorTo, moveCursor } from 'node:readline';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli.js';
import type { Clock, Runtime } from '../../src/runtime.js';
import { startSandboxServer as startServer } from '../../src/sandbox/main.js';
import { baseEnv, isolated, type RunOptions, type RunResult, type Sandbox as ProcessSandbox } from './cli.js';
import { MemoryStream } from './memory-stream.js';
import { sandboxFlags } from './sandbox-here.js';
import { platformOf, startAlt, type PlatformServer } from './servers.js';

export { BIN, filesContaining, ROOT, runProcess, sandboxAdmin, tmpDir } from './cli.js';
export type { RunOptions, RunResult, SandboxRequest } from './cli.js';
export { startAlt, type PlatformServer };

/**
 * Time that passes only when someone sleeps: `sleep(ms)` moves the clock to the sleeper's
 * wake-up time at once. Shared by the client (pacing, budget, retries, waits) and the
 * in-process sandbox (its rate-limit window and lockout), so a test of a 60-second window
 * runs in milliseconds and gives the same answer on a busy machine as on an idle one.
 */
export class VirtualClock implements Clock {
  private t: number;
  /** Every sleep asked for, in ms, in order. */
  readonly sleeps: number[] = [];

  constructor(start = Date.now()) {
    this.t = start;
  }

  readonly now = (): number => this.t;

  private gate?: { reached(ms: number): void; released: Promise<void> };

  readonly sleep = async (ms: number): Promise<void> => {
    const wake = this.t + Math.max(0, ms);
    this.sleeps.push(ms);
    const gate = this.gate;
    this.gate = undefined;
    if (gate) {
      gate.reached(ms);
      await gate.released;
    }
    // Other work (a concurrent run, the server's answer) gets its turn first, as it would
    // while a real timer runs.
    await new Promise((resolve) => setImmediate(resolve));
    if (wake > this.t) this.t = wake;
  };

  /**
   * Holds the next sleep until release(): `reached` resolves (with the ms asked for) when
   * someone starts it. A test changes the world there, between two rounds of a poll.
   */
  hold(): { reached: Promise<number>; release(): void } {
    let reached!: (ms: number) => void;
    let release!: () => void;
    const reachedP = new Promise<number>((resolve) => (reached = resolve));
    this.gate = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
    return { reached: reachedP, release };
  }

  /** Moves time on without anyone sleeping: a user who waits before the next command. */
  advance(ms: number): void {
    this.t += ms;
  }

  /** Virtual ms slept in total since `from` sleeps (a mark taken with `sleeps.length`). */
  sleptSince(from = 0): number {
    return this.sleeps.slice(from).reduce((a, b) => a + b, 0);
  }
}

/** A stdout or stderr of one run: collects text; a terminal when `columns` is given. */
class MemoryOut extends MemoryStream {
  readonly columns: number | undefined;

  constructor(tty?: { columns: number }) {
    super();
    this.isTTY = tty !== undefined;
    this.columns = tty?.columns;
  }

  // A terminal's cursor moves are escape sequences in its output, as tty.WriteStream's are.
  override cursorTo(x = 0): boolean {
    return cursorTo(this, x);
  }
  override clearLine(dir: -1 | 0 | 1 = 0): boolean {
    return clearLine(this, dir);
  }
  override moveCursor(dx = 0, dy = 0): boolean {
    return moveCursor(this, dx, dy);
  }
}

/**
 * A terminal's screen, as `script` records it: stdout and stderr on one device, each
 * newline sent as CR LF (the terminal's onlcr).
 */
class MemoryTerminal extends MemoryOut {
  override _write(chunk: Buffer | string, enc: BufferEncoding, cb: () => void): void {
    super._write(chunk.toString().replace(/\r?\n/g, '\r\n'), enc, cb);
  }
}

export interface InprocRunOptions extends RunOptions {
  /** stdout (and stderr) are terminals of this width; absent: pipes. */
  columns?: number;
  /** stdout alone is a terminal of this width (stderr stays a pipe). */
  stdoutColumns?: number;
  /** stdin is a terminal (no input is read from it). */
  stdinTTY?: boolean;
  /** The clock of the run; default: the in-process sandbox's at the base URL, or a fresh one. */
  clock?: Clock;
}

/** The clock of each in-process sandbox, by origin, so that runs against it share it. */
const clocks = new Map<string, VirtualClock>();

function clockFor(env: NodeJS.ProcessEnv): Clock {
  const base = env.HOSTCTL_BASE_URL;
  if (base) {
    try {
      const known = clocks.get(new URL(base).origin);
      if (known) return known;
    } catch {
      // Not a URL: hostctl will say so; any clock will do.
    }
  }
  return new VirtualClock();
}

function stdinOf(input: string | undefined, tty: boolean): Runtime['stdin'] {
  const stream: Runtime['stdin'] = tty ? new PassThrough() : Readable.from(input === undefined ? [] : [Buffer.from(input)]);
  if (tty) {
    stream.isTTY = true;
    stream.setRawMode = () => stream;
  }
  return stream;
}

/**
 * A run that has not ended after `ms` of real time fails the test with what it printed, as
 * runCli of cli.ts kills a process that hangs (a run in this process cannot be killed).
 */
async function withTimeout(run: Promise<number>, args: string[], ms = 30_000, printed: () => string): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${args.join(' ')}\n${printed()}`)), ms);
  });
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What native code reads from the process's own environment, not from the run's: the
 * keychain addon finds D-Bus by DBUS_SESSION_BUS_ADDRESS. A run that sets one sets it for
 * the process while it runs (tests in one file run one at a time).
 */
const PROCESS_ENV_KEYS = ['DBUS_SESSION_BUS_ADDRESS'];

async function withProcessEnv<T>(env: NodeJS.ProcessEnv, run: () => Promise<T>): Promise<T> {
  const saved = PROCESS_ENV_KEYS.map((k) => [k, process.env[k]] as const);
  const put = (k: string, v: string | undefined) => {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  };
  for (const k of PROCESS_ENV_KEYS) put(k, env[k]);
  try {
    return await run();
  } finally {
    for (const [k, v] of saved) put(k, v);
  }
}

/**
 * A run's environment in this process: its own HOME (isolated()), and no D-Bus session
 * unless the test names one, so that no in-process run reaches the developer's keychain
 * (the real Secret Service is test/e2e/keychain.test.ts's).
 */
function inprocEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { DBUS_SESSION_BUS_ADDRESS: undefined, ...isolated(extra) };
}

/**
 * Runs hostctl in this process, like runCli runs the built one. The environment is built
 * as the real runs' is (baseEnv), so HOME and the XDG dirs a test sets are the ones used.
 */
export async function runCli(args: string[], opts: InprocRunOptions = {}): Promise<RunResult> {
  // bin/hostctl.js sends a Tab press to its own small bundle (dist/complete.cjs), never
  // through main(): so does this layer, to the same function.
  if (args[0] === '__complete') {
    const { completionLines } = await import('../../src/commands/complete.js');
    const lines = await completionLines(args.slice(1), baseEnv(inprocEnv(opts.env)), opts.cwd);
    return { code: 0, stdout: lines.length > 0 ? `${lines.join('\n')}\n` : '', stderr: '' };
  }
  const env = baseEnv(inprocEnv(opts.env));
  const outTTY = opts.stdoutColumns ?? opts.columns;
  const stdout = new MemoryOut(outTTY === undefined ? undefined : { columns: outTTY });
  const stderr = new MemoryOut(opts.columns === undefined ? undefined : { columns: opts.columns });
  const rt: Runtime = { env, stdin: stdinOf(opts.input, opts.stdinTTY === true), stdout, stderr, clock: opts.clock ?? clockFor(env), cwd: opts.cwd };
  const code = await withProcessEnv(env, () => withTimeout(main(args, rt), args, opts.timeoutMs, () => `stdout: ${stdout.text}\nstderr: ${stderr.text}`));
  return { code, stdout: stdout.text, stderr: stderr.text };
}

export interface Sandbox extends Omit<ProcessSandbox, 'process'> {
  clock: VirtualClock;
}

/**
 * Starts the sandbox in this process on a loopback port, with the flags of `hostctl
 * sandbox` that tests use (--rate-limit, --window, --page-size, --lockout-after,
 * --lockout-seconds, --seed, --state), and a virtual clock shared with runCli.
 */
export async function startSandbox(args: string[] = [], _env: Record<string, string | undefined> = {}, clock = new VirtualClock()): Promise<Sandbox> {
  let logs = '';
  const server = await startServer({ ...sandboxFlags(args), clock: clock.now, log: (line) => (logs += `${line}\n`) });
  const origin = new URL(server.url).origin;
  clocks.set(origin, clock);
  return {
    baseUrl: server.url,
    token: server.token,
    origin,
    clock,
    logs: () => logs,
    stop: async () => {
      await server.close();
      clocks.delete(origin);
    },
  };
}

/** The in-process sandbox with the PlatformServer face (see servers.ts). */
export async function startSandboxServer(args: string[] = []): Promise<PlatformServer & { clock: VirtualClock }> {
  const sb = await startSandbox(args);
  return { ...platformOf(sb), clock: sb.clock };
}

/**
 * Like runCli, on a terminal of `columns` × 50 (120 by default): stdin, stdout and stderr
 * are one TTY, whose output is returned as stdout, as runInPty of cli.ts returns what
 * `script` recorded. The real pty is for test/e2e/; this is for what hostctl decides on a
 * terminal (tables, colour, spinners).
 */
export async function runInPty(args: string[], opts: InprocRunOptions = {}): Promise<RunResult> {
  const env = baseEnv(inprocEnv({ TERM: 'xterm-256color', ...opts.env }));
  const screen = new MemoryTerminal({ columns: opts.columns ?? 120 });
  const rt: Runtime = { env, stdin: stdinOf(undefined, true), stdout: screen, stderr: screen, clock: opts.clock ?? clockFor(env), cwd: opts.cwd };
  const code = await withProcessEnv(env, () => withTimeout(main(args, rt), args, opts.timeoutMs, () => screen.text));
  return { code, stdout: screen.text, stderr: '' };
}

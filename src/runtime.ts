// What one run of hostctl gets from the world: its environment, its three streams and a
// clock. The real process passes its own (processRuntime); the in-process test layer
// passes in-memory streams, a test environment and a clock it drives. Nothing below the
// entry point reads process.env, process.std* or the time of day except through this.

import type { Readable, Writable } from 'node:stream';

export type OutStream = Writable & { isTTY?: boolean; columns?: number };
export type InStream = Readable & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };

export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
  /**
   * Resolves after `ms` milliseconds of this clock; rejects with the signal's reason as
   * soon as `signal` aborts, leaving no timer behind.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Runtime {
  env: NodeJS.ProcessEnv;
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
  clock: Clock;
  /** The working directory, where a link file is looked for (default: the process's). */
  cwd?: string;
}

/** The longest delay Node's timers take; a longer one fires at once (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Sleeps `ms` of real time, in pieces no timer overflows on, until `signal` aborts. */
export async function sleepChunked(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  let left = ms;
  while (left > 0) {
    const step = Math.min(left, MAX_TIMER_MS);
    await new Promise<void>((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', stop);
        resolve();
      }, step);
      signal?.addEventListener('abort', stop, { once: true });
    });
    left -= step;
  }
}

export const systemClock: Clock = { now: () => Date.now(), sleep: sleepChunked };

/** The real process's runtime, with any part replaced. */
export function processRuntime(over: Partial<Runtime> = {}): Runtime {
  const rt: Runtime = {
    env: process.env,
    // process.stdin is made on first use, and making it costs start-up: only a command
    // that reads its input pays.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    clock: systemClock,
  };
  for (const [k, v] of Object.entries(over)) if (v !== undefined) Object.defineProperty(rt, k, { value: v, enumerable: true });
  return rt;
}

/** The values of CI that mean "not CI": set but empty, or switched off. */
const CI_OFF = new Set(['', 'false', '0', 'no', 'off']);

/**
 * Whether this runs under CI: CI holds any value CI services set (`true` on GitHub Actions,
 * GitLab, Travis, CircleCI; `True` on AppVeyor; `1` elsewhere); unset, empty, `false` or `0`
 * is not CI. No spinner and no interactive priority there; the tests' gate asks the same.
 */
export function underCI(env: NodeJS.ProcessEnv): boolean {
  const value = env.CI;
  return value !== undefined && !CI_OFF.has(value.trim().toLowerCase());
}

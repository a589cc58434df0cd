// For end-to-end tests of the shared request budget (src/http/budget.ts), where real
// hostctl processes race for one token's window: a way to make them all queue first,
// however long they take to start on a busy machine, and then let them go at once.
//
// The hold is what a 429 seen by any process sets: the budget file's `blockedUntil`,
// written under the file's own lock. It is pushed HOLD_MS ahead every RENEW_MS, so a
// process that looks again (each wakes up at the latest HOLD_MS later) finds it still
// shut; after release() it lapses within HOLD_MS, for every process at the same moment.
// Should this process stall longer than the hold (a machine far too busy), the hold may
// lapse early: the scenario is then started afresh with a hold twice as long (heldRetry),
// so that a busy machine slows the test down but does not fail it.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fingerprint } from '../../src/auth/token.js';
import { updateJsonFileSync } from '../../src/config/atomic.js';
import { FileBudgetStore } from '../../src/http/budget.js';
import { isRecord } from '../../src/json/narrow.js';
import { BIN, baseEnv, isolated } from './cli.js';
import { e2eTest, type Env, type LayerOptions } from './fixtures.js';

/** How far ahead the hold reaches at first; it lapses early only if this process stalls that long. */
const HOLD_MS = 500;
const RENEW_MS = 50;
const ATTEMPTS = 4;

export interface BudgetHold {
  /**
   * Renews the hold now. Starting a process blocks this one for a moment (longer on a busy
   * machine), so a test that starts several renews after each.
   */
  renew(): void;
  /** Stops renewing: the hold lapses within its length. */
  release(): void;
  /** Whether a renewal came so late that the hold may have lapsed before release(). */
  stalled(): boolean;
  /** The longest time between two renewals, in ms. */
  longestGap(): number;
}

/** Holds every hostctl process using `token` with the config dir `configDir`, `holdMs` ahead. */
function holdBudget(configDir: string, token: string, holdMs = HOLD_MS): BudgetHold {
  const path = new FileBudgetStore(join(configDir, 'state.json'), fingerprint(token)).path;
  const policy = { staleMs: 5_000, waitMs: 5_000, unavailable: () => new Error(`the budget file's lock ${path}.lock stayed taken`) };
  let last = Date.now();
  let gap = 0;
  const renew = () => {
    const now = Date.now();
    gap = Math.max(gap, now - last);
    last = now;
    updateJsonFileSync(path, policy, (raw) => ({ content: { ...(isRecord(raw) ? raw : {}), blockedUntil: now + holdMs }, result: undefined }));
  };
  renew();
  const timer = setInterval(renew, RENEW_MS);
  return { renew, release: () => clearInterval(timer), stalled: () => gap >= holdMs, longestGap: () => gap };
}

/** The hold could not be kept, so the scenario's premise (everyone queued first) is not met. */
export class HoldLapsed extends Error {}

/**
 * Starts processes under a hold of `holdMs` with `queue` (which gives each to `track` and
 * waits until they have queued), then releases it. When a process goes without waiting,
 * or the hold went unrenewed for its length, kills what was started and throws HoldLapsed.
 */
export async function queueUnderHold(
  configDir: string,
  token: string,
  holdMs: number,
  queue: (hold: BudgetHold, track: (q: Queued) => Queued) => Promise<void>,
): Promise<void> {
  const hold = holdBudget(configDir, token, holdMs);
  const started: Queued[] = [];
  const lapsed = async (why: string): Promise<never> => {
    for (const q of started) q.child.kill('SIGKILL');
    await Promise.all(started.map((q) => q.exited));
    throw new HoldLapsed(why);
  };
  try {
    await queue(hold, (q) => {
      started.push(q);
      return q;
    });
  } catch (err) {
    hold.release();
    return lapsed((err as Error).message);
  }
  hold.release();
  if (hold.stalled()) return lapsed(`the hold of ${holdMs} ms went ${hold.longestGap()} ms without renewal`);
}

/**
 * Runs `scenario` with a hold of HOLD_MS, and again with one twice as long each time it
 * throws HoldLapsed, up to ATTEMPTS times; the last HoldLapsed fails the test. `scenario`
 * starts afresh each time (its own token and config dir).
 */
export async function heldRetry<T>(scenario: (holdMs: number) => Promise<T>): Promise<T> {
  for (let attempt = 1, holdMs = HOLD_MS; ; attempt++, holdMs *= 2) {
    try {
      return await scenario(holdMs);
    } catch (err) {
      if (!(err instanceof HoldLapsed) || attempt >= ATTEMPTS) throw err;
      // Said, so that a machine this busy is noticed; the test itself goes on.
      console.warn(`budget hold of ${holdMs} ms lapsed (${err.message}); trying again with ${holdMs * 2} ms`);
    }
  }
}

export interface Queued {
  child: ChildProcess;
  /** Resolves once the process says it waits for the window; rejects if it ends first. */
  waiting: Promise<void>;
  exited: Promise<number | null>;
  stderr(): string;
}

/** Starts `n` processes with startQueued, renewing `hold` after each. */
export function startAllQueued(n: number, hold: BudgetHold, start: () => Queued): Queued[] {
  return Array.from({ length: n }, () => {
    const q = start();
    hold.renew();
    return q;
  });
}

/** Starts hostctl with `args`, without a terminal, for a process that is to queue for a slot. */
function startQueued(args: string[], env: Record<string, string | undefined>): Queued {
  const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(isolated(env)), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waiting = new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (/waiting \d+s before sending/.test(stderr)) resolve();
    });
    void exited.then((code) => reject(new Error(`hostctl ${args.join(' ')} ended (exit ${code}) without waiting for the budget: ${stderr}`)));
  });
  // Settled here too, so that a rejection after the test stopped listening is not unhandled.
  waiting.catch(() => undefined);
  return { child, waiting, exited, stderr: () => stderr };
}

/** The e2e layer with `queue(args, env)`: startQueued, each process killed after the test if it still runs. */
export function heldBudgetTest(options: LayerOptions = {}) {
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from its first parameter, an object pattern: `{}` is "nothing".
  return e2eTest(options).extend('queue', ({}, { onCleanup }) => {
    const started: Queued[] = [];
    onCleanup(() => {
      for (const q of started) if (q.child.exitCode === null) q.child.kill('SIGKILL');
    });
    return (args: string[], env: Env): Queued => {
      const q = startQueued(args, env);
      started.push(q);
      return q;
    };
  });
}

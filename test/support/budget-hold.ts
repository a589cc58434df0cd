// For end-to-end tests of the shared request budget (src/http/budget.ts), where real
// hostctl processes race for one token's window: a way to make them all queue first,
// however long they take to start on a busy machine, and then let them go at once.
//
// The hold is what a 429 seen by any process sets: the budget file's `blockedUntil`,
// written under the file's own lock. It is pushed HOLD_MS ahead every RENEW_MS, so a
// process that looks again (each wakes up at the latest HOLD_MS later) finds it still
// shut; after release() it lapses within HOLD_MS, for every process at the same moment.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fingerprint } from '../../src/auth/token.js';
import { updateJsonFileSync } from '../../src/config/atomic.js';
import { BudgetFile } from '../../src/http/budget.js';
import { isRecord } from '../../src/json/narrow.js';
import { BIN, baseEnv } from './cli.js';

/** How far ahead the hold reaches; it lapses early only if this process stalls that long. */
export const HOLD_MS = 1_000;
const RENEW_MS = 100;

export interface BudgetHold {
  /**
   * Renews the hold now. Starting a process blocks this one for a moment (longer on a busy
   * machine), so a test that starts several renews after each.
   */
  renew(): void;
  /** Stops renewing: the hold lapses within HOLD_MS. */
  release(): void;
  /** Whether a renewal came so late that the hold may have lapsed before release(). */
  stalled(): boolean;
  /** The longest time between two renewals, in ms. */
  longestGap(): number;
}

/** Holds every hostctl process using `token` with the config dir `configDir`. */
export function holdBudget(configDir: string, token: string): BudgetHold {
  const path = new BudgetFile(join(configDir, 'state.json'), fingerprint(token)).path;
  const policy = { staleMs: 5_000, waitMs: 5_000, unavailable: () => new Error(`the budget file's lock ${path}.lock stayed taken`) };
  let last = Date.now();
  let gap = 0;
  const renew = () => {
    const now = Date.now();
    gap = Math.max(gap, now - last);
    last = now;
    updateJsonFileSync(path, policy, (raw) => ({ content: { ...(isRecord(raw) ? raw : {}), blockedUntil: now + HOLD_MS }, result: undefined }));
  };
  renew();
  const timer = setInterval(renew, RENEW_MS);
  return { renew, release: () => clearInterval(timer), stalled: () => gap >= HOLD_MS, longestGap: () => gap };
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
export function startQueued(args: string[], env: Record<string, string | undefined>): Queued {
  const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
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

// The two counters of the platform's limits: accepted requests per token in a sliding
// window, and failed authentications per IP address, which lead to a lockout. Both take
// the time from a monotonic clock passed in, so tests can drive them without waiting.

export type Clock = () => number;

export interface WindowState {
  readonly limit: number;
  readonly remaining: number;
  /** Whole seconds until the window frees a slot (0 when nothing is in the window). */
  readonly reset: number;
}

export interface TakeResult extends WindowState {
  readonly allowed: boolean;
  /** Whole seconds to wait before a retry can succeed; set when not allowed. */
  readonly retryAfter: number;
}

/** Timestamps in ascending order, with a moving head so that pruning is O(1) amortised. */
class Times {
  private items: number[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  oldest(): number | undefined {
    return this.items[this.head];
  }

  push(t: number): void {
    this.items.push(t);
  }

  dropBefore(cutoff: number): void {
    while (this.head < this.items.length && (this.items[this.head] ?? Infinity) <= cutoff) this.head++;
    if (this.head > 64 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * Whole seconds left of a span of `spanMs` that began at `start`, at `t`. Written as
 * span − elapsed, not start + span − t: with a fractional clock the latter is not exact
 * in floating point, and rounded up it announced 61 s for a 60 s window.
 */
function secondsLeft(start: number, spanMs: number, t: number): number {
  return Math.max(0, Math.ceil((spanMs - (t - start)) / 1000));
}

export class SlidingWindow {
  private readonly keys = new Map<string, Times>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: Clock,
  ) {}

  /** Counts one request for `key` if the window has room; a refused request is not counted. */
  take(key: string): TakeResult {
    const t = this.now();
    const times = this.prune(key, t);
    if (times.size >= this.limit) {
      const wait = secondsLeft(times.oldest() ?? t, this.windowMs, t);
      // Never 0: a client told to wait 0 seconds would come straight back.
      return { allowed: false, limit: this.limit, remaining: 0, reset: Math.max(1, wait), retryAfter: Math.max(1, wait) };
    }
    times.push(t);
    this.keys.set(key, times);
    return { allowed: true, retryAfter: 0, ...this.describe(times, t) };
  }

  clear(key: string): void {
    this.keys.delete(key);
  }

  peek(key: string): WindowState {
    const t = this.now();
    return this.describe(this.prune(key, t), t);
  }

  private prune(key: string, t: number): Times {
    const times = this.keys.get(key) ?? new Times();
    times.dropBefore(t - this.windowMs);
    if (times.size === 0) this.keys.delete(key);
    return times;
  }

  private describe(times: Times, t: number): WindowState {
    const oldest = times.oldest();
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - times.size),
      reset: oldest === undefined ? 0 : secondsLeft(oldest, this.windowMs, t),
    };
  }
}

export interface LockoutState extends WindowState {
  /** Whole seconds the address stays locked out; 0 when it is not. */
  readonly lockedFor: number;
}

export class Lockout {
  private readonly failures: SlidingWindow;
  /** When each locked-out address was locked. */
  private readonly lockedSince = new Map<string, number>();

  constructor(
    readonly after: number,
    readonly durationMs: number,
    private readonly now: Clock,
  ) {
    this.failures = new SlidingWindow(after, durationMs, now);
  }

  /** The address's state; a lockout that has run out is forgotten here. */
  check(ip: string): LockoutState {
    const since = this.lockedSince.get(ip);
    if (since !== undefined) {
      const t = this.now();
      if (t - since < this.durationMs) {
        const s = Math.max(1, secondsLeft(since, this.durationMs, t));
        return { limit: this.after, remaining: 0, reset: s, lockedFor: s };
      }
      this.lockedSince.delete(ip);
    }
    return { ...this.failures.peek(ip), lockedFor: 0 };
  }

  /** Records one failed authentication; the `after`-th within the window starts the lockout. */
  fail(ip: string): LockoutState {
    const r = this.failures.take(ip);
    if (r.allowed && r.remaining > 0) return { limit: r.limit, remaining: r.remaining, reset: r.reset, lockedFor: 0 };
    this.lockedSince.set(ip, this.now());
    // The failures that led here are spent: after the lockout the address starts afresh.
    this.failures.clear(ip);
    const s = Math.max(1, secondsLeft(0, this.durationMs, 0));
    return { limit: this.after, remaining: 0, reset: s, lockedFor: s };
  }
}

// The wait loop on an injected clock: no test here sleeps.

import { describe, expect, it } from 'vitest';
import { DeadlineError, ExitCode, NotFoundError, UsageError } from '../../src/errors.js';
import { meets, parseCondition, pollUntil, type PollDeps } from '../../src/core/wait.js';
import { parseJson } from '../../src/output/json.js';

/** Rounds of answers, one per poll (the last repeats); the clock moves only by sleeps. */
function deps(rounds: Array<Record<string, unknown>[]>, budgetMs = 0) {
  let now = 0;
  let polls = 0;
  const sleeps: number[] = [];
  const d: PollDeps = {
    fetch: async () => {
      const items = rounds[Math.min(polls++, rounds.length - 1)]!;
      return new Map(items.map((i) => [String(i.publicId), i]));
    },
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    budgetInterval: () => budgetMs,
  };
  return { d, sleeps, polls: () => polls };
}

describe('conditions', () => {
  it('parses = and != with dotted fields', () => {
    expect(parseCondition('status=running')).toEqual({ field: 'status', negate: false, value: 'running' });
    expect(parseCondition('app.region!=eu-west')).toEqual({ field: 'app.region', negate: true, value: 'eu-west' });
    expect(parseCondition('note=a=b')).toEqual({ field: 'note', negate: false, value: 'a=b' });
    expect(() => parseCondition('running')).toThrow(UsageError);
    expect(() => parseCondition('=x')).toThrow(UsageError);
  });

  it('compares strings as they are and other values as JSON text; an absent field is never equal', () => {
    const item = parseJson('{"status":"running","replicas":3,"big":12345678901234567890,"ok":true,"gone":null,"app":{"region":"eu"}}');
    expect(meets(item, parseCondition('status=running'))).toBe(true);
    expect(meets(item, parseCondition('replicas=3'))).toBe(true);
    expect(meets(item, parseCondition('big=12345678901234567890'))).toBe(true);
    expect(meets(item, parseCondition('ok=true'))).toBe(true);
    expect(meets(item, parseCondition('gone=null'))).toBe(true);
    expect(meets(item, parseCondition('app.region=eu'))).toBe(true);
    expect(meets(item, parseCondition('missing=x'))).toBe(false);
    expect(meets(item, parseCondition('missing!=x'))).toBe(true);
  });
});

describe('pollUntil', () => {
  const cond = [parseCondition('status=running')];

  it('returns after the round in which every object matched, one fetch per round', async () => {
    const { d, sleeps, polls } = deps([
      [{ publicId: 'a', status: 'deploying' }, { publicId: 'b', status: 'deploying' }],
      [{ publicId: 'a', status: 'running' }, { publicId: 'b', status: 'deploying' }],
      [{ publicId: 'a', status: 'running' }, { publicId: 'b', status: 'running' }],
    ]);
    const r = await pollUntil(['a', 'b'], cond, { deadlineMs: 60_000, intervalMs: 5_000 }, d);
    expect(r.rounds).toBe(3);
    expect(polls()).toBe(3);
    expect(sleeps).toEqual([5_000, 5_000]);
  });

  it('the interval is the larger of --interval and what the budget allows', async () => {
    const { d, sleeps } = deps([[{ publicId: 'a', status: 'x' }], [{ publicId: 'a', status: 'running' }]], 6_000);
    await pollUntil(['a'], cond, { deadlineMs: 60_000, intervalMs: 2_000 }, d);
    expect(sleeps).toEqual([6_000]);
  });

  it('the deadline: DeadlineError (exit 7) naming what was still not met, after a last poll at the deadline', async () => {
    const { d, polls, sleeps } = deps([[{ publicId: 'a', status: 'deploying' }]]);
    const err = await pollUntil(['a'], cond, { deadlineMs: 12_000, intervalMs: 5_000 }, d).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineError);
    expect((err as DeadlineError).exitCode).toBe(ExitCode.Deadline);
    expect(ExitCode.Deadline).toBe(7);
    expect((err as Error).message).toMatch(/a \(status=deploying\)/);
    // Polls at 0, 5 and 10 s, and the last at the 12 s deadline (not at 15 s, past it).
    expect(polls()).toBe(4);
    expect(sleeps).toEqual([5_000, 5_000, 2_000]);
    expect(d.now()).toBe(12_000);
  });

  it('a deadline shorter than the interval still gets its poll at the deadline', async () => {
    const { d, polls, sleeps } = deps([[{ publicId: 'a', status: 'deploying' }], [{ publicId: 'a', status: 'running' }]], 6_000);
    // --deadline 5s --interval 30s (and a budget asking 6 s): the change at 5 s is seen.
    const r = await pollUntil(['a'], cond, { deadlineMs: 5_000, intervalMs: 30_000 }, d);
    expect(r.rounds).toBe(2);
    expect(polls()).toBe(2);
    expect(sleeps).toEqual([5_000]);
  });

  it('the polls the budget spaces out: the last one still at the deadline', async () => {
    const { d, polls, sleeps } = deps([[{ publicId: 'a', status: 'deploying' }]], 6_000);
    await expect(pollUntil(['a'], cond, { deadlineMs: 10_000, intervalMs: 1_000 }, d)).rejects.toBeInstanceOf(DeadlineError);
    expect(sleeps).toEqual([6_000, 4_000]);
    expect(polls()).toBe(3);
  });

  it('an ID that is not there ends the wait at once (exit 3)', async () => {
    const { d, polls } = deps([[{ publicId: 'a', status: 'running' }]]);
    await expect(pollUntil(['a', 'nope'], cond, { deadlineMs: 60_000, intervalMs: 1_000 }, d)).rejects.toBeInstanceOf(NotFoundError);
    expect(polls()).toBe(1);
  });
});

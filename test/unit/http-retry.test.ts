// The transient-retry layer alone, against a stub `next` and an injected random and wait.

import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors.js';
import { compose, type Answer, type Exchange } from '../../src/http/layers.js';
import { BASE_BACKOFF_MS, backoffMs, transientRetry } from '../../src/http/retry.js';

const get: Exchange = { method: 'GET', url: new URL('http://127.0.0.1/v1/apps'), headers: {}, body: undefined };

function run(answers: (Answer | Error)[], x: Exchange = get, retries = 2, maxWaitMs = 60_000) {
  const waits: number[] = [];
  /** What each wait was told: its reason and which retry it is. */
  const notes: [string, number][] = [];
  let calls = 0;
  let waited = 0;
  const send = compose(
    [
      transientRetry({
        retries,
        random: () => 0.5,
        now: () => 0,
        canWait: (ms) => ms <= maxWaitMs - waited,
        wait: async (ms, reason, attempt) => {
          waits.push(ms);
          notes.push([reason, attempt]);
          waited += ms;
        },
      }),
    ],
    async () => {
      const a = answers[Math.min(calls++, answers.length - 1)]!;
      if (a instanceof Error) throw a;
      return a;
    },
  );
  return { result: send(x), waits, notes, calls: () => calls };
}

const status = (s: number, headers: Record<string, string> = {}): Answer => ({ status: s, headers, text: '' });

describe('transientRetry', () => {
  it('backs off: later retries wait longer, two clients at once wait differently, and no wait is endless', () => {
    for (const r of [0, 0.5, 1]) expect(backoffMs(3, () => r)).toBeGreaterThan(backoffMs(0, () => r));
    expect(backoffMs(1, () => 0)).toBeLessThan(backoffMs(1, () => 1));
    expect(backoffMs(0, () => 0)).toBeGreaterThan(0);
    // However many attempts, a wait stays within a minute (the contract's --max-wait bounds the sum).
    expect(backoffMs(1_000, () => 1)).toBeLessThanOrEqual(60_000);
  });

  it('resends a 503 with backoff, then returns the success', async () => {
    const r = run([status(503), status(503), status(200)]);
    expect((await r.result).status).toBe(200);
    expect(r.calls()).toBe(3);
    expect(r.waits).toEqual([backoffMs(0, () => 0.5), backoffMs(1, () => 0.5)]);
  });

  it("honours Retry-After instead of its own backoff", async () => {
    const r = run([status(503, { 'retry-after': '7' }), status(200)]);
    await r.result;
    expect(r.waits).toEqual([7_000]);
  });

  it('reads a Retry-After date against the injected clock', async () => {
    // The clock says 1970-01-01T00:00:00Z; the server asks for seven seconds later.
    const r = run([status(503, { 'retry-after': 'Thu, 01 Jan 1970 00:00:07 GMT' }), status(200)]);
    expect((await r.result).status).toBe(200);
    expect(r.waits).toEqual([7_000]);
  });

  it('tells each wait why it waits and which retry follows (1, then 2)', async () => {
    const r = run([status(503), status(502), status(200)]);
    await r.result;
    expect(r.notes).toEqual([
      ['the API answered 503', 1],
      ['the API answered 502', 2],
    ]);
    const dropped = run([new NetworkError('closed', 'Try again.', { dropped: true }), new NetworkError('closed', 'Try again.', { dropped: true }), status(200)]);
    await dropped.result;
    expect(dropped.notes).toEqual([
      ['the connection dropped before an answer', 1],
      ['the connection dropped before an answer', 2],
    ]);
  });

  it('stops when the wait would pass --max-wait, returning the failure', async () => {
    const r = run([status(503, { 'retry-after': '90' }), status(200)], get, 2, 60_000);
    expect((await r.result).status).toBe(503);
    expect(r.calls()).toBe(1);
  });

  it('a dropped connection is resent; a broken-off response or a timeout is not', async () => {
    const dropped = run([new NetworkError('closed', 'Try again.', { dropped: true }), status(200)]);
    expect((await dropped.result).status).toBe(200);
    // A backoff past --max-wait ends it too: the drop is reported, nothing resent.
    const noTime = run([new NetworkError('closed', 'Try again.', { dropped: true }), status(200)], get, 2, BASE_BACKOFF_MS / 4);
    await expect(noTime.result).rejects.toThrow('closed');
    expect(noTime.calls()).toBe(1);
    expect(noTime.waits).toEqual([]);
    const midway = run([new NetworkError('broke off', 'Try again.'), status(200)]);
    await expect(midway.result).rejects.toThrow('broke off');
    expect(midway.calls()).toBe(1);
  });

  it('resends a HEAD as it does a GET: both read without changing anything on the server', async () => {
    const head = run([status(503), status(200)], { ...get, method: 'HEAD' });
    expect((await head.result).status).toBe(200);
    expect(head.calls()).toBe(2);
  });

  it('never resends a POST, nor a 4xx', async () => {
    const post = run([status(503), status(200)], { ...get, method: 'POST' });
    expect((await post.result).status).toBe(503);
    expect(post.calls()).toBe(1);
    for (const s of [401, 403, 404, 429]) {
      const r = run([status(s), status(200)]);
      expect((await r.result).status).toBe(s);
      expect(r.calls()).toBe(1);
    }
  });
});

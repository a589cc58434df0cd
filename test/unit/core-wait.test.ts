// The core's wait (src/core/wait.ts) against a loopback stub, on a clock of the test's:
// what a cancelled wait sends, and that one round is one batched request for all the IDs.

import { afterEach, describe, expect, it } from 'vitest';
import { findResource, type Resource } from '../../src/resources.js';
import { InterruptedError } from '../../src/errors.js';
import { parseCondition, waitUntil } from '../../src/core/wait.js';
import type { Clock } from '../../src/runtime.js';
import { cleanupDirs, closeAfterEach, harness, json, rejection, stub } from './http-support.js';

const track = closeAfterEach();
afterEach(cleanupDirs);

const apps = findResource('apps') as Resource;
const IDS = ['ap-aaaaaaaaaa', 'ap-bbbbbbbbbb'];

/** Apps that never reach the status waited for. */
async function buildingApps() {
  return track(await stub((_req, res) => json(res, IDS.map((publicId) => ({ publicId, status: 'building' })))));
}

/**
 * A clock whose sleeps end only when their signal aborts (no test here waits for time); a
 * sleep cut short still counts its time, so that a wait that went on regardless would
 * reach its deadline rather than loop.
 */
function stoppedClock(): Clock {
  let now = 0;
  return {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise((_resolve, reject) => {
        const stop = () => {
          now += ms;
          reject(signal?.reason as Error);
        };
        if (signal?.aborted) stop();
        else signal?.addEventListener('abort', stop, { once: true });
      }),
  };
}

describe('waitUntil', () => {
  it('asks for every ID in one request per round', async () => {
    const server = await buildingApps();
    const { client } = track(harness(server.baseUrl));
    const stop = new AbortController();
    await rejection(waitUntil(client, apps, IDS, [parseCondition('status=running')], { deadlineMs: 60_000, intervalMs: 1_000, clock: stoppedClock(), signal: stop.signal, onRound: () => stop.abort() }));
    expect(server.seen).toHaveLength(1);
    expect(new URL(server.seen[0]!.url, 'http://x').searchParams.getAll('publicId[]')).toEqual(IDS);
  });

  it('cancelled while it sleeps, sends nothing more and ends as interrupted', async () => {
    const server = await buildingApps();
    const { client } = track(harness(server.baseUrl));
    const stop = new AbortController();
    const err = await rejection(waitUntil(client, apps, IDS, [parseCondition('status=running')], { deadlineMs: 60_000, intervalMs: 1_000, clock: stoppedClock(), signal: stop.signal, onRound: () => stop.abort() }));
    expect(err).toBeInstanceOf(InterruptedError);
    expect(server.seen).toHaveLength(1);
  });
});

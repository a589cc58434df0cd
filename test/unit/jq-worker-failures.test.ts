// --jq's side of its worker thread (src/output/jq.ts), with node:worker_threads stubbed: a
// thread that fails, runs out of heap or ends on its own, and messages as no real jq sends
// them (a character split between two batches, output that ends inside one). The real
// engine: test/unit/jq.test.ts; through the built CLI: test/e2e/jq.test.ts.

import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { rejection } from './http-support.js';

interface FakeWorker {
  options: { resourceLimits?: { maxOldGenerationSizeMb?: number } };
  calls: string[];
  posted: unknown[];
  emit(event: string, ...args: unknown[]): boolean;
}

const threads = vi.hoisted(() => ({ made: [] as FakeWorker[] }));

vi.mock('node:worker_threads', async () => {
  const { EventEmitter } = await import('node:events');
  class Worker extends EventEmitter {
    calls: string[] = [];
    posted: unknown[] = [];
    constructor(
      readonly source: string,
      readonly options: FakeWorker['options'],
    ) {
      super();
      threads.made.push(this);
    }
    postMessage(msg: unknown): void {
      this.posted.push(msg);
    }
    terminate(): Promise<number> {
      this.calls.push('terminate');
      return Promise.resolve(1);
    }
    ref(): void {
      this.calls.push('ref');
    }
    unref(): void {
      this.calls.push('unref');
    }
  }
  return { Worker };
});

// The unit layer shares its workers between files (isolate: false): another file may have
// loaded jq.js with the real threads already, so this file loads its own, and errors.js
// with it (for instanceof).
vi.resetModules();
const { startJq } = await import('../../src/output/jq.js');
const { HostctlError } = await import('../../src/errors.js');

afterEach(() => {
  threads.made.length = 0;
});

afterAll(() => {
  vi.doUnmock('node:worker_threads');
  vi.resetModules();
});

/** The thread startJq made last. */
function thread(): FakeWorker {
  const w = threads.made.at(-1);
  if (!w) throw new Error('startJq made no worker');
  return w;
}

/** startJq with its compile check passed by the fake thread. */
async function started() {
  const starting = startJq('.');
  const w = thread();
  w.emit('message', { type: 'loaded' });
  w.emit('message', { type: 'checked' });
  return { run: await starting, w };
}

/** finish() with a reader that takes everything: the promise, and the text taken so far. */
function collecting(run: Awaited<ReturnType<typeof startJq>>) {
  let out = '';
  const finishing = run.finish(false, async (text) => {
    out += text;
    return true;
  });
  return { finishing, out: () => out };
}

describe("jq's thread", () => {
  it('that runs out of its heap is "jq ran out of memory", in one sentence with the next step, and is stopped', async () => {
    const starting = startJq('.');
    const w = thread();
    w.emit('error', Object.assign(new Error('Worker terminated due to reaching memory limit: JS heap out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' }));
    const err = await rejection(starting);
    expect(err).toBeInstanceOf(HostctlError);
    expect(err.message).toBe('--jq: jq ran out of memory: it has 256 MiB here, for its input and its work.');
    expect(w.calls).toContain('terminate');
  });

  it('that fails otherwise is "jq failed" with the error\'s own words, and is stopped', async () => {
    const { run, w } = await started();
    const finishing = run.finish(false, async () => true);
    w.emit('error', Object.assign(new Error('boom in the worker'), { code: 'ERR_SOMETHING_ELSE' }));
    const err = await rejection(finishing);
    expect(err).toBeInstanceOf(HostctlError);
    expect(err.message).toBe('--jq: jq failed: boom in the worker');
    expect(w.calls).toContain('terminate');
  });

  it('that ends on its own, before or during the run, fails the command rather than leaving it waiting', async () => {
    const starting = startJq('.');
    thread().emit('exit', 1);
    expect((await rejection(starting)).message).toBe('--jq: jq stopped unexpectedly (exit code 1).');

    const { run, w } = await started();
    const finishing = run.finish(false, async () => true);
    w.emit('exit', 0);
    const err = await rejection(finishing);
    expect(err).toBeInstanceOf(HostctlError);
    expect(err.message).toBe('--jq: jq stopped unexpectedly (exit code 0).');
  });
});

describe("jq's output as the thread hands it over", () => {
  it('a character split between two batches is written whole', async () => {
    const { run, w } = await started();
    const { finishing, out } = collecting(run);
    const e = new TextEncoder().encode('é\n');
    w.emit('message', { type: 'out', bytes: e.subarray(0, 1) });
    w.emit('message', { type: 'out', bytes: e.subarray(1) });
    w.emit('message', { type: 'done', status: 0, stderr: '', outOfMemory: false });
    await finishing;
    expect(out()).toBe('é\n');
  });

  it('output that ends inside a character still ends: the rest is written as the replacement character', async () => {
    const { run, w } = await started();
    const { finishing, out } = collecting(run);
    w.emit('message', { type: 'out', bytes: new TextEncoder().encode('ok ') });
    w.emit('message', { type: 'out', bytes: new Uint8Array([0xc3]) });
    w.emit('message', { type: 'done', status: 0, stderr: '', outOfMemory: false });
    await finishing;
    expect(out()).toBe('ok \ufffd');
  });
});

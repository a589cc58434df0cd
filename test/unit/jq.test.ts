// --jq's engine in its worker (src/output/jq.ts): output handed over as it comes, jq
// stopped when the reader has gone, the time bound (which does not count the time jq
// waits for the reader), and syntax errors found before any input. Through the CLI:
// test/cli/output.test.ts; in the real process (a pipe, memory): test/e2e/jq.test.ts.

import { readdirSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { HostctlError, UsageError } from '../../src/errors.js';
import { startJq, type JqRun } from '../../src/output/jq.js';
import type { Clock } from '../../src/runtime.js';

describe('startJq', () => {
  it("hands jq's output over while jq is still running, and stops it once the reader has gone", async () => {
    const run = await startJq('repeat(1)');
    let out = '';
    let batches = 0;
    await run.finish(false, async (text) => {
      out += text;
      batches++;
      return batches < 3;
    });
    expect(batches).toBe(3);
    expect(out.length).toBeGreaterThan(0);
    expect(new Set(out.split('\n').slice(0, -1))).toEqual(new Set(['1']));
  });

  it('runs over the pages added, as one array, or as the one object', async () => {
    const collect = async (single: boolean, pages: string[][], expr: string) => {
      const run = await startJq(expr);
      for (const p of pages) run.add(p);
      let out = '';
      await run.finish(single, async (text) => {
        out += text;
        return true;
      });
      return out;
    };
    expect(await collect(false, [['{"a":"é"}', '{"a":2}'], [], ['{"a":3}']], '.[].a')).toBe('é\n2\n3\n');
    expect(await collect(true, [['{"a":[1]}']], '.a')).toBe('[\n  1\n]\n');
    expect(await collect(false, [], 'length')).toBe('0\n');
  });

  it('stops an expression that computes past the time bound, in one sentence', async () => {
    const run = await startJq('def f: f; f', { timeMs: 300 });
    const err = await run.finish(false, async () => true).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HostctlError);
    expect((err as HostctlError).message).toBe('--jq: the expression was still running after 0.3 s; hostctl stopped it.');
    expect((err as HostctlError).hint).toBe('Check the expression for a loop that never ends; for work that takes longer, pipe --json into jq.');
  });

  it('does not count the time jq waits for the reader', async () => {
    // Writing the one batch takes ten times the whole bound; jq's own work takes a small
    // part of it.
    const clock = new StretchClock(1);
    const run = await startJq('range(3)', { timeMs: 10, clock });
    let out = '';
    await run.finish(false, async (text) => {
      out += text;
      clock.advance(100);
      return true;
    });
    expect(out).toBe('0\n1\n2\n');
  });

  it('reports a syntax error as a usage error before any input, and a run-time error with jq\'s message', async () => {
    const refused = startJq('.[');
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(/^--jq: syntax error, unexpected end of file/);
    const run = await startJq('.[] | error("boom")');
    run.add(['1']);
    await expect(run.finish(false, async () => true)).rejects.toThrow(/^--jq: boom$/);
    // jq's exit (halt_error) returns to the worker: its message, not a lost thread.
    const halted = await startJq('"bye\\n" | halt_error');
    await expect(halted.finish(false, async () => true)).rejects.toThrow(/^--jq: bye$/);
  });

  it("says what does not compile in jq's words, without its trailing colon or its shell-quoting guess", async () => {
    const refusal = (expr: string) =>
      startJq(expr).then(
        () => undefined,
        (e: unknown) => e as UsageError,
      );
    const syntax = await refusal('.[');
    expect(syntax).toBeInstanceOf(UsageError);
    expect(syntax?.message).toBe('--jq: syntax error, unexpected end of file at <top-level>, line 1.');
    expect(syntax?.hint).toBe("Check the expression; jq's manual: https://jqlang.org/manual/");
    // A colon inside the message stays.
    expect((await refusal('import "nope" as n; .'))?.message).toBe('--jq: module not found: nope.');
  });

  it('bounds the compile check too: a program checked by running it (a module directive) that never ends', async () => {
    const err = await startJq('module {}; def f: f; f', { timeMs: 300 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HostctlError);
    expect((err as HostctlError).message).toBe('--jq: the expression was still running after 0.3 s; hostctl stopped it.');
  });

  it("adds up jq's computing between batches: output taken as fast as it comes still meets the bound", async () => {
    // Each stretch of computing takes 50 ms, so no stretch alone reaches 200 ms; a hundred
    // batches would be 5 s.
    const run = await startJq('repeat(1)', { timeMs: 200, clock: new StretchClock(50) });
    let batches = 0;
    const err = await failure(run, async () => ++batches < 100);
    expect(err.message).toBe('--jq: the expression was still running after 0.2 s; hostctl stopped it.');
    expect(batches).toBeLessThan(100);
  });

  it("ends jq's thread once the reader has gone", async () => {
    const before = threads();
    const run = await startJq('repeat(1)');
    await run.finish(false, async () => false);
    // The worker was blocked, waiting for its batch to be taken: it is ended, not left.
    await vi.waitFor(() => expect(threads()).toBeLessThanOrEqual(before), { timeout: 10_000, interval: 20 });
  });

  it("gives a run-time error as jq's message without its input position, and the next step", async () => {
    // Pages as --json prints them, on many lines: the position is line 13.
    const run = await startJq('.[] | error("  boom")');
    run.add([JSON.stringify({ a: [1, 2, 3], b: { c: 'd' } }, null, 2), JSON.stringify({ a: 1 }, null, 2)]);
    const err = await failure(run, async () => true);
    expect(err.message).toBe('--jq: boom');
    expect(err.hint).toBe('The expression ran over the output as `--json` prints it; check it against that.');
  });

  it('a program that stops jq with an error status and no message ("" | halt_error) fails all the same, as jq does', async () => {
    const err = await failure(await startJq('"" | halt_error'), async () => true);
    expect(err.message).toBe('--jq: the expression stopped jq with exit status 5 and no message (halt_error).');
    expect(err.hint).toBe('The expression ran over the output as `--json` prints it; check it against that.');
    // halt_error's own status, and a message of blanks only, are no message either.
    const own = await failure(await startJq('"  " | halt_error(3)'), async () => true);
    expect(own.message).toBe('--jq: the expression stopped jq with exit status 3 and no message (halt_error).');
  });

  it('what jq writes to its stderr while it succeeds (debug, stderr) does not fail the run', async () => {
    const run = await startJq('.[] | debug | stderr | . + 1');
    run.add(['1', '2']);
    const texts = await output(run);
    // Only text is handed over: no empty write at the end.
    expect(texts.join('')).toBe('2\n3\n');
    expect(texts).not.toContain('');
  });

  it('takes "jq: error" (and its colon) off the front of a message only', async () => {
    const message = async (expr: string) => (await failure(await startJq(expr), async () => true)).message;
    expect(await message('"jq: error:boom\\n" | halt_error')).toBe('--jq: boom');
    expect(await message('"say jq: error: no\\n" | halt_error')).toBe('--jq: say jq: error: no');
  });

  it('a program that fails its compile check without a message of jq\'s is still one sentence', async () => {
    // A module directive is checked by running the program alone: here it halts with a
    // message whose first line is empty.
    const err = await startJq('module {}; "\\ncompile error" | halt_error').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('--jq: the expression does not compile.');
  });
});

describe('the bounds of --jq', () => {
  it('hands output over in batches of up to 64 KiB, not a message per line', async () => {
    // 108,890 bytes: two batches by size, a few more when jq takes longer than 50 ms
    // between hand-overs; one per line would be 20,000.
    const batches = await output(await startJq('range(20000)'));
    expect(batches.join('')).toBe(Array.from({ length: 20000 }, (_, i) => `${i}\n`).join(''));
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(batches.length).toBeLessThan(100);
  });

  it('takes pages of any size below the bound', async () => {
    const run = await startJq('.[].s | length');
    run.add([JSON.stringify({ s: 'x'.repeat(1000) })]);
    expect((await output(run)).join('')).toBe('1000\n');
  });

  it("moves a page's bytes to jq's thread: the main thread keeps no copy of a page of up to 256 MiB", async () => {
    const run = await startJq('.[].s | length');
    const encode = vi.spyOn(TextEncoder.prototype, 'encode');
    try {
      run.add([JSON.stringify({ s: 'x'.repeat(1000) })]);
      const bytes = encode.mock.results[0]?.value as Uint8Array;
      // A transferred buffer is detached where it was: nothing of it is left here.
      expect(bytes.byteLength).toBe(0);
    } finally {
      encode.mockRestore();
    }
    expect((await output(run)).join('')).toBe('1000\n');
  });

  it('refuses input over 256 MiB at the page that crosses it, ignores the pages after, and finish says so', async () => {
    const run = await startJq('length');
    run.add(['1']);
    // With the page before, 2^28 + 3 characters; a rope, which V8 does not copy here.
    const big = 'x'.repeat(2 ** 28);
    let thrown: unknown;
    try {
      run.add([big]);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(HostctlError);
    expectOutOfMemory(thrown);
    expect(() => run.add(['2'])).not.toThrow();
    expectOutOfMemory(await failure(run, async () => true));
  });

  it('takes a page that brings the input to exactly 256 MiB, and jq then says it ran out of memory', async () => {
    // One JSON string of 2^28 - 1 characters, and its separator: the bound itself. The
    // page reaches the worker without entering its JavaScript heap (128 MB).
    const run = await startJq('length');
    expect(() => run.add([`"${'x'.repeat(2 ** 28 - 3)}"`])).not.toThrow();
    expectOutOfMemory(await failure(run, async () => true));
  });

  it("says so in one sentence when jq's own memory runs out", async () => {
    // A string of a thousand million characters: more than the engine's heap can ever hold.
    expectOutOfMemory(await failure(await startJq('"x" * 1e9 | length'), async () => true));
  });
});

/**
 * A clock on which jq computes `step` ms between any two readings (each reading is `step`
 * later than the last, however busy the machine), and `advance` moves time on while jq is
 * not computing (a reader that takes its time). A sleep ends once its time has come.
 */
class StretchClock implements Clock {
  private t = 0;
  private sleeping: { at: number; wake(): void }[] = [];

  constructor(private readonly step: number) {}

  readonly now = (): number => {
    this.t += this.step;
    this.due();
    return this.t;
  };

  advance(ms: number): void {
    this.t += ms;
    this.due();
  }

  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const sleeper = { at: this.t + ms, wake: resolve };
      this.sleeping.push(sleeper);
      signal?.addEventListener(
        'abort',
        () => {
          this.sleeping = this.sleeping.filter((s) => s !== sleeper);
          reject(signal.reason as Error);
        },
        { once: true },
      );
      this.due();
    });

  private due(): void {
    const now = this.sleeping.filter((s) => s.at <= this.t);
    this.sleeping = this.sleeping.filter((s) => s.at > this.t);
    for (const s of now) s.wake();
  }
}

/** What jq hands over, batch by batch, to a reader that takes it all. */
async function output(run: JqRun): Promise<string[]> {
  const texts: string[] = [];
  await run.finish(false, async (text) => {
    texts.push(text);
    return true;
  });
  return texts;
}

/** The threads of this process (Linux): a worker thread is one of them until it has ended. */
function threads(): number {
  return readdirSync('/proc/self/task').length;
}

async function failure(run: JqRun, write: (text: string) => Promise<boolean>): Promise<HostctlError> {
  const err = await run.finish(false, write).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HostctlError);
  return err as HostctlError;
}

function expectOutOfMemory(err: unknown): void {
  expect((err as HostctlError).message).toBe('--jq: jq ran out of memory: it has 256 MiB here, for its input and its work.');
  expect((err as HostctlError).hint).toBe('Ask for less (--fields, --limit) or narrow the expression; or pipe --json into jq, which has no such bound.');
}

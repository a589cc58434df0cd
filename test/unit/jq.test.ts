// --jq's engine in its worker (src/output/jq.ts): output handed over as it comes, jq
// stopped when the reader has gone, the time bound (which does not count the time jq
// waits for the reader), and syntax errors found before any input. Through the CLI:
// test/cli/output.test.ts; in the real process (a pipe, memory): test/e2e/jq.test.ts.

import { describe, expect, it } from 'vitest';
import { HostctlError, UsageError } from '../../src/errors.js';
import { startJq } from '../../src/output/jq.js';

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
  });

  it('does not count the time jq waits for the reader', async () => {
    // Writing the one batch takes longer than the whole bound; jq's own work takes a
    // small part of it.
    const run = await startJq('range(3)', { timeMs: 3_000 });
    let out = '';
    await run.finish(false, async (text) => {
      out += text;
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      return true;
    });
    expect(out).toBe('0\n1\n2\n');
  });

  it('reports a syntax error as a usage error before any input, and a run-time error with jq\'s message', async () => {
    await expect(startJq('.[')).rejects.toThrow(UsageError);
    await expect(startJq('.[')).rejects.toThrow(/^--jq: syntax error, unexpected end of file/);
    const run = await startJq('.[] | error("boom")');
    run.add(['1']);
    await expect(run.finish(false, async () => true)).rejects.toThrow(/^--jq: boom$/);
    // jq's exit (halt_error) returns to the worker: its message, not a lost thread.
    const halted = await startJq('"bye\\n" | halt_error');
    await expect(halted.finish(false, async () => true)).rejects.toThrow(/^--jq: bye$/);
  });
});

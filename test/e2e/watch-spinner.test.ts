// `--watch` on a terminal (issue 13): between rounds the spinner line says when the next
// poll goes and how many requests the token's shared budget has left, as `wait` does.
// A real pseudo-terminal (`script`); Ctrl-C ends the watch once the line has been seen.

import { describe, expect } from 'vitest';
import { terminalTest } from '../support/terminal.js';

// 100 a minute: one poll's share is 1.2 s, below the 2 s interval asked for below.
const test = terminalTest({ sandbox: ['--rate-limit', '100', '--window', '60'], runOnSandbox: true });

describe('--watch on a terminal', () => {
  test('the spinner shows the next poll and the budget left, and Ctrl-C ends the watch', { timeout: 60_000 }, async ({ typeInPty, sandbox }) => {
    const res = await fetch(`${sandbox.origin}/_sandbox/objects/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ publicId: 'ap-spinwatch001', name: 'spin', status: 'running' }]),
    });
    expect(res.ok).toBe(true);
    const line = /Watching 1 app: next poll in (\d+)s, budget (\d+) requests left \(Ctrl-C to stop\)/;
    const r = await typeInPty(['apps', 'get', 'ap-spinwatch001', '--watch', '--interval', '2s'], [{ waitFor: line, send: '\u0003' }], {}, { timeoutMs: 50_000 });
    expect(r.stdout).toContain('ap-spinwatch001');
    const m = line.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    // The exact text, on a clock the test holds: test/cli/watch.test.ts. Here, on the real
    // clock, the count may already have gone down when the line is drawn: at most the
    // interval asked for, never zero.
    expect(Number(m![1])).toBeGreaterThanOrEqual(1);
    expect(Number(m![1])).toBeLessThanOrEqual(2);
    // One request (or two, if a second round went out first) of 100 in the window.
    expect(Number(m![2])).toBeGreaterThanOrEqual(97);
    expect(Number(m![2])).toBeLessThanOrEqual(99);
    // Interrupted by Ctrl-C: 130, the contract's code for it.
    expect(r.code).toBe(130);
  });
});

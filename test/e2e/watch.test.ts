// --watch (issue 13) in a real process: it runs until interrupted, and SIGINT (Ctrl-C in a
// shell) ends it at once, during its sleep between rounds. What each round prints, into a
// pipe and on a terminal, is tested in-process on a virtual clock (test/cli/watch.test.ts);
// Ctrl-C typed into a real pty: watch-spinner.test.ts.

import { spawn } from 'node:child_process';
import { describe, expect } from 'vitest';
import { baseEnv, BIN, isolated, sandboxAdmin } from '../support/cli.js';
import { e2eTest, type Env } from '../support/fixtures.js';

const test = e2eTest({ sandbox: ['--rate-limit', '1000'] })
  .extend('plant', ({ sandbox }) => (objects: Record<string, unknown>[]): Promise<void> => sandboxAdmin(sandbox).plant('apps', objects))
  .extend('watch', ({ homeEnv, sandboxEnv }) => (args: string[], onLine: (line: string, stop: () => void) => void | Promise<void>) => watch(baseEnv(isolated({ ...homeEnv, ...sandboxEnv, NO_COLOR: '1' })), args, onLine));

/** Runs hostctl, calling `onLine` for each stdout line; resolves with the exit code after `stop()`. */
function watch(env: Env, args: string[], onLine: (line: string, stop: () => void) => void | Promise<void>) {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let buf = '';
  let stderr = '';
  const lines: string[] = [];
  const stop = () => child.kill('SIGINT');
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      void onLine(line, stop);
    }
  });
  return new Promise<{ interrupted: boolean; lines: string[]; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      // Ctrl-C ends the watch: exit 130, or death by the signal itself.
      resolve({ interrupted: code === 130 || signal === 'SIGINT', lines, stderr });
    }),
  );
}

describe('--watch in a real process', () => {
  test('prints the first round into a pipe and ends on SIGINT, without waiting for the next round', { timeout: 60_000 }, async ({ plant, watch, sandbox }) => {
    await plant([{ publicId: 'ap-watchsig001', name: 'sig', status: 'running' }]);
    await sandboxAdmin(sandbox).clearRequests();
    // An interval far longer than the test's timeout: only the signal can end the run in time.
    const r = await watch(['apps', 'get', 'ap-watchsig001', '--watch', '--interval', '1h', '-o', 'ndjson'], (_line, stop) => stop());
    expect(r.interrupted, r.stderr).toBe(true);
    expect(r.lines.map((l) => (JSON.parse(l) as { publicId: string }).publicId)).toEqual(['ap-watchsig001']);
    expect(await sandboxAdmin(sandbox).requests()).toHaveLength(1);
  });
});

// --watch on get and list (issue 13): into a pipe, ndjson appends the objects that changed
// as they change; on a terminal the table redraws in place. The process runs until
// interrupted; the test stops it with SIGINT once it has seen what it waits for.

import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, sandboxAdmin, startSandbox, tmpDir, type Sandbox } from '../support/cli.js';

let sandbox: Sandbox;
let config: { path: string; cleanup(): void };

beforeAll(async () => {
  sandbox = await startSandbox(['--rate-limit', '1000']);
  config = tmpDir('hostctl-watch-');
});
afterAll(async () => {
  await sandbox?.stop();
  config?.cleanup();
});

const env = () => ({ ...process.env, HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path, NO_COLOR: '1' });

async function plant(objects: Record<string, unknown>[]): Promise<void> {
  const res = await fetch(`${sandbox.origin}/_sandbox/objects/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(objects) });
  expect(res.ok).toBe(true);
}

/** Runs hostctl, calling `onLine` for each stdout line; resolves with the exit code after `stop()`. */
function watch(args: string[], onLine: (line: string, stop: () => void) => void | Promise<void>) {
  const child = spawn(process.execPath, [BIN, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
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

describe('--watch into a pipe (ndjson)', () => {
  it('get: prints the objects, then only the one that changed, one request per round', { timeout: 60_000 }, async () => {
    await plant([
      { publicId: 'ap-watchone001', name: 'one', status: 'deploying' },
      { publicId: 'ap-watchtwo001', name: 'two', status: 'running' },
    ]);
    await sandboxAdmin(sandbox).clearRequests();
    let n = 0;
    const r = await watch(['apps', 'get', 'ap-watchone001', 'ap-watchtwo001', '--watch', '--interval', '1s', '-o', 'ndjson'], async (_line, stop) => {
      n++;
      if (n === 2) await plant([{ publicId: 'ap-watchone001', name: 'one', status: 'running' }]);
      if (n === 3) stop();
    });
    expect(r.interrupted, r.stderr).toBe(true);
    const objects = r.lines.map((l) => JSON.parse(l) as { publicId: string; status: string });
    expect(objects.map((o) => [o.publicId, o.status])).toEqual([
      ['ap-watchone001', 'deploying'],
      ['ap-watchtwo001', 'running'],
      ['ap-watchone001', 'running'],
    ]);
    const seen = await sandboxAdmin(sandbox).requests();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const q of seen) expect(q.query).toBe('publicId[]=ap-watchone001&publicId[]=ap-watchtwo001');
  });

  it('list: a new object is appended', { timeout: 60_000 }, async () => {
    // Its own object to count, not one an earlier test planted: this test runs alone too.
    await plant([{ publicId: 'ap-watchold0001', name: 'old', status: 'running' }]);
    let n = 0;
    let total = 0;
    const r = await watch(['apps', 'list', '--all', '--watch', '--interval', '1s', '-o', 'ndjson'], async (line, stop) => {
      const o = JSON.parse(line) as { publicId: string };
      n++;
      if (o.publicId === 'ap-watchnew0001') stop();
      if (total === 0) {
        total = -1;
        // Once the first round has begun printing, add an object: a later round (or the
        // rest of this one) must bring it, and nothing already printed again.
        void plant([{ publicId: 'ap-watchnew0001', name: 'new' }]);
      }
    });
    expect(r.interrupted, r.stderr).toBe(true);
    expect(r.lines.at(-1)).toContain('ap-watchnew0001');
    // The second round printed only the new object, not the whole list again.
    expect(r.lines.filter((l) => l.includes('ap-watchold0001'))).toHaveLength(1);
    expect(r.lines.filter((l) => l.includes('ap-watchnew0001'))).toHaveLength(1);
    expect(n).toBe(r.lines.length);
  });
});

describe('--watch on a terminal', () => {
  it('the table redraws in place: the cursor goes back up over the last drawing', { timeout: 60_000 }, async () => {
    await plant([{ publicId: 'ap-watchtty001', name: 'tty', status: 'deploying' }]);
    const quoted = [process.execPath, BIN, 'apps', 'get', 'ap-watchtty001', '--watch', '--interval', '1s'].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qfec', `stty cols 120 rows 50 2>/dev/null; ${quoted}`, '/dev/null'], {
      env: { ...env(), TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let planted = false;
    const killer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!planted && out.includes('deploying')) {
        planted = true;
        void plant([{ publicId: 'ap-watchtty001', name: 'tty', status: 'running' }]);
      }
      if (planted && /\u001b\[\d+F\u001b\[J[\s\S]*running/.test(out)) child.kill('SIGTERM');
    });
    await new Promise((resolve) => child.on('exit', resolve));
    clearTimeout(killer);
    expect(out).toMatch(/deploying[\s\S]*\u001b\[\d+F\u001b\[J[\s\S]*running/);
  });
});

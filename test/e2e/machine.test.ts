// Issue 27 through the built CLI (bin/hostctl.js → dist/): accessible output in a REAL
// pseudo-terminal (util-linux `script`) during a rate-limit wait and a --watch, with no
// carriage-return redraws and no cursor movement; and errors as JSON lines from the real
// process, Ctrl-C at a raw-mode prompt (interrupted) included. In-process, on a fake
// terminal: test/cli/accessible.test.ts, errors-json.test.ts.

import { describe, expect } from 'vitest';
import { BIN, runCli, runInPty, runInPtyInteractive, runProcess, sandboxAdmin } from '../support/cli.js';
import { e2eTest } from '../support/fixtures.js';
import { behaviours, closedPort, NO_PROXY_ENV } from '../support/hostile-server.js';

/** Cursor movement, line erasing, cursor hiding: what a redraw in place is made of. */
const CURSOR_MOVE = /\u001b\[[0-9;?]*[A-HJKSTfhlsu]/;
/** A carriage return that is not the terminal's own end of line (CR LF). */
const BARE_CR = /\r(?!\n)/;
const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

// CI=true turns spinners off (see IO); these are about a person's terminal.
const test = e2eTest({ sandbox: ['--rate-limit', '100', '--window', '60'], spawnSandbox: true })
  .extend('altServer', ({ alt }) => alt({ limit: 1000 }))
  .extend('env', ({ altServer, config }) => (extra: Record<string, string | undefined> = {}) => ({ HOSTCTL_BASE_URL: altServer.baseUrl, HOSTCTL_TOKEN: altServer.token, HOSTCTL_CONFIG_DIR: config.path, CI: undefined, ...extra }));

describe('accessible output in a real terminal', () => {
  test('a rate-limit wait: one plain line, no carriage-return redraw, no cursor movement', { timeout: 60_000 }, async ({ env, altServer }) => {
    // The control: without it, the same wait is a spinner redrawn in place.
    altServer.alt.force429(1, 1);
    const control = await runInPty(['apps', 'list', '--limit', '1', '--json'], { env: env() });
    expect(control.code).toBe(0);
    expect(control.stdout).toMatch(CURSOR_MOVE);
    expect(control.stdout).toMatch(SPINNER_FRAME);

    altServer.alt.force429(1, 1);
    const r = await runInPty(['apps', 'list', '--limit', '1', '--json'], { env: env({ HOSTCTL_ACCESSIBLE: '1' }) });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).not.toMatch(CURSOR_MOVE);
    expect(r.stdout).not.toMatch(BARE_CR);
    expect(r.stdout).not.toMatch(SPINNER_FRAME);
    const waits = r.stdout.split('\r\n').filter((l) => /Rate limit reached/.test(l));
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatch(/^Rate limit reached: waiting \d+s before retrying/);
  });
});

describe('--watch, accessible, in a real terminal', () => {
  test('appends the table again on a change instead of redrawing it', { timeout: 60_000 }, async ({ sandbox, config }) => {
    const admin = sandboxAdmin(sandbox);
    await admin.plant('apps', [{ publicId: 'ap-accwatch001', name: 'acc', status: 'deploying' }]);
    const env = { HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path, CI: undefined, HOSTCTL_ACCESSIBLE: '1', TERM: 'xterm-256color' };
    const command = [process.execPath, BIN, 'apps', 'get', 'ap-accwatch001', 'ap-accwatch001', '--watch', '--interval', '1s', '-o', 'table']
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    let planted = false;
    let stopped = false;
    const r = await runProcess('script', ['-qfec', `stty cols 120 rows 50 2>/dev/null; ${command}`, '/dev/null'], { env, timeoutMs: 50_000 }, (out, stdin) => {
      // After the first table, the app changes; once the second table is out, Ctrl-C.
      if (!planted && /Watching/.test(out)) {
        planted = true;
        void admin.plant('apps', [{ publicId: 'ap-accwatch001', name: 'acc', status: 'running' }]);
      }
      if (!stopped && /running/.test(out)) {
        stopped = true;
        setTimeout(() => stdin.write('\u0003'), 200);
      }
    });
    expect(r.stdout).toMatch(/deploying/);
    expect(r.stdout).toMatch(/running/);
    // Two tables, one below the other.
    expect(r.stdout.match(/PUBLIC ID/g)?.length, r.stdout).toBeGreaterThanOrEqual(2);
    expect(r.stdout.indexOf('deploying')).toBeLessThan(r.stdout.lastIndexOf('running'));
    expect(r.stdout).not.toMatch(CURSOR_MOVE);
    expect(r.stdout).not.toMatch(BARE_CR);
    expect(r.code).toBe(130);
  });
});

describe('errors as JSON lines from the built CLI', () => {
  test('network, against a server that has stopped: one JSON line on stderr, exit 6', async ({ config }) => {
    const port = await closedPort();
    const r = await runCli(['apps', 'list', '--json'], { env: { ...NO_PROXY_ENV, HOSTCTL_BASE_URL: `http://127.0.0.1:${port}/v1`, HOSTCTL_TOKEN: 'hct_e2e_machine_token_5555', HOSTCTL_CONFIG_DIR: config.path } });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'network', exit: 6 } });
  });

  test('interrupted: Ctrl-C at the hidden token prompt under --json, exit 130', { timeout: 30_000 }, async ({ config, hostile }) => {
    const s = await hostile(behaviours.ok);
    const r = await runInPtyInteractive(['auth', 'login', '--json', '--insecure-storage', '--base-url', s.baseUrl], [{ waitFor: /input is hidden/, send: 'hct_par\u0003' }], {
      env: { ...NO_PROXY_ENV, HOSTCTL_CONFIG_DIR: config.path },
    });
    expect(r.code, r.stdout).toBe(130);
    const line = r.stdout.split('\r\n').find((l) => l.includes('"error"'));
    expect(JSON.parse(line ?? '')).toEqual({ error: { code: 'interrupted', message: 'Login interrupted; nothing was stored.', exit: 130 } });
    expect(r.stdout).not.toMatch(/hostctl: Login interrupted/);
    expect(s.connections()).toBe(0);
  });
});

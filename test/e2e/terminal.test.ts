// The real terminal: hostctl in a pseudo-terminal (util-linux `script`), where what a
// person sees depends on the terminal itself: a countdown that runs in real time, a
// hidden prompt in raw mode, Ctrl-C there, and a smoke test of a coloured table. What
// hostctl decides on a terminal (tables, colour, spinners, widths) is tested in-process on
// a fake one: test/cli/cli-options.test.ts, hostile-data.test.ts, output.test.ts.
//
// The tests run side by side (describe.concurrent): each waits on its own processes, two
// of them on real time (a 429's wait, the margin given to Node's inspector), and they share
// nothing but the file's sandbox, which they only read.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { BIN, isolated, runProcess } from '../support/cli.js';
import { behaviours } from '../support/hostile-server.js';
import { platformOf } from '../support/servers.js';
import { shown as onScreen, terminalTest } from '../support/terminal.js';

const test = terminalTest({ sandbox: ['--rate-limit', '100000'] })
  // sh prints its PID and becomes hostctl (exec), so that a test can signal hostctl itself.
  .extend('loginInPty', ({ ptyEnv }) => (inner: (login: string) => string, onOutput: (out: string, stdin: NodeJS.WritableStream) => void) => {
    const login = [process.execPath, BIN, 'auth', 'login', '--insecure-storage', '--base-url', 'http://127.0.0.1:9/v1'].join(' ');
    return runProcess('script', ['-qfec', inner(`sh -c 'echo "PID=$$"; exec ${login}'`), '/dev/null'], { env: isolated({ TERM: 'xterm-256color', ...ptyEnv() }), timeoutMs: 30_000 }, onOutput);
  });

describe.concurrent('a real terminal', () => {
  describe('against the sandbox', () => {
    test('a table on a terminal colours the status column', async ({ pty, sandboxEnv }) => {
      const r = await pty(['apps', 'list'], sandboxEnv);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/PUBLIC ID.*NAME/);
      expect(r.stdout).toMatch(/\u001b\[32mrunning\u001b\[39m/);
    });

    // The width comes from the pty itself (`stty cols N` inside script, read through the ioctl).
    const shown = (text: string) => onScreen(text).replace(/^.*Fetching[^\n]*?(?=PUBLIC ID)/m, '');
    test.for([60, 100])('at %i columns a table fits, and no public ID is cut, a reference included', async (columns, { pty, sandbox, sandboxEnv }) => {
      for (const [resource, collection, reference] of [['apps', 'apps', 'team'], ['envs', 'environments', 'app']] as const) {
        // The rows as the platform lists them, read from the sandbox itself.
        const expected = (await platformOf(sandbox).all(collection)).slice(0, 8).map((o) => [String(o.publicId), String(o[reference])]);
        expect(expected).toHaveLength(8);
        const r = await pty([resource, 'list', '--limit', '8', '-q'], sandboxEnv, { columns });
        expect(r.code, r.stdout).toBe(0);
        const lines = shown(r.stdout).trimEnd().split('\n');
        expect(lines[0]).toMatch(new RegExp(`^PUBLIC ID .* ${reference.toUpperCase()}\\b`));
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
        // Each row: its own ID and the reference's, whole.
        lines.slice(1).forEach((line, n) => {
          const [id, ref] = expected[n] ?? [];
          expect(line.split(/\s+/)).toEqual(expect.arrayContaining([id, ref]));
        });
      }
    });

    test.for([60, 100])('at %i columns the help wraps to the terminal, words whole', async (columns, { pty }) => {
      const cases: [string[], RegExp][] = [
        [['--help'], /log each HTTP exchange to stderr \(token redacted\)/],
        [['apps', 'list', '--help'], /log each HTTP exchange to stderr \(token redacted\)/],
        [['help', 'environment'], /the token for this run\. It wins over the keychain/],
        [['sandbox', '--help'], /how long a lockout lasts, and the window failures are counted in/],
      ];
      for (const [args, words] of cases) {
        const r = await pty(args, {}, { columns });
        expect(r.code, r.stdout).toBe(0);
        const lines = shown(r.stdout).trimEnd().split('\n');
        for (const line of lines) expect(line.length, `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(columns);
        // Every word of a description is on the screen whole.
        expect(shown(r.stdout).replace(/\s+/g, ' ')).toMatch(words);
      }
    });

    test('a hidden prompt on a terminal: the token is not echoed, and is stored', async ({ typeInPty, sandbox, config }) => {
      const r = await typeInPty(['auth', 'login', '--insecure-storage', '--base-url', sandbox.baseUrl], [{ waitFor: /input is hidden/, send: `${sandbox.token}\r` }]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Logged in/);
      expect(r.stdout).not.toContain(sandbox.token);
      expect(r.stdout).not.toContain(sandbox.token.slice(0, 8));
      expect(readFileSync(join(config.path, 'tokens', 'default'), 'utf8').trim()).toBe(sandbox.token);
    });
  });

  describe('against the alt server', () => {
    test('on a terminal the wait shows a countdown spinner on stderr', async ({ alt, pty }) => {
      const server = await alt({ limit: 1000 });
      server.alt.force429(1, 2);
      const r = await pty(['apps', 'list', '--limit', '1', '--json'], { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token });
      expect(r.code).toBe(0);
      expect(onScreen(r.stdout)).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Rate limit reached: waiting \d+s… \(Ctrl-C to stop\)/);
    });
  });

  describe('at the hidden prompt', () => {
    test('Ctrl-C at the hidden token prompt exits 130, nothing stored or sent', async ({ hostile, typeInPty, config }) => {
      const s = await hostile(behaviours.ok);
      const r = await typeInPty(['auth', 'login', '--insecure-storage', '--base-url', s.baseUrl], [{ waitFor: /input is hidden/, send: 'hct_par\u0003' }]);
      expect(r.code, r.stdout).toBe(130);
      expect(r.stdout).toMatch(/hostctl: Login interrupted; nothing was stored\./);
      expect(s.connections()).toBe(0);
      expect(readdirSync(config.path)).toEqual([]);
    });
  });

  describe('a signal at the hidden token prompt', () => {
    // The prompt puts the terminal in raw mode (no echo). Node puts it back on SIGINT and
    // SIGTERM itself; on SIGHUP or SIGQUIT the process died with the terminal still raw, and
    // the shell after it showed nothing typed. The shell in the pty runs `stty -a` once
    // hostctl has ended, and prints how the signal ended it.
    test.for([['SIGQUIT', 131], ['SIGHUP', 129], ['SIGTERM', 143], ['SIGINT', 130]] as const)('%s ends hostctl as the signal does, and leaves the terminal echoing', async ([signal, status], { loginInPty, config }) => {
      let sent = false;
      const r = await loginInPty(
        (login) => `${login}; echo "STATUS=$?"; stty -a`,
        (out) => {
          const pid = /PID=(\d+)/.exec(out)?.[1];
          if (!sent && pid && /input is hidden/.test(out)) {
            sent = true;
            process.kill(Number(pid), signal);
          }
        },
      );
      expect(sent, r.stdout).toBe(true);
      expect(r.stdout).toContain(`STATUS=${status}`);
      const modes = r.stdout.slice(r.stdout.indexOf('STATUS='));
      expect(modes).toMatch(/(^|\s)echo(\s|$)/m);
      expect(modes).toMatch(/(^|\s)icanon(\s|$)/m);
      expect(modes).not.toMatch(/-echo(\s|$)/m);
      expect(readdirSync(config.path)).toEqual([]);
    });
  });

  describe('SIGUSR1 while the token may be in memory', () => {
    test("does not open Node's inspector: the prompt stays, and Ctrl-C still ends it with 130", async ({ loginInPty }) => {
      let phase: 'prompt' | 'signalled' | 'done' = 'prompt';
      const r = await loginInPty(
        (login) => login,
        (out, stdin) => {
          const pid = /PID=(\d+)/.exec(out)?.[1];
          if (phase === 'prompt' && pid && /input is hidden/.test(out)) {
            phase = 'signalled';
            process.kill(Number(pid), 'SIGUSR1');
            // Node's inspector says "Debugger listening on ws://…" at once when the signal opens
            // it; the margin only gives a busy machine room to say it. Then Ctrl-C.
            setTimeout(() => {
              phase = 'done';
              stdin.write('\u0003');
            }, 1500);
          }
        },
      );
      expect(phase).toBe('done');
      expect(r.stdout).not.toMatch(/Debugger listening|inspector/i);
      expect(r.stdout).toMatch(/hostctl: Login interrupted; nothing was stored\./);
      expect(r.code, r.stdout).toBe(130);
    });
  });
});

// The terminal promises in a real pseudo-terminal (util-linux `script`), where the width is
// what the pty reports through its ioctl, and a resize arrives as the kernel's SIGWINCH:
// tables and the detail view at 30 to 100 columns, -q and NO_COLOR, and a --watch whose
// terminal shrinks between two drawings. test/e2e/terminal.test.ts has the 60- and
// 100-column tables and help; what hostctl decides on a terminal is tested in-process on a
// fake one (test/cli/output.test.ts, watch.test.ts).

import { describe, expect } from 'vitest';
import { BIN, isolated, runProcess, sandboxAdmin, type RunResult } from '../support/cli.js';
import { platformOf } from '../support/servers.js';
import { shown, terminalTest } from '../support/terminal.js';

const test = terminalTest({ sandbox: ['--rate-limit', '100000'], runOnSandbox: true })
  // The first `n` apps as the platform lists them (publicId, status), read from the sandbox itself.
  .extend('firstApps', ({ sandbox }) => async (n: number): Promise<string[][]> => (await platformOf(sandbox).all('apps')).slice(0, n).map((a) => [String(a.publicId), String(a.status)]));

describe('widths from the pty itself', () => {
  test.for([30, 45, 80])('at %i columns a table fits, every public ID whole', async (columns, { pty, firstApps }) => {
    const ids = (await firstApps(6)).map(([id]) => id);
    const r = await pty(['apps', 'list', '--limit', '6', '-q'], {}, { columns });
    expect(r.code, r.stdout).toBe(0);
    const lines = shown(r.stdout).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PUBLIC ID\b/);
    expect(lines).toHaveLength(7);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
    lines.slice(1).forEach((line, n) => expect(line.split(/\s+/)[0]).toBe(ids[n]));
  });

  test.for([40, 100])('at %i columns the detail view of one object fits, its ID whole', async (columns, { pty, firstApps }) => {
    const [[id]] = (await firstApps(1)) as [[string]];
    const r = await pty(['apps', 'get', id, '-q'], {}, { columns });
    expect(r.code, r.stdout).toBe(0);
    const lines = shown(r.stdout).trimEnd().split('\n');
    // Key and value, one field a line: the public ID among them, whole.
    expect(lines.some((l) => new RegExp(`^publicId:\\s+${id}$`).test(l.trim())), lines.join('\n')).toBe(true);
    expect(lines.length, lines.join('\n')).toBeGreaterThan(3);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
  });

  test('colour and the page spinner on a terminal; no colour with NO_COLOR or --no-color, no spinner with NO_COLOR or -q; the same rows', async ({ pty }) => {
    const coloured = await pty(['apps', 'list', '--limit', '6']);
    expect(coloured.code, coloured.stdout).toBe(0);
    expect(coloured.stdout).toMatch(/\u001b\[3\dm/);
    // The page spinner, on the same terminal (stderr), before the rows.
    expect(shown(coloured.stdout)).toMatch(/Fetching apps/);
    const rows = shown(coloured.stdout).replace(/^.*Fetching[^\n]*?(?=PUBLIC ID)/m, '');
    for (const [args, extra] of [
      [['apps', 'list', '--limit', '6'], { NO_COLOR: '1' }],
      [['apps', 'list', '--limit', '6', '--no-color'], {}],
      [['apps', 'list', '--limit', '6', '-q'], { NO_COLOR: '1' }],
    ] as const) {
      const r = await pty([...args], extra);
      expect(r.code, r.stdout).toBe(0);
      // No colour, no spinner (ora's frames, its hidden cursor): only the rows.
      expect(r.stdout, `${args.join(' ')} ${JSON.stringify(extra)}`).not.toMatch(/\u001b\[(3\d|9\d|\?25l)/);
      expect(shown(r.stdout), `${args.join(' ')} ${JSON.stringify(extra)}`).toBe(rows);
    }
  });
});

describe('--watch on a terminal that is resized', () => {
  test('the drawing after the terminal shrinks fits the new width, drawn over the old one', { timeout: 60_000 }, async ({ sandbox, ptyEnv, firstApps, onTestFinished }) => {
    const apps = await firstApps(4);
    const [id] = apps[0] ?? [];
    // The app whose status this test changes is put back whole after it: the file's other
    // tests read the same sandbox.
    const original = (await platformOf(sandbox).all('apps')).find((a) => a.publicId === id)!;
    onTestFinished(() => sandboxAdmin(sandbox).plant('apps', [original]));
    // A token of its own, whose first request is alone in its window: hostctl learns the
    // window from it and polls at the interval asked for, not at the platform's pace.
    const token = await sandboxAdmin(sandbox).newToken('resized');
    const quoted = [process.execPath, BIN, 'apps', 'list', '--limit', '4', '--watch', '--interval', '1s', '-q'].map((a) => `'${a}'`).join(' ');
    // hostctl runs in the background of the pty's shell, in its process group: `stty cols`
    // changes the pty's size, and the kernel sends that group SIGWINCH. The shell waits
    // for a line typed at each step.
    const shell = `stty cols 100 rows 50; ${quoted} & p=$!; read -r _; stty cols 50; echo RESIZED; read -r _; kill -TERM $p; wait $p; echo "EXIT=$?"`;
    let step = 0;
    let failed: unknown;
    const r: RunResult = await runProcess('script', ['-qfec', shell, '/dev/null'], { env: isolated({ TERM: 'xterm-256color', ...ptyEnv({ HOSTCTL_TOKEN: token }) }), timeoutMs: 50_000 }, (out, stdin) => {
      if (step === 0 && /PUBLIC ID[\s\S]*\n[\s\S]*\n[\s\S]*\n[\s\S]*\n/.test(shown(out))) {
        step = 1;
        stdin.write('\r');
      } else if (step === 1 && out.includes('RESIZED')) {
        step = 2;
        // A change the next round sees: the table is drawn again.
        sandboxAdmin(sandbox)
          .plant('apps', [{ ...original, status: 'shrunk' }])
          .catch((err: unknown) => (failed = err));
      } else if (step === 2 && /RESIZED[\s\S]*\u001b\[\d+F\u001b\[J[\s\S]*shrunk[\s\S]*\n[\s\S]*\n[\s\S]*\n[\s\S]*\n/.test(out)) {
        step = 3;
        stdin.write('\r');
      }
    });
    expect(failed).toBeUndefined();
    expect(step, JSON.stringify(r.stdout)).toBe(3);
    expect(r.stdout).toContain('EXIT=143');
    const [before = '', after = ''] = r.stdout.split('RESIZED');
    // The first drawing used the width it had: some line wider than the new one.
    const first = shown(before).split('\n').filter((l) => /^(PUBLIC ID|\S+-)/.test(l));
    expect(Math.max(...first.map((l) => l.length))).toBeGreaterThan(50);
    // The second: back up over the first drawing's 5 lines, cleared, drawn at 50 columns.
    const m = /\u001b\[(\d+)F\u001b\[J([\s\S]*?)EXIT=/.exec(after);
    expect(m, JSON.stringify(after)).not.toBeNull();
    expect(Number(m![1])).toBe(5);
    const second = shown(m![2]!).split('\n').filter((l) => l.trim() !== '');
    expect(second[0]).toMatch(/^PUBLIC ID\b/);
    expect(second.filter((l) => l.includes('shrunk'))).toHaveLength(1);
    for (const line of second) expect(line.length, line).toBeLessThanOrEqual(50);
    apps.forEach(([appId]) => expect(second.some((l) => l.split(/\s+/)[0] === appId), `${appId} in ${second.join('\n')}`).toBe(true));
  });
});

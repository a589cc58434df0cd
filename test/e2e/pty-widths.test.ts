// The terminal promises in a real pseudo-terminal (util-linux `script`), where the width is
// what the pty reports through its ioctl, and a resize arrives as the kernel's SIGWINCH:
// tables and the detail view at 30 to 100 columns, -q and NO_COLOR, and a --watch whose
// terminal shrinks between two drawings. test/e2e/terminal.test.ts has the 60- and
// 100-column tables and help; what hostctl decides on a terminal is tested in-process on a
// fake one (test/cli/output.test.ts, watch.test.ts).

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, isolated, runCli, runInPty, runProcess, sandboxAdmin, tmpDir, type RunResult } from '../support/cli.js';
import { startSandboxHere, type LocalSandbox } from '../support/sandbox-here.js';

let sandbox: LocalSandbox;
let config: { path: string; cleanup(): void };
beforeAll(async () => {
  sandbox = await startSandboxHere({ rateLimit: 100_000 });
});
afterAll(async () => {
  await sandbox?.stop();
});
beforeEach(() => {
  config = tmpDir('hostctl-ptyw-config-');
});
afterEach(() => config.cleanup());

// CI=true turns spinners off (see IO); these are about a person's terminal.
const env = () => ({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: sandbox.token, HOSTCTL_CONFIG_DIR: config.path, CI: undefined });

/** What the terminal shows: no escape sequences, no carriage returns. */
const shown = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/** The first `n` apps as tsv (publicId, status), as a script would read them. */
async function firstApps(n: number): Promise<string[][]> {
  const r = await runCli(['apps', 'list', '--limit', String(n), '-o', 'tsv', '--fields', 'publicId,status'], { env: env() });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trimEnd().split('\n').map((l) => l.split('\t'));
}

describe('widths from the pty itself', () => {
  it.each([30, 45, 80])('at %i columns a table fits, every public ID whole', async (columns) => {
    const ids = (await firstApps(6)).map(([id]) => id);
    const r = await runInPty(['apps', 'list', '--limit', '6', '-q'], { env: env(), columns });
    expect(r.code, r.stdout).toBe(0);
    const lines = shown(r.stdout).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PUBLIC ID\b/);
    expect(lines).toHaveLength(7);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
    lines.slice(1).forEach((line, n) => expect(line.split(/\s+/)[0]).toBe(ids[n]));
  });

  it.each([40, 100])('at %i columns the detail view of one object fits, its ID whole', async (columns) => {
    const [[id]] = (await firstApps(1)) as [[string]];
    const r = await runInPty(['apps', 'get', id, '-q'], { env: env(), columns });
    expect(r.code, r.stdout).toBe(0);
    const lines = shown(r.stdout).trimEnd().split('\n');
    // Key and value, one field a line: the public ID among them, whole.
    expect(lines.some((l) => new RegExp(`^publicId:\\s+${id}$`).test(l.trim())), lines.join('\n')).toBe(true);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
  });

  it('colour and the page spinner on a terminal; no colour with NO_COLOR or --no-color, no spinner with NO_COLOR or -q; the same rows', async () => {
    const coloured = await runInPty(['apps', 'list', '--limit', '6'], { env: env() });
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
      const r = await runInPty([...args], { env: { ...env(), ...extra } });
      expect(r.code, r.stdout).toBe(0);
      // No colour, no spinner (ora's frames, its hidden cursor): only the rows.
      expect(r.stdout, `${args.join(' ')} ${JSON.stringify(extra)}`).not.toMatch(/\u001b\[(3\d|9\d|\?25l)/);
      expect(shown(r.stdout), `${args.join(' ')} ${JSON.stringify(extra)}`).toBe(rows);
    }
  });
});

describe('--watch on a terminal that is resized', () => {
  it('the drawing after the terminal shrinks fits the new width, drawn over the old one', { timeout: 60_000 }, async () => {
    const apps = await firstApps(4);
    const [id] = apps[0] ?? [];
    const quoted = [process.execPath, BIN, 'apps', 'list', '--limit', '4', '--watch', '--interval', '1s', '-q'].map((a) => `'${a}'`).join(' ');
    // hostctl runs in the background of the pty's shell, in its process group: `stty cols`
    // changes the pty's size, and the kernel sends that group SIGWINCH. The shell waits
    // for a line typed at each step.
    const shell = `stty cols 100 rows 50; ${quoted} & p=$!; read -r _; stty cols 50; echo RESIZED; read -r _; kill -TERM $p; wait $p; echo "EXIT=$?"`;
    let step = 0;
    let failed: unknown;
    const r: RunResult = await runProcess('script', ['-qfec', shell, '/dev/null'], { env: isolated({ TERM: 'xterm-256color', ...env() }), timeoutMs: 50_000 }, (out, stdin) => {
      if (step === 0 && /PUBLIC ID[\s\S]*\n[\s\S]*\n[\s\S]*\n[\s\S]*\n/.test(shown(out))) {
        step = 1;
        stdin.write('\r');
      } else if (step === 1 && out.includes('RESIZED')) {
        step = 2;
        // A change the next round sees: the table is drawn again.
        sandboxAdmin(sandbox)
          .plant('apps', [{ publicId: id, status: 'shrunk' }])
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

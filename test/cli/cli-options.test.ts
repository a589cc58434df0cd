// The global options and terminal behaviour end to end: -q, colour controls, the spinner
// on a terminal, batch `get` chunking past 4 KiB of URL, and --help with examples for
// every command. hostctl in-process (test/support/inproc.ts) against real loopback servers.

import { describe, expect } from 'vitest';
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { cliTerminalTest, type Env } from '../support/fixtures.js';
import type { RunResult } from '../support/inproc.js';
import { platformOf, type PlatformServer } from '../support/servers.js';
import { buildProgram } from '../../src/cli.js';

const ESC = '\u001b';
/** An SGR colour (30–37, 90–97), as chalk writes for a status. */
const SGR_COLOUR = /\u001b\[(?:3[0-7]|9[0-7])m/;
const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

const on = (server: { baseUrl: string; token: string }): Env => ({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token });

// CI=true turns spinners off (see IO); these tests are about a person's terminal.
const test = cliTerminalTest({ sandbox: ['--rate-limit', '100000'] }).extend('runEnv', ({ sandbox }): Env => ({ ...on(sandbox), CI: undefined }));

describe('terminal behaviour against the sandbox', () => {
  test('a table on a terminal colours the status column', async ({ pty }) => {
    const r = await pty(['apps', 'list']);
    expect(r.code).toBe(0);
    // The spinner is coloured too; look at a table row's status cell itself.
    expect(r.stdout).toMatch(/\u001b\[32mrunning\u001b\[39m/);
  });

  test('-q turns colour off too, as NO_COLOR does', async ({ pty }) => {
    const r = await pty(['apps', 'list', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(SGR_COLOUR);
    expect(r.stdout).toMatch(/running/);
  });

  test('--no-color, NO_COLOR and FORCE_COLOR=0 leave no escape sequence at all on a terminal', async ({ pty }) => {
    for (const [args, extra] of [
      [['apps', 'list', '--no-color'], {}],
      [['apps', 'list'], { NO_COLOR: '1' }],
      [['apps', 'list'], { FORCE_COLOR: '0' }],
    ] as const) {
      const r = await pty([...args], extra);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, `${args.join(' ')} ${JSON.stringify(extra)}`).not.toContain(ESC);
      expect(r.stdout).toMatch(/PUBLIC ID/);
    }
  });

  test('FORCE_COLOR=1 colours a table even into a pipe; a pipe is plain otherwise', async ({ hostctl }) => {
    const forced = await hostctl(['apps', 'list', '-o', 'table'], { FORCE_COLOR: '1' });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(SGR_COLOUR);
    const plain = await hostctl(['apps', 'list', '-o', 'table']);
    expect(plain.stdout).not.toContain(ESC);
  });

  test('-q: no spinner and no notes on a terminal; errors still reach stderr', async ({ hostctl, pty }) => {
    const quiet = await pty(['apps', 'list', '--all', '-q']);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).not.toMatch(SPINNER_FRAME);
    expect(quiet.stdout).not.toMatch(/Fetching/);
    const failed = await hostctl(['apps', 'get', 'ap-doesnotexist', '-q']);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toBe('hostctl: not found: ap-doesnotexist\nRun "hostctl apps list" to see the apps this token can see.\n');
  });

  test('a terminal that reports 0 columns: no spinner (it would never stop clearing), a table of 80', async ({ pty }) => {
    const r = await pty(['apps', 'list', '--all'], {}, { columns: 0 });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(SPINNER_FRAME);
    expect(r.stdout).toMatch(/PUBLIC ID/);
    for (const line of r.stdout.split(/\r?\n/)) expect([...line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')].length).toBeLessThanOrEqual(80);
  });

  test('under CI (true, 1, True: what CI services set): no spinner even on a terminal; CI=false is no CI', async ({ pty }) => {
    for (const ci of ['true', '1', 'True']) {
      const r = await pty(['apps', 'list', '--all'], { CI: ci });
      expect(r.code).toBe(0);
      expect(r.stdout, `CI=${ci}`).not.toMatch(SPINNER_FRAME);
    }
    const off = await pty(['apps', 'list', '--all'], { CI: 'false' });
    expect(off.stdout).toMatch(SPINNER_FRAME);
  });

  test('no spinner when stderr is not a terminal, even with --all', async ({ hostctl }) => {
    const r = await hostctl(['apps', 'list', '--all']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('the spinner counts pages during --all (alt server, 300 ms per response)', () => {
  test('shows "page N, M so far" on stderr while it walks, then clears the line for the table', async ({ pty, alt }) => {
    const server = await alt({ limit: 100000, delayMs: 300 });
    const r = await pty(['environments', 'list', '--all', '--fields', 'publicId'], on(server));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(SPINNER_FRAME);
    expect(r.stdout).toMatch(/page [2-9], \d+ so far/);
    // 120 environments in pages of 25: five requests, every object printed once.
    expect(server.alt.requests).toHaveLength(5);
    expect(r.stdout.match(/en-[0-9a-z]{6}/g)).toHaveLength(120);
  });
});

describe.each(['sandbox', 'alt'] as const)('batch get past 4 KiB of URL against %s', (kind) => {
  // 200 IDs of 48 characters: about 12 KiB of publicId[] parameters.
  const ids = Array.from({ length: 200 }, (_, i) => `ap-chunk-${String(i).padStart(3, '0')}-${'x'.repeat(35)}`);

  test('splits into requests of at most 4 KiB of URL, asks for each ID once, and prints in the order asked', async ({ hostctl, sandbox, alt }) => {
    const server: PlatformServer = kind === 'sandbox' ? platformOf(sandbox) : await alt({ limit: 100000 });
    await server.plant(
      'apps',
      ids.map((publicId, i) => ({ publicId, name: `chunked-${i}`, status: 'running' })),
    );
    const asked = [...ids].reverse();
    await server.clearRequests();
    const r: RunResult = await hostctl(['apps', 'get', ...asked, '--json', '--fields', 'publicId'], on(server));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { publicId: string }[]).map((a) => a.publicId)).toEqual(asked);

    const origin = new URL(server.baseUrl).origin;
    const requests = await server.requests();
    // The batches hostctl builds (the alt server then pages each through its own Link URLs,
    // which hostctl follows as given) stay within 4 KiB and name every ID exactly once.
    const batches = requests.filter((q) => !/(^|&)cursor=/.test(q.query));
    for (const q of batches) expect(`${origin}${q.path}?${q.query}`.length).toBeLessThanOrEqual(4096);
    expect(batches.length).toBeGreaterThanOrEqual(3);
    const named = batches.flatMap((q) => new URLSearchParams(q.query).getAll('publicId[]'));
    expect(named.sort()).toEqual([...ids].sort());
  });
});

describe('--help', () => {
  /** Every command path in the program, e.g. ["apps", "list"]. */
  function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
    const out: string[][] = [];
    for (const sub of cmd.commands) {
      if (sub.name() === 'help') continue;
      const path = [...prefix, sub.name()];
      out.push(path);
      out.push(...commandPaths(sub, path));
    }
    return out;
  }

  test('every command answers --help with a description, two examples or more, its inherited flags and where to read more, exit 0', async ({ hostctl }) => {
    const paths = [[], ...commandPaths(buildProgram())];
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) {
      const r = await hostctl([...path, '--help']);
      const name = `hostctl ${path.join(' ')} --help`;
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).toMatch(/^Usage: hostctl/);
      expect(r.stdout, name).toMatch(/\nExamples:\n(?: {2}\$ .*hostctl.*\n(?: {6}.*\n)*){2,}/);
      expect(r.stdout, name).toMatch(/\nLearn more:\n(?: {2}(?:hostctl help|man) .*\n)+/);
      // The sandbox parses its own flags; it takes no global one.
      if (path.length > 0 && path[0] !== 'sandbox') expect(r.stdout, name).toMatch(/\nInherited Options:\n(?:.*\n)*? {2}--base-url <url>.*\n(?:.*\n)*? {2}-o, --output <format>/);
      expect(r.stderr, name).toBe('');
    }
  });
});

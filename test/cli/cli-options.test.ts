// The global options and terminal behaviour end to end: -q, colour controls, the spinner
// on a terminal, batch `get` chunking past 4 KiB of URL, and --help with examples for
// every command. hostctl in-process (test/support/inproc.ts) against real loopback servers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { runCli, runInPty, tmpDir, type RunResult } from '../support/inproc.js';
import { startAlt, startSandboxServer, type PlatformServer } from '../support/inproc.js';
import { buildProgram } from '../../src/cli.js';

const ESC = '\u001b';
/** An SGR colour (30–37, 90–97), as chalk writes for a status. */
const SGR_COLOUR = /\u001b\[(?:3[0-7]|9[0-7])m/;
const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

describe('terminal behaviour against the sandbox', () => {
  let server: PlatformServer;
  let config: { path: string; cleanup(): void };
  // CI=true turns spinners off (see IO); these tests are about a person's terminal.
  const env = (extra: Record<string, string | undefined> = {}) => ({
    HOSTCTL_BASE_URL: server.baseUrl,
    HOSTCTL_TOKEN: server.token,
    HOSTCTL_CONFIG_DIR: config.path,
    CI: undefined,
    ...extra,
  });

  beforeAll(async () => {
    server = await startSandboxServer(['--rate-limit', '100000']);
    config = tmpDir();
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
  });

  it('a table on a terminal colours the status column', async () => {
    const r = await runInPty(['apps', 'list'], { env: env() });
    expect(r.code).toBe(0);
    // The spinner is coloured too; look at a table row's status cell itself.
    expect(r.stdout).toMatch(/\u001b\[32mrunning\u001b\[39m/);
  });

  it('-q turns colour off too, as NO_COLOR does', async () => {
    const r = await runInPty(['apps', 'list', '-q'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(SGR_COLOUR);
    expect(r.stdout).toMatch(/running/);
  });

  it('--no-color, NO_COLOR and FORCE_COLOR=0 leave no escape sequence at all on a terminal', async () => {
    for (const [args, extra] of [
      [['apps', 'list', '--no-color'], {}],
      [['apps', 'list'], { NO_COLOR: '1' }],
      [['apps', 'list'], { FORCE_COLOR: '0' }],
    ] as const) {
      const r = await runInPty([...args], { env: env(extra) });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, `${args.join(' ')} ${JSON.stringify(extra)}`).not.toContain(ESC);
      expect(r.stdout).toMatch(/PUBLIC ID/);
    }
  });

  it('FORCE_COLOR=1 colours a table even into a pipe; a pipe is plain otherwise', async () => {
    const forced = await runCli(['apps', 'list', '-o', 'table'], { env: env({ FORCE_COLOR: '1' }) });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(SGR_COLOUR);
    const plain = await runCli(['apps', 'list', '-o', 'table'], { env: env() });
    expect(plain.stdout).not.toContain(ESC);
  });

  it('-q: no spinner and no notes on a terminal; errors still reach stderr', async () => {
    const quiet = await runInPty(['apps', 'list', '--all', '-q'], { env: env() });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).not.toMatch(SPINNER_FRAME);
    expect(quiet.stdout).not.toMatch(/Fetching/);
    const failed = await runCli(['apps', 'get', 'ap-doesnotexist', '-q'], { env: env() });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toBe('hostctl: not found: ap-doesnotexist\nRun "hostctl apps list" to see the apps this token can see.\n');
  });

  it('a terminal that reports 0 columns: no spinner (it would never stop clearing), a table of 80', async () => {
    const r = await runInPty(['apps', 'list', '--all'], { env: env(), columns: 0 });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(SPINNER_FRAME);
    expect(r.stdout).toMatch(/PUBLIC ID/);
    for (const line of r.stdout.split(/\r?\n/)) expect([...line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')].length).toBeLessThanOrEqual(80);
  });

  it('under CI (true, 1, True: what CI services set): no spinner even on a terminal; CI=false is no CI', async () => {
    for (const ci of ['true', '1', 'True']) {
      const r = await runInPty(['apps', 'list', '--all'], { env: env({ CI: ci }) });
      expect(r.code).toBe(0);
      expect(r.stdout, `CI=${ci}`).not.toMatch(SPINNER_FRAME);
    }
    const off = await runInPty(['apps', 'list', '--all'], { env: env({ CI: 'false' }) });
    expect(off.stdout).toMatch(SPINNER_FRAME);
  });

  it('no spinner when stderr is not a terminal, even with --all', async () => {
    const r = await runCli(['apps', 'list', '--all'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('the spinner counts pages during --all (alt server, 300 ms per response)', () => {
  let server: Awaited<ReturnType<typeof startAlt>>;
  let config: { path: string; cleanup(): void };
  beforeAll(async () => {
    server = await startAlt({ limit: 100000, delayMs: 300 });
    config = tmpDir();
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
  });

  it('shows "page N, M so far" on stderr while it walks, then clears the line for the table', async () => {
    const r = await runInPty(['environments', 'list', '--all', '--fields', 'publicId'], {
      env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path, CI: undefined },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(SPINNER_FRAME);
    expect(r.stdout).toMatch(/page [2-9], \d+ so far/);
    // 120 environments in pages of 25: five requests, every object printed once.
    expect(server.alt.requests).toHaveLength(5);
    expect(r.stdout.match(/en-[0-9a-z]{6}/g)).toHaveLength(120);
  });
});

const servers: Array<[string, () => Promise<PlatformServer>]> = [
  ['sandbox', () => startSandboxServer(['--rate-limit', '100000'])],
  ['alt', () => startAlt({ limit: 100000 })],
];

describe.each(servers)('batch get past 4 KiB of URL against %s', (_name, start) => {
  let server: PlatformServer;
  let config: { path: string; cleanup(): void };
  // 200 IDs of 48 characters: about 12 KiB of publicId[] parameters.
  const ids = Array.from({ length: 200 }, (_, i) => `ap-chunk-${String(i).padStart(3, '0')}-${'x'.repeat(35)}`);

  beforeAll(async () => {
    server = await start();
    config = tmpDir();
    await server.plant(
      'apps',
      ids.map((publicId, i) => ({ publicId, name: `chunked-${i}`, status: 'running' })),
    );
  });
  afterAll(async () => {
    await server?.stop();
    config?.cleanup();
  });

  it('splits into requests of at most 4 KiB of URL, asks for each ID once, and prints in the order asked', async () => {
    const asked = [...ids].reverse();
    await server.clearRequests();
    const r: RunResult = await runCli(['apps', 'get', ...asked, '--json', '--fields', 'publicId'], {
      env: { HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: server.token, HOSTCTL_CONFIG_DIR: config.path },
    });
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

  it('every command answers --help with a description, two examples or more, its inherited flags and where to read more, exit 0', async () => {
    const paths = [[], ...commandPaths(buildProgram())];
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) {
      const r = await runCli([...path, '--help']);
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

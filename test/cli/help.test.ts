// Help that teaches and forgiving commands, as a user meets them: `hostctl help <topic>`,
// groups without a subcommand, the singular aliases and `view`, `hostctl version`, and the
// first example of `hostctl --help` pasted into a real bash.

import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cliTest } from '../support/fixtures.js';
import { ROOT, runCli } from '../support/inproc.js';
import { HELP_TOPICS } from '../../src/help/names.js';

const test = cliTest({ sandbox: ['--rate-limit', '1000'], runOnSandbox: true });

/** The topics the contract names (cli-contract.md, "hostctl help [command|topic]"), not read from src/. */
const TOPICS = ['environment', 'exit-codes', 'formatting', 'rate-limit', 'sandbox', 'accessibility'];
/** Topics the contract names as coming with their commands. */
const LATER_TOPICS = ['mcp', 'fleet'];

describe('hostctl help <topic>', () => {
  it('lists every topic under `hostctl help`, which is the root help, on stdout with exit 0', async () => {
    const r = await runCli(['help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: hostctl /);
    for (const t of TOPICS) expect(r.stdout).toContain(`hostctl help ${t}`);
    expect(r.stdout).toBe((await runCli(['--help'])).stdout);
    // No topic the contract does not name, and every topic the program has is listed.
    const listed = [...r.stdout.matchAll(/hostctl help ([a-z-]+)/g)].map((m) => m[1]!).filter((t) => !['command', 'topic'].includes(t));
    for (const t of listed) expect([...TOPICS, ...LATER_TOPICS]).toContain(t);
    expect(new Set(listed)).toEqual(new Set(Object.keys(HELP_TOPICS)));
  });

  it.each(TOPICS)('prints the topic %s, exit 0', async (topic) => {
    const r = await runCli(['help', topic]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    // A topic of its own, not the root help that commander falls back to.
    expect(r.stdout).not.toMatch(/^Usage:/);
    expect(r.stdout.length).toBeGreaterThan(400);
  });

  it('fleet: at any width, every example is a command of its own, on its own line (with its " \\" continuations)', async () => {
    for (const columns of [60, 80, 120]) {
      const r = await runCli(['help', 'fleet'], { columns });
      expect(r.code).toBe(0);
      const lines = r.stdout.split('\n');
      // An indented line is an example: a "$ " command, or the continuation of the one above.
      lines.forEach((line, i) => {
        if (!/^\s/.test(line) || line.trim() === '') return;
        const continues = (lines[i - 1] ?? '').endsWith(' \\');
        expect(/^\s*\$ /.test(line) || continues, `${columns} columns: "${line}"`).toBe(true);
      });
      const commands = lines.filter((l) => /^\s*\$ /.test(l));
      expect(commands.length, `${columns} columns`).toBeGreaterThanOrEqual(3);
    }
  });

  it('exit-codes names every code of the contract', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    const listed = [...r.stdout.matchAll(/^ {2}(\d+) +\S/gm)].map((m) => Number(m[1]));
    expect(listed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 130, 143]);
  });

  it('prints the help of a command, aliases too', async () => {
    const r = await runCli(['help', 'env', 'view']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe((await runCli(['environments', 'get', '--help'])).stdout);
  });

  it('an unknown topic or command: exit 2, one sentence and a suggestion, nothing on stdout', async () => {
    const r = await runCli(['help', 'exitcodes']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'hostctl: There is no help topic or command "exitcodes".\nDid you mean "hostctl help exit-codes"? Run "hostctl help" for the commands and topics.\n',
    });
    const sub = await runCli(['help', 'apps', 'lst']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('Did you mean "hostctl help apps list"');
    const none = await runCli(['help', 'zzzzzz']);
    expect(none.code).toBe(2);
    expect(none.stderr).not.toContain('Did you mean');
  });

  it('an unknown command still gets its suggestion and exit 2', async () => {
    const r = await runCli(['aps', 'list']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^hostctl: unknown command 'aps'\n\(Did you mean .*\bapps\b/);
  });

  it("commander's own usage errors carry the prefix of every hostctl message", async () => {
    for (const args of [['apps', 'list', '--bogus'], ['apps', 'get'], ['-o']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^hostctl: (unknown option '--bogus'|missing required argument|option '-o, --output <format>' argument missing)/);
      expect(r.stderr, args.join(' ')).not.toMatch(/^error:/m);
    }
  });

  it('the topics are not in the program that every command loads', () => {
    const program = readFileSync(join(ROOT, 'dist', 'hostctl.cjs'), 'latin1');
    expect(program).not.toContain('Start it in the background of this shell');
    const chunks = readdirSync(join(ROOT, 'dist', 'chunks')).filter((f) => f.startsWith('help-'));
    expect(chunks).toHaveLength(1);
  });
});

describe('a group without its subcommand prints its help on stdout, exit 0', () => {
  it.each([[[]], [['apps']], [['auth']], [['config']], [['env']]])('hostctl %j', async (args) => {
    const r = await runCli(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe((await runCli([...args, '--help'])).stdout);
  });
});

describe('hostctl version', () => {
  it('prints hostctl, Node.js and the platform', async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const r = await runCli(['version']);
    expect(r).toEqual({ code: 0, stdout: `hostctl ${version}\nNode.js ${process.version} on ${process.platform}-${process.arch}\n`, stderr: '' });
    const json = await runCli(['version', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ version, node: process.version, platform: process.platform, arch: process.arch });
  });
});

describe('singular nouns and view, against the sandbox', () => {
  test.for<[string, string]>([
    ['app', 'apps'],
    ['env', 'environments'],
    ['environment', 'environments'],
    ['deployment', 'deployments'],
    ['domain', 'domains'],
    ['team', 'teams'],
    ['person', 'people'],
    ['payment-method', 'payment-methods'],
  ])('%s list is %s list', async ([alias, name], { hostctl }) => {
    const a = await hostctl([alias, 'list', '--limit', '3', '-o', 'tsv']);
    const b = await hostctl([name, 'list', '--limit', '3', '-o', 'tsv']);
    expect(a.code).toBe(0);
    expect(a.stdout.trim().split('\n')).toHaveLength(3);
    expect(a).toEqual(b);
  });

  test('view is get', async ({ hostctl }) => {
    const ids = (await hostctl(['apps', 'list', '--limit', '2', '-o', 'tsv', '--fields', 'publicId'])).stdout.trim().split('\n');
    const viewed = await hostctl(['app', 'view', ...ids, '--json']);
    expect(viewed.code).toBe(0);
    expect(viewed).toEqual(await hostctl(['apps', 'get', ...ids, '--json']));
    expect((JSON.parse(viewed.stdout) as { publicId: string }[]).map((a) => a.publicId)).toEqual(ids);
  });
});


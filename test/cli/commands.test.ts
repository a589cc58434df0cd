// `hostctl commands [--json]` (issue 27): the command tree as data, read off the same
// commander tree as --help, the man pages and the completions. What it lists must be true:
// each command it names runs --help, and each flag it lists is accepted by the parser
// (the program's, or the sandbox's own for `hostctl sandbox`).

import { Readable } from 'node:stream';
import { describe, expect } from 'vitest';
import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { cliTest } from '../support/fixtures.js';
import { MemoryStream } from '../support/memory-stream.js';
import { buildProgram } from '../../src/cli.js';
import { sandboxProgram } from '../../src/sandbox/main.js';
import type { CommandData, FlagData } from '../../src/help/tree.js';
import type { Runtime } from '../../src/runtime.js';

// The command tree is no world: every test here runs hostctl in its own home and config
// dir, with no server.
const test = cliTest()
  /** hostctl commands with these words; exit 0 and nothing on stderr. */
  .extend('commands', ({ hostctl }) => async (args: string[]): Promise<string> => {
    const r = await hostctl(['commands', ...args]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    return r.stdout;
  })
  /** What `hostctl commands --json` lists. */
  .extend('tree', async ({ commands }) => JSON.parse(await commands(['--json'])) as CommandData[]);

const words = (c: CommandData) => c.name.split(' ').slice(1);

/** A value the parser takes for a flag: its default, a choice, or any word. */
const valueFor = (f: FlagData): string[] => (f.type === 'boolean' ? [] : [f.default !== undefined ? String(f.default) : (f.choices?.[0] ?? 'x')]);

/** What the command needs besides the flag under test: its required arguments and flags. */
function requiredWords(c: CommandData, except: FlagData): string[] {
  const out: string[] = [];
  for (const f of c.flags) if (f.required && f !== except) out.push(f.name, ...valueFor(f));
  for (const a of c.arguments) if (a.required) out.push(a.choices?.[0] ?? 'x');
  return out;
}

function silentRuntime(): Runtime {
  return { env: {}, stdin: Readable.from([]), stdout: new MemoryStream(), stderr: new MemoryStream(), clock: { now: () => 0, sleep: async () => undefined } };
}

/** Parses these words with the program's parser, every command's run replaced by nothing. */
async function parses(argv: string[]): Promise<void> {
  const program = buildProgram(silentRuntime(), argv);
  const stub = (cmd: CommandUnknownOpts): void => {
    if (cmd.commands.length === 0) cmd.action(() => undefined);
    cmd.commands.forEach(stub);
  };
  stub(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    // --version prints and ends the parse: the flag was taken.
    if (err instanceof CommanderError && err.code === 'commander.version') return;
    throw err;
  }
}

describe('hostctl commands', () => {
  test('--json: every command with aliases, arguments, flags (with their kind, default, choices, repeats, inherited) and examples', async ({ tree: commands }) => {
    const names = commands.map((c) => c.name);
    for (const top of ['auth', 'apps', 'environments', 'api', 'docs', 'rate-limit', 'config', 'completion', 'sandbox', 'commands', 'help', 'version']) {
      expect(names).toContain(`hostctl ${top}`);
    }
    const byName = new Map(commands.map((c) => [c.name, c]));
    expect(byName.get('hostctl environments')?.aliases).toEqual(expect.arrayContaining(['envs', 'env']));
    expect(byName.get('hostctl apps')?.subcommands).toEqual(['list', 'get', 'wait']);
    const list = byName.get('hostctl apps list');
    expect(list?.examples.length).toBeGreaterThan(0);
    const flag = (c: CommandData | undefined, name: string) => c?.flags.find((f) => f.name === name);
    expect(flag(list, '--limit')).toMatchObject({ type: 'string', value: '<n>', inherited: false, repeats: false });
    expect(flag(list, '--all')).toMatchObject({ type: 'boolean', inherited: false });
    expect(flag(list, '--dry-run')).toMatchObject({ type: 'boolean', inherited: true });
    expect(flag(list, '--output')).toMatchObject({ short: '-o', choices: ['table', 'json', 'ndjson', 'tsv'], inherited: true });
    expect(flag(byName.get('hostctl apps wait'), '--for')).toMatchObject({ repeats: true });
    expect(byName.get('hostctl apps get')?.arguments).toEqual([{ name: 'publicId', required: true, variadic: true, description: expect.any(String) as unknown }]);
    // The sandbox's flags are its own parser's, with their defaults; it takes no global flag.
    const sandbox = byName.get('hostctl sandbox');
    expect(flag(sandbox, '--rate-limit')).toMatchObject({ default: 20, inherited: false });
    expect(sandbox?.flags.every((f) => !f.inherited)).toBe(true);
  });

  test('without --json: the same commands as an indented list, flags under each', async ({ tree: commands, hostctl }) => {
    const r = await hostctl(['commands']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    for (const c of commands) {
      const depth = c.name.split(' ').length - 1;
      const last = depth === 0 ? 'hostctl' : (c.name.split(' ').pop() ?? '');
      expect(lines.some((l) => l.startsWith(`${'  '.repeat(depth)}${last}`) && l.includes(c.description)), c.name).toBe(true);
    }
    expect(r.stdout).toMatch(/^ {2}apps \(app\) {2}/m);
    expect(r.stdout).toMatch(/^ {8}--limit <n> {2}/m);
  });

  describe('the output options every data command takes', () => {
    test('--jq runs over the tree as data, with or without --json', async ({ tree: all, commands }) => {
      expect(await commands(['--json', '--jq', '.[0].name'])).toBe(`${all[0]?.name}\n`);
      expect(await commands(['--jq', '[.[] | select(.name | startswith("hostctl apps "))] | length'])).toBe(`${all.filter((c) => c.name.startsWith('hostctl apps ')).length}\n`);
    });

    test('--fields keeps only those members, in json and ndjson', async ({ tree: all, commands }) => {
      expect(JSON.parse(await commands(['--json', '--fields', 'name,usage']))).toEqual(all.map((c) => ({ name: c.name, usage: c.usage })));
      const lines = (await commands(['-o', 'ndjson', '--fields', 'name'])).trimEnd().split('\n');
      expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(all.map((c) => ({ name: c.name })));
    });

    test('-o tsv: one line per command, its name then its description; --fields picks the cells', async ({ tree: all, commands }) => {
      expect(await commands(['-o', 'tsv'])).toBe(all.map((c) => `${c.name}\t${c.description}\n`).join(''));
      expect(await commands(['-o', 'tsv', '--fields', 'usage'])).toBe(all.map((c) => `${c.usage}\n`).join(''));
    });

    test('a bad --jq is a usage error (exit 2), as for every command', async ({ hostctl }) => {
      const r = await hostctl(['commands', '--json', '--jq', '.[']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    });
  });

  test('each command it lists runs --help', async ({ tree, hostctl }) => {
    for (const c of tree) {
      const r = await hostctl([...words(c), '--help']);
      expect(r.code, `${c.name} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout, c.name).toMatch(new RegExp(`^Usage: ${c.name.replace(/^hostctl sandbox$/, 'hostctl sandbox')}`, 'm'));
    }
  });

  test('each flag it lists is accepted by the parser of that command', async ({ tree: all }) => {
    let checked = 0;
    for (const c of all) {
      // A group given no subcommand shows its help whatever else is there: a flag of a
      // group is tried before one of its commands, as it would be used.
      const leaf = c.subcommands.length === 0 ? undefined : all.find((d) => d.name.startsWith(`${c.name} `) && d.subcommands.length === 0 && d.name !== 'hostctl sandbox');
      const after = (f: FlagData) => (leaf ? [...words(leaf).slice(words(c).length), ...requiredWords(leaf, f)] : requiredWords(c, f));
      for (const f of c.flags) {
        const argv = [...words(c), f.name, ...valueFor(f), ...after(f)];
        if (c.name === 'hostctl sandbox') {
          sandboxProgram(new MemoryStream()).parse(argv.slice(1), { from: 'user' });
        } else {
          await expect(parses(argv), argv.join(' ')).resolves.toBeUndefined();
          if (f.short) await expect(parses([...words(c), f.short, ...valueFor(f), ...after(f)]), `${c.name} ${f.short}`).resolves.toBeUndefined();
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  test('a flag that does not exist is refused by the same check (the check can fail)', async () => {
    await expect(parses(['apps', 'list', '--no-such-flag'])).rejects.toThrow(/unknown option/);
  });
});

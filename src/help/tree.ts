// The command tree as data: what `hostctl commands [--json]` prints. Read off the same
// commander tree that parses, prints --help, the man pages (reference.ts) and the
// completions (complete.ts completionSpec), so a flag is written once, in its definition.
// Loaded only by `hostctl commands`.

import type { Argument, CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { HostctlCommand, commandPath } from '../commands/command.js';

export interface FlagData {
  /** The long form, `--limit`; a flag with a short form only has that here. */
  name: string;
  short?: string;
  /** `boolean` takes no value; `string` takes one (its placeholder in `value`). */
  type: 'boolean' | 'string';
  /** The placeholder of its value: `<n>`, `[file]`. */
  value?: string;
  default?: unknown;
  choices?: string[];
  /** May be given more than once (each adds to a list). */
  repeats: boolean;
  /** Must be given. */
  required: boolean;
  /** A global flag, defined on `hostctl` and taken by every command. */
  inherited: boolean;
  description: string;
}

export interface ArgumentData {
  name: string;
  required: boolean;
  /** Takes several words. */
  variadic: boolean;
  choices?: string[];
  description: string;
}

export interface CommandData {
  /** The whole command line before its arguments: `hostctl apps list`. */
  name: string;
  aliases: string[];
  description: string;
  usage: string;
  arguments: ArgumentData[];
  flags: FlagData[];
  examples: string[];
  /** The words of its subcommands, for a group (`hostctl apps`). */
  subcommands: string[];
}

/**
 * The sandbox parses its own flags (main() hands them to src/sandbox/main.ts): the
 * program's `sandbox` is a stand-in, and its flags are these.
 */
export interface SandboxFlags {
  program: Command;
  examples: readonly string[];
}

function flagData(o: Option, inherited: boolean): FlagData {
  const takesValue = o.required || o.optional;
  const flag: FlagData = {
    name: o.long ?? o.short ?? o.flags,
    type: takesValue ? 'string' : 'boolean',
    repeats: o.variadic || Array.isArray(o.defaultValue),
    required: o.mandatory,
    inherited,
    description: o.description,
  };
  if (o.long && o.short) flag.short = o.short;
  if (takesValue) flag.value = /[<[].*[>\]]/.exec(o.flags)?.[0];
  // A negated flag's default (true) is commander's bookkeeping, not a value anyone gives.
  if (o.defaultValue !== undefined && !o.negate && !(Array.isArray(o.defaultValue) && o.defaultValue.length === 0)) flag.default = o.defaultValue;
  if (o.argChoices) flag.choices = [...o.argChoices];
  return flag;
}

function argumentData(a: Argument): ArgumentData {
  const arg: ArgumentData = { name: a.name(), required: a.required, variadic: a.variadic, description: a.description };
  if (a.argChoices) arg.choices = [...a.argChoices];
  return arg;
}

/** Every command of `program`, parents before children, in the order --help lists them. */
export function commandTree(program: Command, sandbox?: SandboxFlags): CommandData[] {
  const out: CommandData[] = [];
  const walk = (cmd: Command): void => {
    const help = cmd.createHelp();
    const own = sandbox && cmd.parent === program && cmd.name() === 'sandbox' ? sandbox : undefined;
    const flagsOf = own ? own.program : cmd;
    const ownHelp = flagsOf.createHelp();
    const name = ['hostctl', ...commandPath(cmd)].join(' ');
    out.push({
      name,
      aliases: cmd.aliases(),
      description: own ? own.program.description() : cmd.description(),
      usage: own ? 'hostctl sandbox [options]' : `hostctl ${help.commandUsage(cmd).replace(/^hostctl ?/, '')}`.trimEnd(),
      arguments: cmd.registeredArguments.map(argumentData),
      flags: [
        // --help is every command's, and says nothing about this one.
        ...ownHelp.visibleOptions(flagsOf).filter((o) => o.long !== '--help').map((o) => flagData(o, false)),
        // The sandbox takes no global flag: its words go to its own parser.
        ...(own ? [] : help.visibleGlobalOptions(cmd).filter((o) => o.long !== '--help').map((o) => flagData(o, true))),
      ],
      examples: own ? [...own.examples] : cmd instanceof HostctlCommand ? [...cmd.exampleLines] : [],
      subcommands: cmd.commands.map((c) => c.name()),
    });
    for (const sub of cmd.commands) walk(sub);
  };
  walk(program);
  return out;
}

/** The same tree as an indented list, for a person: each command, then its own flags under it. */
export function commandTreeText(commands: readonly CommandData[]): string {
  const lines: string[] = [];
  for (const c of commands) {
    const depth = c.name.split(' ').length - 1;
    const indent = '  '.repeat(depth);
    const args = c.arguments.map((a) => (a.required ? `<${a.name}${a.variadic ? '...' : ''}>` : `[${a.name}${a.variadic ? '...' : ''}]`));
    const head = [depth === 0 ? c.name : (c.name.split(' ').pop() ?? ''), ...args].join(' ');
    const aliases = c.aliases.length > 0 ? ` (${c.aliases.join(', ')})` : '';
    lines.push(`${indent}${head}${aliases}  ${c.description}`);
    // Inherited flags are the root's own: listed once, there.
    for (const f of c.flags.filter((f) => !f.inherited)) {
      const term = [f.short, f.name].filter(Boolean).join(', ') + (f.value ? ` ${f.value}` : '');
      const extra = [f.choices ? `one of ${f.choices.join(', ')}` : '', f.default !== undefined ? `default ${String(f.default)}` : '', f.repeats ? 'repeatable' : '', f.required ? 'required' : ''].filter(Boolean);
      lines.push(`${indent}    ${term}  ${f.description}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

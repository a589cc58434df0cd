// The command every hostctl command is made of: commander's (typed by
// @commander-js/extra-typings, the same class at run time), plus what help and the
// generated reference (docs/commands.md, man/) read off it: examples and the help topics
// to read next. extra-typings' chained methods that add an option or an argument return
// commander's type, not this one: a definition calls examples() and seeAlso() first. Help that teaches, as gh's does: the inherited global flags, examples,
// and where to read more, under every command.

import { Command, Help, type CommandUnknownOpts, type HelpConfiguration, type HelpContext } from '@commander-js/extra-typings';
import { HELP_TOPICS } from '../help/names.js';
import { wrapCommand, wrapWords } from '../help/wrap.js';

export class HostctlCommand extends Command {
  /** Command lines, shown after "$ " under "Examples:". */
  readonly exampleLines: string[] = [];
  /** Help topics worth reading next, by name (`hostctl help <topic>`). */
  readonly topicNames: string[] = [];

  override createCommand(name?: string): HostctlCommand {
    return new HostctlCommand(name);
  }

  examples(lines: readonly string[]): this {
    this.exampleLines.push(...lines);
    return this;
  }

  seeAlso(topics: readonly string[]): this {
    for (const t of topics) {
      if (!(t in HELP_TOPICS)) throw new Error(`No help topic "${t}".`);
      this.topicNames.push(t);
    }
    return this;
  }

  // commander answers a group run without its subcommand (`hostctl`, `hostctl apps`) with
  // its help on stderr and exit 1. The help is what was asked for: stdout and exit 0, as gh.
  override help(context?: HelpContext): never;
  override help(cb: (str: string) => string): never;
  override help(arg?: HelpContext | ((str: string) => string)): never {
    if (typeof arg === 'function') return super.help(arg);
    return super.help(arg?.error ? undefined : arg);
  }
}

/** The words of a command after "hostctl": ["apps", "list"]. */
export function commandPath(cmd: CommandUnknownOpts): string[] {
  const path: string[] = [];
  for (let c: CommandUnknownOpts | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
  return path;
}

/** The name of a command's man page: hostctl-apps-list. */
export function manPageName(cmd: CommandUnknownOpts): string {
  return ['hostctl', ...commandPath(cmd)].join('-');
}

/** What every --help adds to commander's: inherited options, examples, topics, pages. */
export const TEACHING_HELP: HelpConfiguration = {
  showGlobalOptions: true,
  formatItemList(this: Help, heading: string, items: string[], helper: Help): string[] {
    // gh's name for the global flags a subcommand accepts.
    return Help.prototype.formatItemList.call(this, heading === 'Global Options:' ? 'Inherited Options:' : heading, items, helper);
  },
  formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
    const width = this.helpWidth ?? 80;
    // commander leaves a description it cannot wrap beside its term (fewer than
    // minWidthToWrap columns left) unwrapped, and the terminal then breaks it mid-word:
    // on a narrow terminal the description goes under its term instead, wrapped.
    if (description === '' || width - termWidth - 4 >= this.minWidthToWrap) {
      return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    }
    return [`  ${term}`, ...wrapWords(description, width - 6).map((l) => `      ${l}`)].join('\n');
  },
  formatHelp(this: Help, cmd: CommandUnknownOpts, helper: Help): string {
    return Help.prototype.formatHelp.call(this, cmd, helper) + teachingSections(cmd, helper);
  },
};

function teachingSections(cmd: CommandUnknownOpts, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const out: string[] = [''];
  const examples = cmd instanceof HostctlCommand ? cmd.exampleLines : [];
  if (examples.length > 0) {
    out.push('Examples:', ...examples.flatMap((l) => wrapCommand(l, width - 6).map((part, n) => (n === 0 ? `  $ ${part}` : `      ${part}`))), '');
  }
  const rows: [string, string][] = [];
  if (!cmd.parent) {
    out.push('Help topics:', ...table(Object.entries(HELP_TOPICS).map(([t, summary]) => [`hostctl help ${t}`, summary]), helper), '');
  } else if (cmd instanceof HostctlCommand) {
    for (const t of cmd.topicNames) rows.push([`hostctl help ${t}`, HELP_TOPICS[t] ?? '']);
  }
  rows.push([`man ${manPageName(cmd)}`, `this help as a manual page (also docs/commands.md)`]);
  out.push('Learn more:', ...table(rows, helper), '');
  return out.join('\n');
}

function table(rows: [string, string][], helper: Help): string[] {
  const width = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => helper.formatItem(a, width, b, helper));
}

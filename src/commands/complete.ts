// The engine behind the shell scripts in completions/: `hostctl __complete <words…>`.
// It walks the same commander tree that parses real commands, so a new command or flag
// completes without touching this file. It runs on every Tab press, so it reads only the
// config and state files: no request, no keychain, no HTTP or table modules.
//
// Protocol (shared by the bash, zsh and fish scripts): the words are the command line
// after "hostctl" up to and including the word under the cursor (possibly empty). Each
// stdout line is one candidate, optionally followed by a tab and a description; a line
// ":files" asks the shell for its own file-name completion. The exit code is always 0.

import { Help, type Command, type Option } from 'commander';
import { buildProgram } from '../cli.js';
import { readConfig, OUTPUT_FORMATS, type ConfigData } from '../config/config.js';
import { stateFile } from '../config/paths.js';
import { StateStore } from '../config/state.js';
import { RESOURCES, findResource } from '../resources.js';

export interface Candidate {
  value: string;
  description?: string;
}

/** The directive line that asks the shell to complete file names. */
export const FILES_DIRECTIVE = ':files';

const SHELLS = ['bash', 'zsh', 'fish'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** What `config get|set|unset` accepts for each profile (the contract's config keys). */
const PROFILE_KEYS = ['baseUrl', 'output', 'storage'];
const SETTABLE_PROFILE_KEYS = ['baseUrl', 'output'];
/** Only plain IDs are offered: the state file is written from API data, which may be hostile. */
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export async function completeMain(words: string[]): Promise<number> {
  let lines: string[] = [];
  try {
    lines = format(complete(words, process.env));
  } catch {
    // A broken config or an unexpected tree must never print an error into the prompt.
  }
  if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function format(result: Candidate[] | 'files'): string[] {
  if (result === 'files') return [FILES_DIRECTIVE];
  return result.map((c) => (c.description ? `${c.value}\t${oneLine(c.description)}` : c.value));
}

/** A tab or newline would break the line protocol; control characters would reach the terminal. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

interface Walk {
  cmd: Command;
  /** Positional arguments given to `cmd` so far. */
  args: string[];
  /** Values of options seen so far, by long flag (`--profile`). */
  values: Map<string, string>;
  /** The option whose value is the current word, if any. */
  pending?: Option;
}

/** The candidates for the last word of `words`, or 'files' for file-name completion. */
export function complete(words: readonly string[], env: NodeJS.ProcessEnv): Candidate[] | 'files' {
  const program = buildProgram();
  const prior = words.slice(0, -1);
  const current = words[words.length - 1] ?? '';
  const walk = walkWords(program, prior);
  const sources = new Sources(env, walk.values);

  // The sandbox parses its own flags (see cli.ts); its completion would need a second list.
  if (walk.cmd.name() === 'sandbox') return [];

  if (walk.pending) return filter(optionValues(walk.pending, walk, sources), current);

  if (current.startsWith('--') && current.includes('=')) {
    const eq = current.indexOf('=');
    const flag = current.slice(0, eq);
    const opt = findOption(walk.cmd, flag);
    if (!opt || !takesValue(opt)) return [];
    const values = optionValues(opt, walk, sources);
    if (values === 'files') return values;
    return filter(
      values.map((c) => ({ ...c, value: `${flag}=${c.value}` })),
      current,
    );
  }

  if (current.startsWith('-')) return filter(optionCandidates(walk.cmd, current), current);

  if (walk.args.length === 0) {
    const subs = subcommandCandidates(walk.cmd);
    if (subs.length > 0) return filter(subs, current);
  }
  return filter(argumentValues(walk, sources), current);
}

function walkWords(program: Command, words: readonly string[]): Walk {
  const walk: Walk = { cmd: program, args: [], values: new Map() };
  let onlyArgs = false;
  for (const word of words) {
    if (walk.pending) {
      walk.values.set(flagName(walk.pending), word);
      walk.pending = undefined;
      continue;
    }
    if (onlyArgs || word === '-' || !word.startsWith('-')) {
      const sub = walk.args.length === 0 && !onlyArgs ? findSubcommand(walk.cmd, word) : undefined;
      if (sub) walk.cmd = sub;
      else walk.args.push(word);
      continue;
    }
    if (word === '--') {
      onlyArgs = true;
      continue;
    }
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const opt = findOption(walk.cmd, eq === -1 ? word : word.slice(0, eq));
      if (!opt) continue;
      if (eq !== -1) walk.values.set(flagName(opt), word.slice(eq + 1));
      else if (opt.required) walk.pending = opt;
      continue;
    }
    // Short flags may be grouped (-vR) and the last may carry its value (-ojson).
    for (let i = 1; i < word.length; i++) {
      const opt = findOption(walk.cmd, `-${word[i]}`);
      if (!opt || !takesValue(opt)) continue;
      const rest = word.slice(i + 1);
      if (rest) walk.values.set(flagName(opt), rest);
      else if (opt.required) walk.pending = opt;
      break;
    }
  }
  return walk;
}

function findSubcommand(cmd: Command, word: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/** The command's own options, then those of its parents (global options work anywhere). */
function optionsInScope(cmd: Command): Option[] {
  const help = new Help();
  const seen = new Set<string>();
  const out: Option[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const opt of help.visibleOptions(c)) {
      const key = opt.long ?? opt.short ?? '';
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(opt);
    }
  }
  return out;
}

function findOption(cmd: Command, flag: string): Option | undefined {
  return optionsInScope(cmd).find((o) => o.long === flag || o.short === flag);
}

function takesValue(opt: Option): boolean {
  return opt.required || opt.optional;
}

function flagName(opt: Option): string {
  return opt.long ?? opt.short ?? '';
}

function optionCandidates(cmd: Command, current: string): Candidate[] {
  const out: Candidate[] = [];
  for (const opt of optionsInScope(cmd)) {
    if (opt.long) out.push({ value: opt.long, description: opt.description });
    // Short flags only when the user has typed a single dash, as gh and kubectl do.
    if (opt.short && !current.startsWith('--')) out.push({ value: opt.short, description: opt.description });
  }
  return out;
}

function subcommandCandidates(cmd: Command): Candidate[] {
  const out: Candidate[] = [];
  for (const sub of new Help().visibleCommands(cmd)) {
    // commander adds a `help` subcommand to every group; offering it under `apps` is noise.
    if (sub.name() === 'help' && cmd.parent) continue;
    const description = sub.description();
    out.push({ value: sub.name(), description });
    for (const alias of sub.aliases()) out.push({ value: alias, description });
  }
  return out;
}

function optionValues(opt: Option, walk: Walk, sources: Sources): Candidate[] | 'files' {
  if (opt.argChoices) return opt.argChoices.map((value) => ({ value }));
  switch (opt.long) {
    case '--profile':
      return sources.profiles();
    case '--environment':
      return sources.ids('environments');
    case '--input':
      return 'files';
    case '--method':
      return METHODS.map((value) => ({ value }));
    case '--fields': {
      const resource = resourceOf(walk.cmd);
      return resource ? ['publicId', ...resource.columns].map((value) => ({ value })) : [];
    }
    default:
      return [];
  }
}

/** The resource a `list`/`get` command belongs to. */
function resourceOf(cmd: Command) {
  return cmd.parent ? findResource(cmd.parent.name()) : undefined;
}

function argumentValues(walk: Walk, sources: Sources): Candidate[] {
  const { cmd, args } = walk;
  const group = cmd.parent?.name();
  const resource = resourceOf(cmd);
  if (resource && cmd.name() === 'get') {
    const given = new Set(args);
    return sources.ids(resource.name).filter((c) => !given.has(c.value));
  }
  if (group === 'config') {
    if (args.length === 0 && cmd.name() !== 'list' && cmd.name() !== 'path') {
      return sources.configKeys(cmd.name() === 'set' ? SETTABLE_PROFILE_KEYS : PROFILE_KEYS);
    }
    if (args.length === 1 && cmd.name() === 'set') return configValues(args[0] ?? '', sources);
    return [];
  }
  if (cmd.name() === 'completion' && args.length === 0) return SHELLS.map((value) => ({ value }));
  if (cmd.name() === 'api' && args.length === 0) {
    return RESOURCES.map((r) => ({ value: r.path, description: r.description }));
  }
  return [];
}

function configValues(key: string, sources: Sources): Candidate[] {
  if (key === 'defaultProfile') return sources.profiles();
  if (key.endsWith('.output')) return OUTPUT_FORMATS.map((value) => ({ value }));
  return [];
}

function filter(list: Candidate[] | 'files', current: string): Candidate[] | 'files' {
  if (list === 'files') return list;
  const seen = new Set<string>();
  return list.filter((c) => {
    if (!c.value.startsWith(current) || seen.has(c.value)) return false;
    seen.add(c.value);
    return true;
  });
}

/** Config and state, each read at most once and only when a candidate needs it. */
class Sources {
  private config?: ConfigData;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly values: Map<string, string>,
  ) {}

  private readConfig(): ConfigData {
    return (this.config ??= readConfig(this.env));
  }

  /** The same order as Context.profileName(): flag, environment, config, 'default'. */
  profileName(): string {
    return this.values.get('--profile') || this.env.HOSTCTL_PROFILE || this.readConfig().defaultProfile || 'default';
  }

  profiles(): Candidate[] {
    const config = this.readConfig();
    const names = new Set(Object.keys(config.profiles));
    if (config.defaultProfile) names.add(config.defaultProfile);
    names.add('default');
    return [...names].sort().map((value) => ({ value, description: config.profiles[value]?.baseUrl }));
  }

  ids(resource: string): Candidate[] {
    const store = new StateStore(stateFile(this.env));
    return store
      .knownIds(this.profileName(), resource)
      .filter((id) => PLAIN_ID.test(id))
      .map((value) => ({ value }));
  }

  configKeys(profileKeys: readonly string[]): Candidate[] {
    const out: Candidate[] = [{ value: 'defaultProfile', description: 'the profile used without --profile' }];
    for (const { value: name } of this.profiles()) {
      for (const key of profileKeys) out.push({ value: `profiles.${name}.${key}` });
    }
    return out;
  }
}

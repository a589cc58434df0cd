// The engine behind the shell scripts in completions/: `hostctl __complete <words…>`.
// It walks the same commander tree that parses real commands, and a flag's value or an
// argument completes by the hint its definition carries (src/commands/hints.ts), so a new
// command or flag completes without touching this file. It runs on every Tab press, so it reads only the
// config and state files: no request, no keychain, no HTTP or table modules, and in dist/
// not even commander: the build reads the tree off the program once (completionSpec) and
// bakes it in as data.
//
// Protocol (shared by the bash, zsh and fish scripts): the words are the command line
// after "hostctl" up to and including the word under the cursor (possibly empty). Each
// stdout line is one candidate, optionally followed by a tab and a description; a line
// ":files" asks the shell for its own file-name completion. The exit code is always 0.

import { oneLine } from '../output/sanitize.js';
import { writeSync } from 'node:fs';
import type { Argument, CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { readConfig, OUTPUT_FORMATS, type ConfigData } from '../config/config.js';
import { stateFile } from '../config/paths.js';
import { MAX_STATE_BYTES, StateStore } from '../config/state.js';
import { resolveBaseUrl, type ProfileInputs } from '../config/resolve.js';
import { linkOf, type Link } from '../config/link.js';
import { readKept } from '../reference/store.js';
import { RESOURCES, findResource } from '../resources.js';
import { HELP_TOPICS } from '../help/names.js';
import { completionHint, type CompletionHint } from './hints.js';

export interface Candidate {
  value: string;
  description?: string;
}

/** The directive line that asks the shell to complete file names. */
export const FILES_DIRECTIVE = ':files';

/** What `config get|set|unset` accepts for each profile (the contract's config keys). */
const PROFILE_KEYS = ['baseUrl', 'output', 'storage', 'cache', 'redisUrl'];
const SETTABLE_PROFILE_KEYS = ['baseUrl', 'output', 'cache', 'redisUrl'];
/** Only plain IDs are offered: the state file is written from API data, which may be hostile. */
const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** The same care for the reference's operation IDs (no slash: a slash makes a path). */
const PLAIN_OPERATION_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** Field names offered for --fields: plain ones only, for the same reason. */
const PLAIN_FIELD = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** The part of a commander command that completion reads, as plain data. */
export interface CommandSpec {
  name: string;
  aliases: string[];
  description: string;
  /** The command's own visible options, as help lists them (global ones are the parents'). */
  options: OptionSpec[];
  /** Its arguments, in order; the last may take many words. */
  arguments: ArgumentSpec[];
  /** The subcommands help lists, commander's implicit `help` included. */
  listed: { name: string; aliases: string[]; description: string }[];
  /** Every subcommand, for walking the words. */
  commands: CommandSpec[];
}

export interface OptionSpec {
  long?: string;
  short?: string;
  description: string;
  required: boolean;
  optional: boolean;
  argChoices?: string[];
  complete?: CompletionHint;
}

export interface ArgumentSpec {
  variadic: boolean;
  complete?: CompletionHint;
}

/** A CommandSpec with its parent, as the walk needs it. */
export interface Cmd extends CommandSpec {
  parent: Cmd | null;
  commands: Cmd[];
}

/** Reads the tree off a commander program: at build time for dist/, at run time from the sources. */
export function completionSpec(cmd: Command): CommandSpec {
  const help = cmd.createHelp();
  return {
    name: cmd.name(),
    aliases: cmd.aliases(),
    description: cmd.description(),
    options: help.visibleOptions(cmd).map((o: Option) => ({
      long: o.long,
      short: o.short,
      description: o.description,
      required: o.required,
      optional: o.optional,
      argChoices: o.argChoices,
      complete: completionHint(o),
    })),
    arguments: cmd.registeredArguments.map((a: Argument) => ({ variadic: a.variadic, complete: completionHint(a) })),
    listed: help.visibleCommands(cmd).map((c) => ({ name: c.name(), aliases: c.aliases(), description: c.description() })),
    commands: cmd.commands.map(completionSpec),
  };
}

/** The JSON text of completionSpec(buildProgram()), defined by the build. */
declare const __HOSTCTL_COMPLETION_SPEC__: string | undefined;

async function commandTree(): Promise<Cmd> {
  let spec: CommandSpec;
  if (typeof __HOSTCTL_COMPLETION_SPEC__ === 'string') {
    spec = JSON.parse(__HOSTCTL_COMPLETION_SPEC__) as CommandSpec;
  } else {
    const { buildProgram } = await import('../cli.js');
    spec = completionSpec(buildProgram());
  }
  return linkSpec(spec);
}

/** The spec with each command linked to its parent, as complete() walks it. */
export function linkSpec(spec: CommandSpec): Cmd {
  const link = (s: CommandSpec, parent: Cmd | null): Cmd => {
    const cmd: Cmd = { ...s, parent, commands: [] };
    cmd.commands = s.commands.map((c) => link(c, cmd));
    return cmd;
  };
  return link(spec, null);
}

export async function completeMain(words: string[]): Promise<number> {
  const lines = await completionLines(words, process.env);
  if (lines.length > 0) writeOut(`${lines.join('\n')}\n`);
  return 0;
}

/** The lines `hostctl __complete` prints for these words; the in-process tests call it. */
export async function completionLines(words: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): Promise<string[]> {
  try {
    return format(complete(words, env, await commandTree(), cwd));
  } catch {
    // A broken config or an unexpected tree must never print an error into the prompt.
    return [];
  }
}

/**
 * Straight to file descriptor 1: setting up process.stdout costs more than the rest of
 * a Tab press. A pipe that is full or non-blocking gets the rest through process.stdout.
 */
function writeOut(text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(1, bytes, done);
  } catch {
    process.stdout.write(bytes.subarray(done));
  }
}

function format(result: Candidate[] | 'files'): string[] {
  if (result === 'files') return [FILES_DIRECTIVE];
  return result.map((c) => (c.description ? `${c.value}\t${oneLine(c.description)}` : c.value));
}


interface Walk {
  cmd: Cmd;
  /** Positional arguments given to `cmd` so far. */
  args: string[];
  /** Values of options seen so far, by long flag (`--profile`). */
  values: Map<string, string>;
  /** The option whose value is the current word, if any. */
  pending?: OptionSpec;
}

/** The candidates for the last word of `words`, or 'files' for file-name completion. */
export function complete(words: readonly string[], env: NodeJS.ProcessEnv, program: Cmd, cwd = process.cwd()): Candidate[] | 'files' {
  const prior = words.slice(0, -1);
  const current = words[words.length - 1] ?? '';
  const walk = walkWords(program, prior);
  const sources = new Sources(env, walk.values, cwd);

  // The sandbox parses its own flags (see commands/sandbox.ts); its completion would need a second list.
  if (walk.cmd.name === 'sandbox') return [];

  if (walk.pending) return filter(listValues(walk.pending, optionValues(walk.pending, walk, sources), current), current);

  if (current.startsWith('--') && current.includes('=')) {
    const eq = current.indexOf('=');
    const flag = current.slice(0, eq);
    const opt = findOption(walk.cmd, flag);
    if (!opt || !takesValue(opt)) return [];
    const values = optionValues(opt, walk, sources);
    const listed = listValues(opt, values, current.slice(eq + 1));
    if (listed === 'files') return listed;
    return filter(
      listed.map((c) => ({ ...c, value: `${flag}=${c.value}` })),
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

function walkWords(program: Cmd, words: readonly string[]): Walk {
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

function findSubcommand(cmd: Cmd, word: string): Cmd | undefined {
  return cmd.commands.find((c) => c.name === word || c.aliases.includes(word));
}

/** The command's own options, then those of its parents (global options work anywhere). */
function optionsInScope(cmd: Cmd): OptionSpec[] {
  const seen = new Set<string>();
  const out: OptionSpec[] = [];
  for (let c: Cmd | null = cmd; c; c = c.parent) {
    for (const opt of c.options) {
      const key = opt.long ?? opt.short ?? '';
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(opt);
    }
  }
  return out;
}

function findOption(cmd: Cmd, flag: string): OptionSpec | undefined {
  return optionsInScope(cmd).find((o) => o.long === flag || o.short === flag);
}

function takesValue(opt: OptionSpec): boolean {
  return opt.required || opt.optional;
}

function flagName(opt: OptionSpec): string {
  return opt.long ?? opt.short ?? '';
}

function optionCandidates(cmd: Cmd, current: string): Candidate[] {
  const out: Candidate[] = [];
  for (const opt of optionsInScope(cmd)) {
    if (opt.long) out.push({ value: opt.long, description: opt.description });
    // Short flags only when the user has typed a single dash, as gh and kubectl do.
    if (opt.short && !current.startsWith('--')) out.push({ value: opt.short, description: opt.description });
  }
  return out;
}

function subcommandCandidates(cmd: Cmd): Candidate[] {
  const out: Candidate[] = [];
  for (const sub of cmd.listed) {
    // commander adds a `help` subcommand to every group; offering it under `apps` is noise.
    if (sub.name === 'help' && cmd.parent) continue;
    const description = sub.description;
    out.push({ value: sub.name, description });
    for (const alias of sub.aliases) out.push({ value: alias, description });
  }
  return out;
}

/**
 * `--fields a,b,<Tab>`: a comma-separated list completes its last item, each candidate
 * carrying the items before it; items already given are not offered again.
 */
function listValues(opt: OptionSpec, values: Candidate[] | 'files', current: string): Candidate[] | 'files' {
  if (opt.complete !== 'fields' || values === 'files') return values;
  const comma = current.lastIndexOf(',');
  const before = current.slice(0, comma + 1);
  const given = new Set(before.split(',').filter(Boolean));
  return values.filter((c) => !given.has(c.value)).map((c) => ({ ...c, value: `${before}${c.value}` }));
}

function optionValues(opt: OptionSpec, walk: Walk, sources: Sources): Candidate[] | 'files' {
  if (opt.argChoices) return opt.argChoices.map((value) => ({ value }));
  return hintValues(opt.complete, walk, sources);
}

/** The resource a `list`/`get`/`wait` command belongs to. */
function resourceOf(cmd: Cmd) {
  return cmd.parent ? findResource(cmd.parent.name) : undefined;
}

function argumentValues(walk: Walk, sources: Sources): Candidate[] {
  const { cmd, args } = walk;
  const last = cmd.arguments[cmd.arguments.length - 1];
  const arg = cmd.arguments[args.length] ?? (last?.variadic ? last : undefined);
  const values = arg ? hintValues(arg.complete, walk, sources) : [];
  if (values === 'files') return [];
  // IDs already given are not offered again.
  return typeof arg?.complete === 'object' && 'ids' in arg.complete ? values.filter((c) => !args.includes(c.value)) : values;
}

/** The candidates a definition's hint stands for (src/commands/hints.ts). */
function hintValues(hint: CompletionHint | undefined, walk: Walk, sources: Sources): Candidate[] | 'files' {
  if (hint === undefined) return [];
  if (typeof hint === 'object') {
    if ('values' in hint) return hint.values.map((value) => ({ value }));
    if ('ids' in hint) return sources.ids(hint.ids);
    const resource = findResource(hint.conditions);
    return resource ? ['status', ...resource.columns.filter((c) => c !== 'status')].map((c) => ({ value: `${c}=` })) : [];
  }
  switch (hint) {
    case 'files':
      return 'files';
    case 'profiles':
      return sources.profiles();
    case 'fields': {
      // The declared columns, then every field seen in this resource's objects before.
      const resource = resourceOf(walk.cmd);
      return resource ? [...new Set(['publicId', ...resource.columns, ...sources.fields(resource.name)])].map((value) => ({ value })) : [];
    }
    case 'config-keys':
      return sources.configKeys(PROFILE_KEYS);
    case 'settable-config-keys':
      return sources.configKeys(SETTABLE_PROFILE_KEYS);
    case 'config-value':
      return configValues(walk.args[0] ?? '', sources);
    case 'api-targets':
      return [...RESOURCES.map((r) => ({ value: r.path, description: r.description })), ...sources.operationIds()];
    case 'help':
      return walk.cmd.parent && !walk.cmd.parent.parent ? helpCandidates(walk.cmd.parent, walk.args) : [];
  }
}

/** `hostctl help <Tab>`: the topics and the commands, then the subcommands of what was given. */
function helpCandidates(program: Cmd, args: readonly string[]): Candidate[] {
  let cmd = program;
  for (const word of args) {
    const sub = findSubcommand(cmd, word);
    if (!sub) return [];
    cmd = sub;
  }
  const commands = subcommandCandidates(cmd).filter((c) => c.value !== 'help');
  if (cmd !== program) return commands;
  return [...Object.entries(HELP_TOPICS).map(([value, description]) => ({ value, description })), ...commands];
}

function configValues(key: string, sources: Sources): Candidate[] {
  if (key === 'defaultProfile') return sources.profiles();
  if (key === 'accessible') return [{ value: 'true' }, { value: 'false' }];
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
    private readonly cwd: string,
  ) {}

  private linked?: { link: Link | undefined };

  /** The link of the working directory, as a command finds it; a file hostctl refuses links nothing here. */
  private link(): Link | undefined {
    if (!this.linked) {
      try {
        this.linked = { link: linkOf(this.cwd) };
      } catch {
        this.linked = { link: undefined };
      }
    }
    return this.linked.link;
  }

  /** Tab never prints an error into the prompt: a config hostctl refuses offers nothing from it. */
  private readConfig(): ConfigData {
    if (!this.config) {
      try {
        this.config = readConfig(this.env);
      } catch {
        this.config = { profiles: {} };
      }
    }
    return this.config;
  }

  /** What Context resolves the profile and the base URL from, read off the line being completed. */
  private inputs(): ProfileInputs {
    return { profile: this.values.get('--profile'), baseUrl: this.values.get('--base-url'), env: this.env, linkedProfile: () => this.link()?.profile, config: () => this.readConfig() };
  }

  profiles(): Candidate[] {
    const config = this.readConfig();
    const names = new Set(Object.keys(config.profiles));
    if (config.defaultProfile) names.add(config.defaultProfile);
    names.add('default');
    return [...names].sort().map((value) => ({ value, description: config.profiles[value]?.baseUrl }));
  }

  private store?: StateStore;

  private state(): StateStore {
    // A file larger than hostctl writes is skipped: Tab must answer at once.
    return (this.store ??= new StateStore(stateFile(this.env), [], MAX_STATE_BYTES));
  }

  /**
   * The base URL in effect, as Context.baseUrl() finds it (src/config/resolve.ts). Where
   * the command would stop at a usage error (`--profile ''`), Tab offers nothing: it never throws.
   */
  private rawBaseUrl(): string | undefined {
    try {
      return resolveBaseUrl(this.inputs())?.url;
    } catch {
      return undefined;
    }
  }

  /** The base URL in effect as a URL, which the ID cache is keyed by; undefined where there is none. */
  private baseUrl(): URL | undefined {
    const raw = this.rawBaseUrl();
    return raw !== undefined && URL.canParse(raw) ? new URL(raw) : undefined;
  }

  /**
   * IDs seen on this base URL, with the names seen beside them as descriptions (zsh, fish).
   * In a linked directory the linked app comes first among apps, seen or not (the IDs seen
   * carry no relations, so the app's own objects cannot be told apart from the rest).
   */
  ids(resource: string): Candidate[] {
    const base = this.baseUrl();
    if (base === undefined) return [];
    const names = this.state().knownNames(base);
    const linked = resource === 'apps' ? this.link()?.app : undefined;
    const seen = this.state().knownIds(base, resource);
    return [...(linked === undefined ? [] : [linked]), ...seen.filter((id) => id !== linked)]
      .filter((id) => PLAIN_ID.test(id))
      .map((value) => ({ value, description: Object.hasOwn(names, value) ? names[value] : value === linked ? 'linked here' : undefined }));
  }

  fields(resource: string): string[] {
    const base = this.baseUrl();
    return base === undefined ? [] : this.state().knownFields(base, resource).filter((f) => PLAIN_FIELD.test(f));
  }

  /** The operation IDs of the kept reference for the base URL in effect (no request, whatever its age). */
  operationIds(): Candidate[] {
    const base = this.rawBaseUrl();
    if (!base) return [];
    const ops = readKept(base, this.env)?.operations ?? [];
    return ops.flatMap((op) => (op.operationId !== null && PLAIN_OPERATION_ID.test(op.operationId) ? [{ value: op.operationId, description: `${op.method} ${op.path}` }] : []));
  }

  configKeys(profileKeys: readonly string[]): Candidate[] {
    const out: Candidate[] = [
      { value: 'defaultProfile', description: 'the profile used without --profile' },
      { value: 'accessible', description: 'no animation, no redraws, nothing by colour alone' },
    ];
    for (const { value: name } of this.profiles()) {
      for (const key of profileKeys) out.push({ value: `profiles.${name}.${key}` });
    }
    return out;
  }
}

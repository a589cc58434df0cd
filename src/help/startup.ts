// What bin/hostctl.js must know about a command line before it loads the program, written
// where the command or flag is defined: `sendsNothing(…)` on a top-level command or flag
// that never sends a request nor needs a token's fingerprint (the loader then skips
// loading Node's HTTP built-ins early), `hashes(…)` on one that hashes with node:crypto
// (loaded early, before the program's V8 flag, where Node's own code cache still holds).
// The build reads the marks off the program (startupFacts) into dist/start.json, which
// the loader reads; nothing here runs at start-up.

import type { CommandUnknownOpts as Command, Help, Option } from '@commander-js/extra-typings';

type Mark = { readonly sendsNothing: true } | { readonly hashes: true; readonly env: readonly string[] };

const marks = new WeakMap<object, Mark>();

export function sendsNothing<T extends object>(target: T): T {
  marks.set(target, { sendsNothing: true });
  return target;
}

/** `env`: variables that make the run hash as the flag does (HOSTCTL_CACHE for --cache). */
export function hashes<T extends object>(target: T, env: readonly string[] = []): T {
  marks.set(target, { hashes: true, env });
  return target;
}

/** dist/start.json's view of the command line (bin/hostctl.js reads it). */
export interface StartupFacts {
  /** Top-level command names and aliases, and flags anywhere, that make a run send nothing. */
  readonly local: { readonly commands: string[]; readonly flags: string[] };
  /** The same for a run that hashes, and the environment variables that make one. */
  readonly hashes: { readonly commands: string[]; readonly flags: string[]; readonly env: string[] };
}

const flagsOf = (o: Option) => [o.short, o.long].filter((f): f is string => typeof f === 'string');

/** The marks on `program`'s tree; the help flags (commander's own option) send nothing. */
export function startupFacts(program: Command): StartupFacts {
  const facts = { local: { commands: [] as string[], flags: [] as string[] }, hashes: { commands: [] as string[], flags: [] as string[], env: [] as string[] } };
  const help: Help = program.createHelp();
  const visit = (cmd: Command, top: boolean) => {
    for (const o of help.visibleOptions(cmd)) {
      const mark = marks.get(o);
      if (o.long === '--help' || (mark && 'sendsNothing' in mark)) facts.local.flags.push(...flagsOf(o));
      if (mark && 'hashes' in mark) {
        facts.hashes.flags.push(...flagsOf(o));
        facts.hashes.env.push(...mark.env);
      }
    }
    for (const sub of cmd.commands) {
      const mark = marks.get(sub);
      const names = [sub.name(), ...sub.aliases()];
      if (top && mark && 'sendsNothing' in mark) facts.local.commands.push(...names);
      if (top && mark && 'hashes' in mark) facts.hashes.commands.push(...names);
      visit(sub, false);
    }
  };
  visit(program, true);
  const sorted = (list: string[]) => [...new Set(list)].sort();
  return {
    local: { commands: sorted(facts.local.commands), flags: sorted(facts.local.flags) },
    hashes: { commands: sorted(facts.hashes.commands), flags: sorted(facts.hashes.flags), env: sorted(facts.hashes.env) },
  };
}

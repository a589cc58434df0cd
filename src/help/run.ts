// `hostctl help [command…|topic]`. In a chunk of its own in dist/ (scripts/build.mjs),
// with the topics' texts: no other command loads it. It shares no class with the program
// (a chunk has its own copies), so it answers with data and commands/help.ts raises the error.

import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { HELP_TOPICS } from './names.js';
import { TOPIC_TEXT } from './topics.js';

export type HelpAnswer = { text: string } | { unknown: string; suggestions: string[] };

/** The help for these words: a topic, a command path (aliases too), or what was meant. */
export function helpFor(program: Command, words: readonly string[]): HelpAnswer {
  const [first] = words;
  // A topic wins over the command of the same name (sandbox, rate-limit): the topic says
  // how to get the command's own --help.
  if (words.length === 1 && first !== undefined && TOPIC_TEXT[first] !== undefined) return { text: TOPIC_TEXT[first] };
  let cmd = program;
  for (const word of words) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) {
      const names = cmd.commands.flatMap((c) => [c.name(), ...c.aliases()]).filter((n) => n !== 'help');
      const candidates = cmd === program ? [...Object.keys(HELP_TOPICS), ...names] : names;
      const before = commandWords(cmd);
      return { unknown: [...before, word].join(' '), suggestions: similar(word, candidates).map((s) => [...before, s].join(' ')) };
    }
    cmd = sub;
  }
  return { text: cmd.helpInformation() };
}

function commandWords(cmd: Command): string[] {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words;
}

/** Candidates that start with the word, or are a few typing mistakes away from it. */
function similar(word: string, candidates: readonly string[]): string[] {
  const w = word.toLowerCase();
  const close = candidates.filter((c) => (w.length >= 2 && c.startsWith(w)) || distance(w, c) <= Math.max(1, Math.floor(c.length / 3)));
  return [...new Set(close)].slice(0, 3);
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

// The IO streams of one run (gh's iostreams): whether each stream is a terminal, whether
// colour and spinners are allowed, and the one place that writes notes and warnings.
// Commands never look at isatty themselves.
//
// It is also the one sink every byte to stdout and stderr passes through: the streams an
// IO holds are guarded, and so is what the entry point writes (errors, hints). A guard
// replaces every secret of the run (the token, and any token this profile has stored)
// with `****` + its last four, wherever the text was built. Only `auth token` writes past
// it (rawOut), on purpose.

import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import { underCI, type InStream, type OutStream } from './runtime.js';

type Stream = OutStream;

/** Shorter values are too likely to occur by chance to be replaced in all text. */
const MIN_SECRET_LENGTH = 6;

/** What a secret is shown as: `****` and its last four (all of a short one would be too much). */
export function redacted(secret: string): string {
  return secret.length >= 12 ? `****${secret.slice(-4)}` : '****';
}

/** A terminal control sequence not finished yet: its next character ends it, and is no secret. */
const OPEN_SEQUENCE = /\u001b\[[\u0030-\u003f]*[\u0020-\u002f]*$/;

/**
 * The secrets of one run (the token, any token its profile has stored): values that must
 * never reach its stdout or stderr. One run's, never the process's: a run in a test
 * process starts with none, whatever the runs before it knew, as a real process does.
 */
export class Secrets {
  /** Each secret, lower-cased, with the pattern that finds it in any case. */
  private readonly patterns = new Map<string, RegExp>();
  private longest = 0;

  /** Found in any case: a URL's host name is lower-cased, token and all. */
  add(value: string | undefined): void {
    const v = value?.trim();
    if (!v || v.length < MIN_SECRET_LENGTH || this.patterns.has(v.toLowerCase())) return;
    this.longest = Math.max(this.longest, v.length);
    this.patterns.set(v.toLowerCase(), new RegExp(v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'));
  }

  /** `text` with every secret replaced. */
  scrub(text: string): string {
    for (const re of this.patterns.values()) text = text.replace(re, (found) => redacted(found));
    return text;
  }

  /** The length of the longest end of `text` that could be the start of a secret. */
  pendingLength(text: string): number {
    let keep = 0;
    const tail = text.slice(-this.longest).toLowerCase();
    for (const s of this.patterns.keys()) {
      for (let n = Math.min(s.length - 1, tail.length); n > keep; n--) {
        if (tail.endsWith(s.slice(0, n)) && !OPEN_SEQUENCE.test(tail.slice(0, tail.length - n))) {
          keep = n;
          break;
        }
      }
    }
    return keep;
  }
}

/**
 * `text` with every secret of the runs under way replaced. Code that cuts a value short (a
 * one-line detail, a table cell) and has no IO at hand calls this before cutting, so that
 * no part of a secret survives the cut; the sink itself scrubs with its own run's secrets.
 */
export function scrubSecrets(text: string): string {
  const seen = new Set<Secrets>();
  for (const { secrets } of guards.values()) {
    if (seen.has(secrets)) continue;
    seen.add(secrets);
    text = secrets.scrub(text);
  }
  return text;
}

interface Guard {
  stream: Stream;
  secrets: Secrets;
  flush(): void;
}

const guards = new Map<Writable, Guard>();

/**
 * The guarded form of a stream: the same object for every caller, so that a secret split
 * across two writes (a streamed page, say) is still seen whole. The end of a write that
 * could begin a secret is held back until the next write, or until flushSinks(). A new
 * guard masks `secrets` (a run's stdout and stderr share theirs: openSinks), or its own.
 */
export function guarded(target: Stream, secrets = new Secrets()): Stream {
  const known = guards.get(target);
  if (known) return known.stream;
  const decoder = new StringDecoder('utf8');
  let held = '';
  const write = (chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
    const callback = typeof encoding === 'function' ? encoding : cb;
    const text =
      typeof chunk === 'string'
        ? chunk
        : decoder.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    const all = secrets.scrub(held + text);
    const keep = secrets.pendingLength(all);
    held = all.slice(all.length - keep);
    return target.write(all.slice(0, all.length - keep), callback as (err?: Error | null) => void);
  };
  const flush = (): void => {
    const rest = secrets.scrub(held + decoder.end());
    held = '';
    if (rest) target.write(rest);
  };
  // A spinner (ora) hooks `write` to clear its line before other output, and calls the
  // write it found (this guard's) from its hook; the hook is kept here, not on the real
  // stream, where the guard would call it again.
  let hooked: unknown;
  const stream = new Proxy(target, {
    set(t, prop, value: unknown) {
      if (prop !== 'write') return Reflect.set(t, prop, value, t);
      hooked = value === write ? undefined : value;
      return true;
    },
    get(t, prop) {
      if (prop === 'write') return hooked ?? write;
      if (prop === 'end') {
        return (...args: unknown[]) => {
          if (args.length > 0 && typeof args[0] !== 'function') write(args.shift());
          flush();
          return t.end(...(args as []));
        };
      }
      const v: unknown = Reflect.get(t, prop, t);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
  guards.set(target, { stream, secrets, flush });
  return stream;
}

/** The secrets a guarded stream masks (those of its run). */
export function secretsOf(target: Stream): Secrets {
  guarded(target);
  return (guards.get(target) as Guard).secrets;
}

/**
 * Guards a run's stdout and stderr with one new list of secrets (a stream guarded already,
 * the process's own, keeps its list); returns the run's list.
 */
export function openSinks(stdout: Stream, stderr: Stream, given?: Secrets): Secrets {
  const secrets = guards.get(stdout)?.secrets ?? guards.get(stderr)?.secrets ?? given ?? new Secrets();
  guarded(stdout, secrets);
  guarded(stderr, secrets);
  return secrets;
}

/** Writes out whatever the guards hold back; called once a run is over. */
export function flushSinks(): void {
  for (const g of guards.values()) g.flush();
}

/**
 * The streams guarded now. A test process releases, after each test, those its runs left
 * (test/support/release-guards.ts): a guard outliving its test would keep its run's secrets
 * in scrubSecrets for every later test in the process.
 */
export function guardedStreams(): Writable[] {
  return [...guards.keys()];
}

/** Flushes and forgets the guards of these streams, and their secrets: a run in a test process is over. */
export function releaseSinks(...targets: Writable[]): void {
  for (const t of targets) {
    guards.get(t)?.flush();
    guards.delete(t);
  }
}

/** cli-spinners' "dots" and, for the Linux console (no braille), its "line". */
const DOTS_FRAMES = { interval: 80, frames: ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] };
const LINE_FRAMES = { interval: 130, frames: ['-', '\\', '|', '/'] };

export interface Spinner {
  text(text: string): void;
  stop(): void;
}

export interface IOOptions {
  /** Called when a command first reads its input. */
  stdin?: () => InStream;
  stdout?: Stream;
  stderr?: Stream;
  env?: NodeJS.ProcessEnv;
  quiet?: boolean;
  /** commander's `--no-color` gives color: false. */
  color?: boolean;
  /** --json or -o json|ndjson: warnings are JSON lines too. */
  json?: boolean;
  /** HOSTCTL_ACCESSIBLE or the config's `accessible`; asked only when output needs it. */
  accessible?: () => boolean;
  /** The run's secrets, for an IO made within a run on streams of its own (a redraw's capture). */
  secrets?: Secrets;
}

export class IO {
  readonly stdout: Stream;
  readonly stderr: Stream;
  private readonly rawStdout: Stream;
  /** What this run must never print: its stdout and stderr mask these. */
  readonly secrets: Secrets;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly quiet: boolean;
  /** Colour on stdout (tables). */
  readonly color: boolean;
  /** Colour on stderr (errors, warnings). */
  readonly colorErr: boolean;
  /** Warnings as JSON lines (--json, -o json|ndjson). */
  readonly json: boolean;
  private readonly env: NodeJS.ProcessEnv;
  private readonly stdinSource?: () => InStream;
  private ora?: { text: string; stop(): unknown };
  private readonly accessibleSource?: () => boolean;
  private accessibleValue?: boolean;
  /** The last plain progress line, its numbers blanked: a countdown is not a change of state. */
  private lastProgress?: string;
  private readonly spinnerStack: { text: string }[] = [];

  constructor(opts: IOOptions = {}) {
    this.stdinSource = opts.stdin;
    this.rawStdout = opts.stdout ?? process.stdout;
    this.secrets = openSinks(this.rawStdout, opts.stderr ?? process.stderr, opts.secrets);
    this.stdout = guarded(this.rawStdout);
    this.stderr = guarded(opts.stderr ?? process.stderr);
    this.env = opts.env ?? process.env;
    this.stdoutIsTTY = this.stdout.isTTY === true;
    this.stderrIsTTY = this.stderr.isTTY === true;
    this.quiet = opts.quiet === true;
    this.json = opts.json === true;
    this.accessibleSource = opts.accessible;
    // The contract: no colour with -q either.
    const wanted = this.quiet ? false : colorWanted(this.env, opts.color);
    this.color = wanted ?? this.stdoutIsTTY;
    this.colorErr = wanted ?? this.stderrIsTTY;
  }

  /** Standard input; process.stdin is made only when a command reads it (it costs start-up). */
  get stdin(): InStream {
    return this.stdinSource?.() ?? process.stdin;
  }

  get stdinIsTTY(): boolean {
    return this.stdin.isTTY === true;
  }

  /** Terminal width for tables; 80 when unknown. */
  get columns(): number {
    const fromEnv = Number(this.env.COLUMNS);
    if (this.stdout.columns && this.stdout.columns > 0) return this.stdout.columns;
    return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80;
  }

  /** A value this run must never print (the token of the run, a stored one). */
  addSecret(value: string | undefined): void {
    this.secrets.add(value);
  }

  out(text: string): void {
    this.stdout.write(text);
  }

  /** Past the guard: for `auth token` only, whose whole point is to print the token. */
  rawOut(text: string): void {
    this.rawStdout.write(text);
  }

  /** Informational note on stderr; silenced by -q. */
  note(text: string): void {
    if (!this.quiet) this.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** A warning on stderr; shown even with -q, because it is about safety. */
  warn(text: string): void {
    if (this.json) {
      // Scrubbed before escaping: a secret escaped inside JSON would not be found by the sink.
      this.stderr.write(`${JSON.stringify({ warning: { message: this.secrets.scrub(text) } })}\n`);
      return;
    }
    // The one prefix of every message hostctl writes, then what kind it is.
    this.stderr.write(`hostctl: ${this.colorErr ? '\u001b[33mwarning:\u001b[39m' : 'warning:'} ${text}\n`);
  }

  /**
   * Accessible output (HOSTCTL_ACCESSIBLE=1, or `accessible` in the config): no animation
   * and no in-place redraws (progress is one plain line per change of state), tables with
   * plain separators, `--watch` appends. See `hostctl help accessibility`.
   */
  get accessible(): boolean {
    return (this.accessibleValue ??= this.accessibleSource?.() === true);
  }

  /**
   * Spinners only on an interactive stderr, never with -q, NO_COLOR or --no-color, and
   * never in accessible mode or on TERM=dumb (no animation there, whatever the colour).
   */
  get spinnerAllowed(): boolean {
    // ora divides by the terminal's width: on one that reports 0 columns (a pty before its
    // first resize, some CI runners) it would clear lines forever.
    const width = this.stderr.columns;
    return this.stderrIsTTY && !this.quiet && this.colorErr && !underCI(this.env) && width !== 0 && this.env.TERM !== 'dumb' && !this.accessible;
  }

  /** Progress as plain lines, in accessible mode on a terminal: one line per change of state. */
  private plainProgress(text: string): Spinner {
    const say = (t: string) => {
      const shape = t.replace(/\d+/g, '#');
      if (shape === this.lastProgress) return;
      this.lastProgress = shape;
      this.stderr.write(`${t}\n`);
    };
    say(text);
    return { text: say, stop() {} };
  }

  /**
   * Starts a spinner on stderr, or a no-op one where spinners are not allowed. There is
   * one spinner line per run: a nested spinner (the rate-limit countdown during a list)
   * takes over the line and gives it back when stopped.
   */
  async spinner(text: string): Promise<Spinner> {
    if (!this.spinnerAllowed) return this.stderrIsTTY && !this.quiet && this.accessible ? this.plainProgress(text) : { text() {}, stop() {} };
    const entry = { text };
    this.spinnerStack.push(entry);
    if (!this.ora) {
      const { default: ora } = await import('ora');
      // Decided here from the run's streams and environment (spinnerAllowed), not by ora
      // from the process's: its own checks read process.env (CI, TERM), which is another
      // run's in a test process.
      // Frames as objects: ora swaps a named spinner for 'line' by process.env.TERM.
      const spinner = this.env.TERM === 'linux' ? LINE_FRAMES : DOTS_FRAMES;
      this.ora ??= ora({ text, stream: this.stderr, discardStdin: false, isEnabled: true, spinner }).start();
    }
    const line = this.ora;
    line.text = text;
    const top = () => this.spinnerStack[this.spinnerStack.length - 1];
    return {
      text: (t: string) => {
        entry.text = t;
        if (top() === entry) line.text = t;
      },
      stop: () => {
        const i = this.spinnerStack.indexOf(entry);
        if (i === -1) return;
        this.spinnerStack.splice(i, 1);
        const next = top();
        if (next) {
          line.text = next.text;
        } else {
          line.stop();
          this.ora = undefined;
        }
      },
    };
  }

  /** Stops any spinner, so that nothing is left on the terminal (before output, on exit). */
  stopSpinners(): void {
    this.spinnerStack.length = 0;
    this.ora?.stop();
    this.ora = undefined;
  }
}

/**
 * Colour, first rule that applies (`hostctl help formatting`): FORCE_COLOR (chalk's: 0 or
 * false turns it off, any other value on), --no-color, NO_COLOR, CLICOLOR_FORCE (not 0: on,
 * into a pipe too), CLICOLOR=0 (off, on a terminal too), TERM=dumb (off); else the TTY decides.
 */
export function colorWanted(env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean | undefined {
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.CLICOLOR_FORCE !== undefined && env.CLICOLOR_FORCE !== '' && env.CLICOLOR_FORCE !== '0') return true;
  if (env.CLICOLOR === '0') return false;
  if (env.TERM === 'dumb') return false;
  return undefined;
}

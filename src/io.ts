// The IO streams of one run (gh's iostreams): whether each stream is a terminal, whether
// colour and spinners are allowed, and the one place that writes notes and warnings.
// Commands never look at isatty themselves.

import type { Writable } from 'node:stream';

export interface Spinner {
  text(text: string): void;
  stop(): void;
}

export interface IOOptions {
  stdout?: Writable & { isTTY?: boolean; columns?: number };
  stderr?: Writable & { isTTY?: boolean; columns?: number };
  env?: NodeJS.ProcessEnv;
  quiet?: boolean;
  /** commander's `--no-color` gives color: false. */
  color?: boolean;
}

export class IO {
  readonly stdout: Writable & { isTTY?: boolean; columns?: number };
  readonly stderr: Writable & { isTTY?: boolean; columns?: number };
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly quiet: boolean;
  /** Colour on stdout (tables). */
  readonly color: boolean;
  /** Colour on stderr (errors, warnings). */
  readonly colorErr: boolean;
  private readonly env: NodeJS.ProcessEnv;
  private ora?: { text: string; stop(): unknown };
  private readonly spinnerStack: { text: string }[] = [];

  constructor(opts: IOOptions = {}) {
    this.stdout = opts.stdout ?? process.stdout;
    this.stderr = opts.stderr ?? process.stderr;
    this.env = opts.env ?? process.env;
    this.stdoutIsTTY = this.stdout.isTTY === true;
    this.stderrIsTTY = this.stderr.isTTY === true;
    this.quiet = opts.quiet === true;
    // The contract: no colour with -q either.
    const wanted = this.quiet ? false : colorWanted(this.env, opts.color);
    this.color = wanted ?? this.stdoutIsTTY;
    this.colorErr = wanted ?? this.stderrIsTTY;
  }

  /** Terminal width for tables; 80 when unknown. */
  get columns(): number {
    const fromEnv = Number(this.env.COLUMNS);
    if (this.stdout.columns && this.stdout.columns > 0) return this.stdout.columns;
    return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80;
  }

  out(text: string): void {
    this.stdout.write(text);
  }

  /** Informational note on stderr; silenced by -q. */
  note(text: string): void {
    if (!this.quiet) this.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** A warning on stderr; shown even with -q, because it is about safety. */
  warn(text: string): void {
    this.stderr.write(`${this.colorErr ? '\u001b[33mwarning:\u001b[39m' : 'warning:'} ${text}\n`);
  }

  /** Spinners only on an interactive stderr, never with -q, NO_COLOR or --no-color. */
  get spinnerAllowed(): boolean {
    // ora divides by the terminal's width: on one that reports 0 columns (a pty before its
    // first resize, some CI runners) it would clear lines forever.
    const width = this.stderr.columns;
    return this.stderrIsTTY && !this.quiet && this.colorErr && this.env.CI !== 'true' && width !== 0;
  }

  /**
   * Starts a spinner on stderr, or a no-op one where spinners are not allowed. There is
   * one spinner line per run: a nested spinner (the rate-limit countdown during a list)
   * takes over the line and gives it back when stopped.
   */
  async spinner(text: string): Promise<Spinner> {
    if (!this.spinnerAllowed) return { text() {}, stop() {} };
    const entry = { text };
    this.spinnerStack.push(entry);
    if (!this.ora) {
      const { default: ora } = await import('ora');
      this.ora ??= ora({ text, stream: this.stderr, discardStdin: false }).start();
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

/** chalk's rules: FORCE_COLOR wins (0 disables), then --no-color and NO_COLOR; else the TTY decides. */
function colorWanted(env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean | undefined {
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return undefined;
}

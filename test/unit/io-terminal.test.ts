// The IO of a run (io.ts) and the terminal: the width tables get, standard input, notes and
// warnings, and the spinner: where one runs, its frames, one line shared by nested spinners,
// and the plain progress lines of accessible mode. The streams are in memory; a terminal is
// a stream that says isTTY (ora draws on it as on a real one: cursor moves write nothing).
// The same on a real pseudo-terminal: test/e2e/watch-spinner.test.ts, test/e2e/accessible.test.ts.

import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IO, releaseSinks, type IOOptions } from '../../src/io.js';
import { MemoryStream } from '../support/memory-stream.js';

const made: MemoryStream[] = [];
afterEach(() => releaseSinks(...made.splice(0)));

/** A stdout or stderr in memory; a terminal when `isTTY`, `columns` wide when given. */
function stream(opts: { isTTY?: boolean; columns?: number } = {}): MemoryStream {
  const s = Object.assign(new MemoryStream(), opts);
  made.push(s);
  return s;
}

/** An IO on in-memory streams (neither a terminal unless given) and the environment given only. */
function ioWith(opts: IOOptions & { env?: NodeJS.ProcessEnv } = {}): { io: IO; stdout: MemoryStream; stderr: MemoryStream } {
  const stdout = (opts.stdout as MemoryStream | undefined) ?? stream();
  const stderr = (opts.stderr as MemoryStream | undefined) ?? stream();
  return { io: new IO({ env: {}, ...opts, stdout, stderr }), stdout, stderr };
}

/** What ora writes to hide the cursor, to show it again, and around each frame it draws. */
const HIDE = '\u001b[?25l';
const SHOW = '\u001b[?25h';
const frame = (text: string) => `\u001b[?2026h${text}\u001b[?2026l`;
/** Colour taken out: ora colours its frame by the process's own terminal, not the run's. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

describe('the width tables get (columns)', () => {
  it("is stdout's own width when it reports one, whatever COLUMNS says", () => {
    expect(ioWith({ stdout: stream({ isTTY: true, columns: 120 }), env: { COLUMNS: '100' } }).io.columns).toBe(120);
  });

  it('is COLUMNS when stdout reports no width, 0, or a negative one', () => {
    for (const columns of [undefined, 0, -1]) {
      expect(ioWith({ stdout: stream({ columns }), env: { COLUMNS: '100' } }).io.columns).toBe(100);
      expect(ioWith({ stdout: stream({ columns }), env: { COLUMNS: '1' } }).io.columns).toBe(1);
    }
  });

  it('is 80 when COLUMNS is not a whole number above 0 either', () => {
    for (const COLUMNS of [undefined, '', '0', '-5', '2.5', 'wide']) {
      expect(ioWith({ stdout: stream({ columns: -1 }), env: { COLUMNS } }).io.columns).toBe(80);
    }
  });
});

describe('standard input', () => {
  it("is the process's own when the run names none", () => {
    expect(ioWith().io.stdin).toBe(process.stdin);
  });

  it('is a terminal only when its stream says so', () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true });
    expect(ioWith({ stdin: () => tty }).io.stdinIsTTY).toBe(true);
    expect(ioWith({ stdin: () => new PassThrough() }).io.stdinIsTTY).toBe(false);
    expect(ioWith({ stdin: () => Object.assign(new PassThrough(), { isTTY: false }) }).io.stdinIsTTY).toBe(false);
  });
});

describe('notes and warnings on stderr', () => {
  it('a note ends with one newline, given or not; -q silences it', () => {
    const { io, stderr } = ioWith();
    io.note('first');
    io.note('second\n');
    io.note('\nthird');
    expect(stderr.text).toBe('first\nsecond\n\nthird\n');
    const quiet = ioWith({ quiet: true });
    quiet.io.note('not shown');
    expect(quiet.stderr.text).toBe('');
  });

  it('"warning:" is yellow where stderr has colour, plain where it has none', () => {
    const coloured = ioWith({ env: { FORCE_COLOR: '1' } });
    coloured.io.warn('the token is sent over http');
    expect(coloured.stderr.text).toBe('hostctl: \u001b[33mwarning:\u001b[39m the token is sent over http\n');
    const bare = ioWith({ stderr: stream({ isTTY: true }), env: { NO_COLOR: '1' } });
    bare.io.warn('the token is sent over http');
    expect(bare.stderr.text).toBe('hostctl: warning: the token is sent over http\n');
  });
});

describe('the spinner', () => {
  // ora's own clock: no frame is drawn but those the test causes.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs on a terminal stderr, and stopping it takes the line away and shows the cursor again', async () => {
    const { io, stderr } = ioWith({ stderr: stream({ isTTY: true }) });
    expect(io.spinnerAllowed).toBe(true);
    const s = await io.spinner('Fetching apps…');
    expect(plain(stderr.text)).toBe(HIDE + frame('⠋ Fetching apps…'));
    s.stop();
    expect(plain(stderr.text)).toBe(HIDE + frame('⠋ Fetching apps…') + SHOW);
  });

  it("is ora's line spinner on the Linux console, which has no braille", async () => {
    const { io, stderr } = ioWith({ stderr: stream({ isTTY: true }), env: { TERM: 'linux' } });
    const s = await io.spinner('Fetching apps…');
    s.stop();
    expect(plain(stderr.text)).toBe(HIDE + frame('- Fetching apps…') + SHOW);
  });

  it('moves while it waits, in ASCII on the Linux console', async () => {
    // ora draws the next frame once its interval has passed by Date.now(): that clock too.
    vi.useRealTimers();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    // The frame of each drawing, after the cursor moves ora writes to redraw.
    const drawn = async (env: NodeJS.ProcessEnv) => {
      const { io, stderr } = ioWith({ stderr: stream({ isTTY: true }), env });
      const s = await io.spinner('x');
      // Two seconds in small steps: long enough for any spinner to move.
      for (let i = 0; i < 40; i++) vi.advanceTimersByTime(50);
      s.stop();
      return [...plain(stderr.text).matchAll(/\u001b\[\?2026h(?:\u001b\[[0-9]*[A-Z])*(.*?) x\u001b\[\?2026l/g)].map((m) => m[1]);
    };
    expect(new Set(await drawn({})).size).toBeGreaterThan(1);
    const linux = await drawn({ TERM: 'linux' });
    expect(new Set(linux).size).toBeGreaterThan(1);
    for (const f of linux) expect(f).toMatch(/^[ -~]+$/);
  });

  it("leaves the terminal's input alone: keys typed meanwhile are not swallowed (no raw mode)", async () => {
    // ora would discard the process's own stdin when it is a terminal: this one says it is.
    const stdin = process.stdin as typeof process.stdin & Record<string, unknown>;
    const saved = new Map(['isTTY', 'setRawMode'].map((key) => [key, Object.getOwnPropertyDescriptor(stdin, key)]));
    const rawModes: boolean[] = [];
    Object.defineProperty(stdin, 'isTTY', { value: true, configurable: true, writable: true });
    Object.defineProperty(stdin, 'setRawMode', { value: (mode: boolean) => rawModes.push(mode) && stdin, configurable: true, writable: true });
    try {
      const { io } = ioWith({ stderr: stream({ isTTY: true }) });
      const s = await io.spinner('Fetching apps…');
      s.stop();
    } finally {
      for (const [key, descriptor] of saved) {
        if (descriptor) Object.defineProperty(stdin, key, descriptor);
        else delete stdin[key];
      }
    }
    expect(rawModes).toEqual([]);
  });

  it('writes nothing on a stderr that is not a terminal, colour forced or not', async () => {
    for (const env of [{}, { FORCE_COLOR: '1' }]) {
      const { io, stderr } = ioWith({ env });
      expect(io.spinnerAllowed).toBe(false);
      const s = await io.spinner('Fetching apps…');
      s.text('Fetching apps… page 1, 5 so far');
      s.stop();
      io.stopSpinners();
      expect(stderr.text).toBe('');
    }
  });

  it('nested, takes over the line and gives it back to the one it interrupted, with its latest text', async () => {
    const { io, stderr } = ioWith({ stderr: stream({ isTTY: true }) });
    const outer = await io.spinner('Fetching apps…');
    const inner = await io.spinner('Rate limit reached: waiting 3s…');
    // A line written while a spinner runs is followed by the spinner's line, drawn again.
    const after = (text: string) => {
      const mark = stderr.text.length;
      io.note(text);
      return plain(stderr.text.slice(mark));
    };
    const drawn = (text: string) => new RegExp(`^${text}\\n\u001b\\[\\?2026h[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (.*)\u001b\\[\\?2026l$`);
    expect(after('one').match(drawn('one'))?.[1]).toBe('Rate limit reached: waiting 3s…');
    inner.stop();
    expect(after('two').match(drawn('two'))?.[1]).toBe('Fetching apps…');
    // Stopped twice, it stops nothing else.
    inner.stop();
    expect(after('three').match(drawn('three'))?.[1]).toBe('Fetching apps…');
    // The interrupted one's progress is kept, not shown, while another has the line.
    const again = await io.spinner('Rate limit reached: waiting 5s…');
    outer.text('Fetching apps… page 2, 10 so far');
    expect(after('four').match(drawn('four'))?.[1]).toBe('Rate limit reached: waiting 5s…');
    again.stop();
    expect(after('five').match(drawn('five'))?.[1]).toBe('Fetching apps… page 2, 10 so far');
    outer.stop();
    expect(stderr.text.endsWith(SHOW)).toBe(true);
    expect(after('six')).toBe('six\n');
  });

  it('stopSpinners takes the line away whatever runs; a spinner after it starts a line of its own', async () => {
    const { io, stderr } = ioWith({ stderr: stream({ isTTY: true }) });
    const first = await io.spinner('Fetching apps…');
    await io.spinner('Rate limit reached: waiting 3s…');
    io.stopSpinners();
    expect(plain(stderr.text)).toBe(HIDE + frame('⠋ Fetching apps…') + SHOW);
    // Stopping one of them afterwards changes nothing.
    first.stop();
    const mark = stderr.text.length;
    const again = await io.spinner('Fetching hosts…');
    again.stop();
    expect(plain(stderr.text.slice(mark))).toBe(HIDE + frame('⠋ Fetching hosts…') + SHOW);
  });
});

describe('progress in accessible mode', () => {
  const accessible = () => true;

  it('is one plain line per change of state on a terminal; a number changing is no change', async () => {
    const { io, stderr } = ioWith({ stderr: stream({ isTTY: true }), accessible });
    const s = await io.spinner('Fetching apps…');
    s.text('Fetching apps… page 1, 5 so far');
    s.text('Fetching apps… page 2, 10 so far');
    // Numbers are blanked, not dropped: a number where there was none is a new state.
    s.text('Fetching apps… page ');
    s.text('Fetching apps… page 3');
    s.stop();
    expect(stderr.text).toBe('Fetching apps…\nFetching apps… page 1, 5 so far\nFetching apps… page \nFetching apps… page 3\n');
  });

  it('writes nothing on a stderr that is not a terminal, or with -q', async () => {
    for (const opts of [{}, { stderr: stream({ isTTY: true }), quiet: true }]) {
      const { io, stderr } = ioWith({ ...opts, accessible });
      const s = await io.spinner('Fetching apps…');
      s.text('Fetching apps… page 1, 5 so far');
      s.stop();
      expect(stderr.text).toBe('');
    }
  });
});

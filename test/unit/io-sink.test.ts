// The one sink (io.ts): what is written to a guarded stream never holds a secret, even
// when a secret is split across two writes, in any case, and auth token's rawOut is the
// one way past it; which values count as secrets and how one is shown; bytes, callbacks
// and the end of a stream; a spinner's hook on write.

import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { flushSinks, guarded, guardedStreams, IO, redacted, releaseSinks, scrubSecrets, Secrets } from '../../src/io.js';
import { oneLine, sanitize } from '../../src/output/sanitize.js';
import { sinkCollectors } from '../support/sink-collector.js';

const SECRET = 'hct_unit_SINK_secret_value_z9x8';

const sinks = sinkCollectors();
const collector = sinks.collector;
afterEach(sinks.release);

/** A stream guarded with its own run's secrets: SECRET, or those given. */
function guardedWith(out: Writable, ...values: string[]) {
  const secrets = new Secrets();
  for (const v of values.length > 0 ? values : [SECRET]) secrets.add(v);
  return guarded(out, secrets);
}

describe('the sink', () => {
  it('replaces a secret written whole, in any case', () => {
    const out = collector();
    const g = guardedWith(out);
    g.write(`a ${SECRET} b ${SECRET.toLowerCase()}\n`);
    expect(out.text()).toBe('a ****z9x8 b ****z9x8\n');
  });

  it('replaces a secret split across writes, byte by byte included', () => {
    const out = collector();
    const g = guardedWith(out);
    g.write(`start ${SECRET.slice(0, 10)}`);
    g.write(Buffer.from(SECRET.slice(10, 20)));
    for (const c of `${SECRET.slice(20)} end`) g.write(c);
    flushSinks();
    expect(out.text()).toBe('start ****z9x8 end');
  });

  it('holds back nothing that cannot begin a secret, and flushes what it held', () => {
    const out = collector();
    const g = guardedWith(out);
    g.write('line one\n');
    expect(out.text()).toBe('line one\n');
    g.write('ends with hct_u');
    expect(out.text()).toBe('line one\nends with ');
    flushSinks();
    expect(out.text()).toBe('line one\nends with hct_u');
  });

  it('an IO writes through it; rawOut does not', () => {
    const stdout = collector();
    const stderr = collector();
    const io = new IO({ stdout, stderr, env: {} });
    io.addSecret(SECRET);
    io.out(`${SECRET}\n`);
    io.warn(`x ${SECRET}`);
    io.rawOut(`${SECRET}\n`);
    expect(stdout.text()).toBe(`****z9x8\n${SECRET}\n`);
    expect(stderr.text()).toBe('hostctl: warning: x ****z9x8\n');
  });

  it('cuts happen after the secret is replaced', () => {
    const out = collector();
    guardedWith(out);
    const line = oneLine(`${'x'.repeat(150)} ${SECRET}`, 160);
    expect(line).not.toContain(SECRET.slice(0, 8));
    expect(sanitize(`[${SECRET}]`)).toBe('[****z9x8]');
    expect(scrubSecrets('nothing here')).toBe('nothing here');
    releaseSinks(out);
    expect(sanitize(`[${SECRET}]`)).toBe(`[${SECRET}]`);
  });
});

describe("one run's secrets", () => {
  it('are not another run\'s: a run starts knowing none, whatever ran before it in this process', () => {
    const first = { stdout: collector(), stderr: collector() };
    const a = new IO({ ...first, env: {} });
    a.addSecret(SECRET);
    a.out(`${SECRET}\n`);
    const second = { stdout: collector(), stderr: collector() };
    const b = new IO({ ...second, env: {} });
    b.out(`${SECRET}\n`);
    b.warn(SECRET);
    expect(first.stdout.text()).toBe('****z9x8\n');
    expect(second.stdout.text()).toBe(`${SECRET}\n`);
    expect(second.stderr.text()).toBe(`hostctl: warning: ${SECRET}\n`);
  });

  it('are shared by its stdout and stderr', () => {
    const stdout = collector();
    const stderr = collector();
    const io = new IO({ stdout, stderr, env: {} });
    io.addSecret(SECRET);
    io.stderr.write(`${SECRET}\n`);
    io.note(SECRET.toUpperCase());
    expect(stderr.text()).toBe('****z9x8\n****Z9X8\n');
  });
});

describe('the sink and terminal sequences', () => {
  it('does not hold back the last byte of a control sequence that happens to begin a secret', () => {
    const out = collector();
    // SECRET begins with the h that ends this sequence.
    const g = guardedWith(out);
    g.write('\u001b[?25h');
    expect(out.text()).toBe('\u001b[?25h');
  });
});

describe('a long secret', () => {
  it('is caught split across writes, however long', () => {
    const long = `hct_${'L'.repeat(1000)}_tail`;
    const out = collector();
    const g = guardedWith(out, long);
    g.write(`x ${long.slice(0, 700)}`);
    g.write(`${long.slice(700)} y`);
    flushSinks();
    expect(out.text()).toBe('x ****tail y');
  });
});

function secrets(...values: string[]): Secrets {
  const s = new Secrets();
  for (const v of values) s.add(v);
  return s;
}

describe('what counts as a secret', () => {
  it('six characters and more, trimmed; shorter ones would match ordinary text by chance', () => {
    const s = secrets('abcde', ' 123456\n', '', undefined as unknown as string);
    expect(s.scrub('abcde 123456 x')).toBe('abcde **** x');
  });

  it('is matched as written, not as a pattern', () => {
    const s = secrets('a.b+c*d(e)[f]$^');
    expect(s.scrub('aXbbbcd(e)[f]$^ and a.b+c*d(e)[f]$^')).toBe('aXbbbcd(e)[f]$^ and ****f]$^');
  });
});

describe('how a secret is shown', () => {
  it('twelve characters or more: **** and its last four; shorter: **** alone', () => {
    expect(redacted('abcdefghijkl')).toBe('****ijkl');
    expect(redacted('abcdefghijk')).toBe('****');
    expect(secrets('abcdefghijk').scrub('[abcdefghijk]')).toBe('[****]');
  });
});

describe('what is written to a guarded stream', () => {
  const SECRET = 'hct_unit_EDGE_secret_value_p0o9';

  it('bytes as Uint8Array, a multi-byte character split between writes included', () => {
    const out = collector();
    const g = guarded(out, secrets(SECRET));
    const bytes = new TextEncoder().encode(`é ${SECRET} ü`);
    g.write(bytes.subarray(0, 1));
    g.write(bytes.subarray(1, 12));
    g.write(bytes.subarray(12));
    flushSinks();
    expect(out.text()).toBe('é ****p0o9 ü');
  });

  it('calls the callback given with or without an encoding', async () => {
    const g = guarded(collector(), secrets(SECRET));
    const called: string[] = [];
    g.write('a', () => called.push('a'));
    g.write('b', 'utf8', () => called.push('b'));
    // A writable calls back on a later tick; setImmediate runs after those.
    await new Promise((done) => setImmediate(done));
    expect(called).toEqual(['a', 'b']);
  });

  it('end(chunk) writes the chunk scrubbed and what was held back, then ends the stream', async () => {
    const out = collector();
    const g = guarded(out, secrets(SECRET));
    g.write(`x ${SECRET.slice(0, 9)}`);
    const finished = new Promise<void>((done) => out.on('finish', () => done()));
    g.end(`${SECRET.slice(9)} and ${SECRET.slice(0, 5)}`);
    await finished;
    expect(out.text()).toBe(`x ****p0o9 and ${SECRET.slice(0, 5)}`);
  });

  it("a spinner's hook on write is called instead, and calling the guard's own write from it is scrubbed once", () => {
    const out = collector();
    const g = guarded(out, secrets(SECRET));
    const own = g.write.bind(g);
    const original = g.write;
    const calls: string[] = [];
    g.write = ((chunk: string) => {
      calls.push(chunk);
      return own(`[${chunk}]`);
    }) as typeof g.write;
    g.write(SECRET);
    expect(calls).toEqual([SECRET]);
    g.write = original;
    g.write(` ${SECRET}`);
    flushSinks();
    expect(calls).toHaveLength(1);
    expect(out.text()).toBe('[****p0o9] ****p0o9');
  });

  it("scrubSecrets masks the secrets of every run under way, and no longer a released run's", () => {
    const a = collector();
    const b = collector();
    guarded(a, secrets('first_run_secret'));
    guarded(b, secrets('second_run_secret'));
    expect(scrubSecrets('first_run_secret second_run_secret')).toBe('****cret ****cret');
    releaseSinks(a);
    expect(scrubSecrets('first_run_secret second_run_secret')).toBe('first_run_secret ****cret');
  });

  it('after a finished colour sequence, the start of a secret is still held back until it is known', () => {
    const out = collector();
    const g = guarded(out, secrets(SECRET));
    g.write(`\u001b[31mred\u001b[39m ${SECRET.slice(0, 10)}`);
    g.write(`${SECRET.slice(10)}\n`);
    expect(out.text()).toBe('\u001b[31mred\u001b[39m ****p0o9\n');
  });

  it('a secret right after a colour sequence is caught split across writes', () => {
    const out = collector();
    const g = guarded(out, secrets(SECRET));
    g.write(`\u001b[1m${SECRET.slice(0, 10)}`);
    g.write(`${SECRET.slice(10)}\u001b[22m`);
    flushSinks();
    expect(out.text()).toBe('\u001b[1m****p0o9\u001b[22m');
  });

  it('after a flush, the next write starts clean', () => {
    const out = collector();
    const g = guarded(out, secrets(SECRET));
    g.write(`a ${SECRET.slice(0, 6)}`);
    flushSinks();
    g.write(' b');
    expect(out.text()).toBe(`a ${SECRET.slice(0, 6)} b`);
  });

  it('end() with no chunk, or with only a callback, writes what was held back and ends the stream', async () => {
    for (const withCallback of [false, true]) {
      const out = collector();
      const g = guarded(out, secrets(SECRET));
      g.write(`x ${SECRET.slice(0, 8)}`);
      const finished = new Promise<void>((done) => out.on('finish', () => done()));
      let called = false;
      if (withCallback) g.end(() => (called = true));
      else g.end();
      await finished;
      await new Promise((done) => setImmediate(done));
      expect(out.text()).toBe(`x ${SECRET.slice(0, 8)}`);
      expect(called).toBe(withCallback);
    }
  });

  it('a released stream gets what was held back', () => {
    const out = collector();
    const g = guarded(out, secrets(SECRET));
    g.write(`last ${SECRET.slice(0, 6)}`);
    releaseSinks(out);
    expect(out.text()).toBe(`last ${SECRET.slice(0, 6)}`);
  });

  it('properties other than write set on the guard reach the stream, and write stays the guard', () => {
    const out = collector();
    const g = guarded(out, secrets(SECRET));
    (g as unknown as { columns: number }).columns = 40;
    expect((out as unknown as { columns: number }).columns).toBe(40);
    g.write(`${SECRET}\n`);
    expect(out.text()).toBe('****p0o9\n');
  });

  it("a stream's own methods run on the stream itself, private fields and all", () => {
    class Counting extends Writable {
      #lines = 0;
      counted(): number {
        return this.#lines;
      }
      override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
        this.#lines += chunk.toString().split('\n').length - 1;
        done();
      }
    }
    const out = new Counting();
    const g = guarded(out, secrets(SECRET)) as Counting;
    g.write('one\ntwo\n');
    expect(g.counted()).toBe(2);
    releaseSinks(out);
  });
});

describe('an IO on streams guarded already (the process\'s own, a second IO of one run)', () => {
  const SECRET = 'hct_unit_TWICE_secret_value_m5n6';

  it('shares their list, so a secret it learns is masked on both', () => {
    const stdout = collector();
    const stderr = collector();
    new IO({ stdout, stderr, env: {} });
    const second = new IO({ stdout, stderr, env: {} });
    second.addSecret(SECRET);
    second.out(`${SECRET}\n`);
    second.warn(SECRET);
    expect(stdout.text()).toBe('****m5n6\n');
    expect(stderr.text()).toBe('hostctl: warning: ****m5n6\n');
  });

  it('when only stderr is guarded already, stdout joins its list', () => {
    const stdout = collector();
    const stderr = collector();
    guarded(stderr, new Secrets());
    const io = new IO({ stdout, stderr, env: {} });
    io.addSecret(SECRET);
    io.out(`${SECRET}\n`);
    io.warn(SECRET);
    expect(stdout.text()).toBe('****m5n6\n');
    expect(stderr.text()).toBe('hostctl: warning: ****m5n6\n');
  });
});

describe('a guard a test leaves behind (test/support/release-guards.ts)', () => {
  // The two tests run in this order: the second checks what the first left. Each passes alone.
  const LEFT = 'hct_left_behind_by_an_earlier_test_7f3e';
  const leaked = new Writable({ write: (_c, _e, done) => done() });

  it('is a guard while its test runs: scrubSecrets masks its run\'s secret', () => {
    new IO({ stdout: leaked, stderr: new Writable({ write: (_c, _e, done) => done() }), env: {} }).addSecret(LEFT);
    expect(scrubSecrets(`x ${LEFT} y`)).toBe(`x ${redacted(LEFT)} y`);
  });

  it('is released after its test: the next test masks none of its secrets, and the process\'s own streams stay guarded', () => {
    expect(guardedStreams()).not.toContain(leaked);
    expect(guardedStreams().filter((s) => s !== process.stdout && s !== process.stderr)).toEqual([]);
    expect(scrubSecrets(`x ${LEFT} y`)).toBe(`x ${LEFT} y`);
  });
});

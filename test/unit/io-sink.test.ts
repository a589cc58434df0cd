// The one sink (io.ts): what is written to a guarded stream never holds a secret, even
// when a secret is split across two writes, in any case, and auth token's rawOut is the
// one way past it.

import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { flushSinks, guarded, IO, releaseSinks, scrubSecrets, Secrets } from '../../src/io.js';
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

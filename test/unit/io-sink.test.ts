// The one sink (io.ts): what is written to a guarded stream never holds a secret, even
// when a secret is split across two writes, in any case, and auth token's rawOut is the
// one way past it.

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { addSecret, flushSinks, guarded, IO, scrubSecrets } from '../../src/io.js';
import { oneLine, sanitize } from '../../src/output/sanitize.js';

const SECRET = 'hct_unit_SINK_secret_value_z9x8';

function collector(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      cb();
    },
  });
  return Object.assign(w, { text: () => chunks.join('') });
}

describe('the sink', () => {
  addSecret(SECRET);

  it('replaces a secret written whole, in any case', () => {
    const out = collector();
    const g = guarded(out);
    g.write(`a ${SECRET} b ${SECRET.toLowerCase()}\n`);
    expect(out.text()).toBe('a ****z9x8 b ****z9x8\n');
  });

  it('replaces a secret split across writes, byte by byte included', () => {
    const out = collector();
    const g = guarded(out);
    g.write(`start ${SECRET.slice(0, 10)}`);
    g.write(Buffer.from(SECRET.slice(10, 20)));
    for (const c of `${SECRET.slice(20)} end`) g.write(c);
    flushSinks();
    expect(out.text()).toBe('start ****z9x8 end');
  });

  it('holds back nothing that cannot begin a secret, and flushes what it held', () => {
    const out = collector();
    const g = guarded(out);
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
    io.out(`${SECRET}\n`);
    io.warn(`x ${SECRET}`);
    io.rawOut(`${SECRET}\n`);
    expect(stdout.text()).toBe(`****z9x8\n${SECRET}\n`);
    expect(stderr.text()).toBe('hostctl: warning: x ****z9x8\n');
  });

  it('cuts happen after the secret is replaced', () => {
    const line = oneLine(`${'x'.repeat(150)} ${SECRET}`, 160);
    expect(line).not.toContain(SECRET.slice(0, 8));
    expect(sanitize(`[${SECRET}]`)).toBe('[****z9x8]');
    expect(scrubSecrets('nothing here')).toBe('nothing here');
  });
});

describe('the sink and terminal sequences', () => {
  it('does not hold back the last byte of a control sequence that happens to begin a secret', () => {
    const out = collector();
    const g = guarded(out);
    g.write('\u001b[?25h');
    expect(out.text()).toBe('\u001b[?25h');
  });
});

describe('a long secret', () => {
  it('is caught split across writes, however long', () => {
    const long = `hct_${'L'.repeat(1000)}_tail`;
    addSecret(long);
    const out = collector();
    const g = guarded(out);
    g.write(`x ${long.slice(0, 700)}`);
    g.write(`${long.slice(700)} y`);
    flushSinks();
    expect(out.text()).toBe('x ****tail y');
  });
});

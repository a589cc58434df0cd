// What --jq prints (src/output/printers/jq.ts): jq's whole output, raw on a pipe and
// cleaned line by line and cell by cell on a terminal; jq's input the array of the objects,
// or the one object asked for; jq stopped once stdout has gone.

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IO } from '../../src/io.js';
import { createPrinter } from '../../src/output/format.js';
import { fakeIO } from './output-support.js';

async function runJq(
  expression: string,
  pages: readonly (readonly unknown[])[],
  opts: { tty?: boolean; shape?: 'list' | 'single' } = {},
): Promise<string> {
  const fake = fakeIO({ tty: opts.tty ?? false });
  const printer = await createPrinter({ io: fake.io, format: 'json', jq: expression });
  for (const page of pages) await printer.add(page);
  await printer.end(opts.shape ?? 'list');
  return fake.stdout();
}

describe('--jq printer', () => {
  it('prints raw strings as they are on a pipe', async () => {
    const out = await runJq('.[].name', [[{ name: 'red\u001b[31m\tname\u0007' }]], { tty: false });
    expect(out).toBe('red\u001b[31m\tname\u0007\n');
  });

  it('on a terminal cleans every line and every tab-separated cell, and keeps the tabs and line breaks', async () => {
    const out = await runJq('.[] | .a, .b', [[{ a: 'x\u001b[31my\u0007\tz\u200b', b: 'p\u001b]0;t\u0007q\tr' }]], { tty: true });
    expect(out).toBe('xy\tz\npq\tr\n');
  });

  it('on a terminal prints a multi-line raw string with its line breaks and tabs, each line cleaned', async () => {
    const out = await runJq('.[0].s', [[{ s: 'one\u0007\ttwo\nthree\u202e\tfour' }]], { tty: true });
    expect(out).toBe('one\ttwo\nthree\tfour\n');
  });

  it('on a terminal removes a sequence whole when jq hands its line over in more than one batch', async () => {
    // A 200,000-character CSI in a JSON string (jq prints U+009B as it is): jq hands its
    // output over every 64 KiB, so the line comes in pieces, and is cleaned once whole.
    const long = `\u009b${'1'.repeat(200_000)}m`;
    expect(await runJq('.[0]', [[{ s: long }]], { tty: true })).toBe('{\n  "s": ""\n}\n');
  });

  it("prints all of jq's output, however many batches it comes in, on a pipe and on a terminal", async () => {
    const expected = Array.from({ length: 30_000 }, (_, i) => `${i}\n`).join('');
    expect(await runJq('range(30000)', [[]], { tty: false })).toBe(expected);
    expect(await runJq('range(30000)', [[]], { tty: true })).toBe(expected);
  });

  it('gives jq the array of the objects of a list, even of one object', async () => {
    expect(await runJq('length', [[{ a: 1, b: 2, c: 3 }]], { shape: 'list' })).toBe('1\n');
    expect(await runJq('.[0].a', [[{ a: 7 }]], { shape: 'list' })).toBe('7\n');
  });

  it('gives jq the one object of a single, and an array when more than one object came', async () => {
    expect(await runJq('.a', [[{ a: 7 }]], { shape: 'single' })).toBe('7\n');
    expect(await runJq('length', [[{ a: 1, b: 2, c: 3 }], [{ a: 4, b: 5, c: 6 }]], { shape: 'single' })).toBe('2\n');
  });

  it("passes on an object's error from add(), and stops jq", async () => {
    const fake = fakeIO();
    const printer = await createPrinter({ io: fake.io, format: 'json', jq: '.' });
    const bad = {
      get name(): string {
        throw new Error('the object cannot be read');
      },
    };
    await expect(printer.add([bad])).rejects.toThrow('the object cannot be read');
  });

  it('stops jq and returns once stdout has gone (a reader that closed the pipe)', { timeout: 20_000 }, async () => {
    const chunks: string[] = [];
    const stdout: Writable = Object.assign(
      new Writable({
        write(chunk: Buffer | string, _enc, done) {
          chunks.push(chunk.toString());
          done();
          stdout.destroy();
        },
      }),
      { isTTY: false },
    );
    const stderr = Object.assign(new Writable({ write: (_c, _e, done) => done() }), { isTTY: false });
    const io = new IO({ stdout, stderr, env: { NO_COLOR: '1' } });
    const printer = await createPrinter({ io, format: 'json', jq: 'repeat(1)' });
    await printer.add([]);
    await printer.end('list');
    expect(chunks.length).toBe(1);
    expect(chunks[0]).toMatch(/^(1\n)+$/);
  });
});

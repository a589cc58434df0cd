// In-memory IO for the output layer's unit tests: stdout is collected, and whether it is a
// terminal, its width and colour are set by the test.

import { Writable } from 'node:stream';
import { IO } from '../../src/io.js';
import { createPrinter, type PrinterOptions } from '../../src/output/format.js';

export interface FakeIO {
  io: IO;
  stdout(): string;
  /** What reached stderr (warnings). */
  stderr(): string;
  /** How many separate writes reached stdout. */
  writes(): number;
}

export function fakeIO(opts: { tty?: boolean; columns?: number; color?: boolean } = {}): FakeIO {
  const chunks: string[] = [];
  const errors: string[] = [];
  const sink = (into: string[]) =>
    new Writable({
      write(chunk: Buffer | string, _enc, done) {
        into.push(chunk.toString());
        done();
      },
    });
  const stdout = Object.assign(sink(chunks), { isTTY: opts.tty ?? false, columns: opts.columns ?? 80 });
  const stderr = Object.assign(sink(errors), { isTTY: false });
  const env: NodeJS.ProcessEnv = opts.color ? { FORCE_COLOR: '1' } : { NO_COLOR: '1' };
  return { io: new IO({ stdout, stderr, env }), stdout: () => chunks.join(''), stderr: () => errors.join(''), writes: () => chunks.length };
}

/** Prints `items` as one page in `format` and returns stdout. */
export async function print(
  items: readonly unknown[],
  options: Omit<PrinterOptions, 'io'> & { tty?: boolean; width?: number; color?: boolean; shape?: 'list' | 'single' },
): Promise<string> {
  const fake = fakeIO({ tty: options.tty ?? options.format === 'table', columns: options.width ?? 80, color: options.color });
  const printer = await createPrinter({ ...options, io: fake.io });
  printer.add(items);
  await printer.end(options.shape ?? 'list');
  return fake.stdout();
}

/** 2024-05-01T12:00:00Z: the clock of every test that shows relative times. */
export const NOW = Date.parse('2024-05-01T12:00:00Z');

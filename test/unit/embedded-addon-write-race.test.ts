// src/auth/embedded-addon.ts when the addon file is swapped while it is written (another
// process in the shared cache, an attacker racing the write): the write is stubbed to leave
// other bytes at the name, which no test could place there in the instant between the
// write and the read-back. The file system otherwise: embedded-addon.test.ts.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tmpDir } from '../support/cli.js';

const swap = vi.hoisted(() => ({ with: undefined as Uint8Array | undefined }));

vi.mock('../../src/config/atomic.js', async (importOriginal) => {
  const atomic = await importOriginal<typeof import('../../src/config/atomic.js')>();
  return {
    ...atomic,
    writeFileAtomic: (file: string, data: string | Uint8Array, mode?: number) => atomic.writeFileAtomic(file, swap.with ?? data, mode),
  };
});

// The unit layer shares its workers between files (isolate: false): another file may have
// loaded embedded-addon.js with the real writeFileAtomic already, so this file loads its own.
vi.resetModules();
const { extractAddon } = await import('../../src/auth/embedded-addon.js');

afterAll(() => {
  vi.doUnmock('../../src/config/atomic.js');
  vi.resetModules();
});

let scratch: { path: string; cleanup(): void };
beforeEach(() => {
  scratch = tmpDir('hostctl-addon-swap-');
});
afterEach(() => {
  swap.with = undefined;
  scratch.cleanup();
});

const bytes = new TextEncoder().encode('the addon, as embedded');
const hash = createHash('sha256').update(bytes).digest('hex');

describe('extractAddon, the file swapped while it is written', () => {
  it('refuses what it finds at the name after writing: never a file it did not check', () => {
    const dir = join(scratch.path, 'addons');
    swap.with = new TextEncoder().encode('something else');
    expect(() => extractAddon(dir, 'keyring', bytes, hash)).toThrow(`${join(dir, `keyring-${hash}.node`)} changed while it was written`);
  });

  it('takes the file when what it reads back is what it wrote', () => {
    const dir = join(scratch.path, 'addons');
    const file = extractAddon(dir, 'keyring', bytes, hash);
    expect(readFileSync(file, 'utf8')).toBe('the addon, as embedded');
  });
});

// The keychain module's own ways (src/auth/keychain.ts), with what it loads stubbed: an addon
// that fails to load, a platform reason long or of many lines, and the single-file
// executable's assets. The real keychain (gnome-keyring in a D-Bus session):
// keychain-unavailable.test.ts and the e2e tests; the real single-file executable:
// test/e2e/sea.test.ts.

import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { rejection } from './http-support.js';

const stub = vi.hoisted(() => ({
  /** Thrown by loading the addon from the single-file executable's assets, when set. */
  loadError: undefined as Error | undefined,
  /** Rejected by every keychain call, when set. */
  callError: undefined as Error | undefined,
  /** What extractAddon was given: the single-file executable's branch. */
  extracted: [] as unknown[][],
}));

vi.mock('@napi-rs/keyring', () => {
  class AsyncEntry {
    getPassword(): Promise<string | undefined> {
      return stub.callError ? Promise.reject(stub.callError) : Promise.resolve('from-the-addon');
    }
  }
  return { AsyncEntry };
});

vi.mock('../../src/auth/embedded-addon.js', () => ({
  extractAddon: (...args: unknown[]) => {
    stub.extracted.push(args);
    return '/addons/keyring.node';
  },
  loadAddon: () => {
    if (stub.loadError) throw stub.loadError;
    return {
      AsyncEntry: class {
        getPassword(): Promise<string> {
          return Promise.resolve('from-the-asset');
        }
      },
    };
  },
}));

afterEach(() => {
  stub.loadError = undefined;
  stub.callError = undefined;
  stub.extracted.length = 0;
  vi.restoreAllMocks();
});

afterAll(() => {
  vi.doUnmock('@napi-rs/keyring');
  vi.doUnmock('../../src/auth/embedded-addon.js');
  vi.resetModules();
});

/** Makes this process look like the single-file executable, with the addon and its hash as assets. */
function asSea(hash = 'a'.repeat(64)): void {
  const bytes = new Uint8Array([1, 2, 3]).buffer;
  vi.spyOn(process, 'getBuiltinModule').mockImplementation(((id: string) =>
    id === 'node:sea'
      ? {
          isSea: () => true,
          getRawAsset: (name: string) => (name === 'keyring.node' ? bytes : undefined),
          // As node:sea's: text only when an encoding is given, else the bytes.
          getAsset: (name: string, encoding?: string) =>
            name === 'keyring.node.sha256' ? (encoding ? `${hash}\n` : new TextEncoder().encode(`${hash}\n`).buffer) : undefined,
        }
      : undefined) as typeof process.getBuiltinModule);
}

/** keychain.js loaded afresh (it keeps the addon it loaded), with its KeychainUnavailable. */
async function fresh() {
  vi.resetModules();
  return import('../../src/auth/keychain.js');
}

async function reasonOf(p: Promise<unknown>, Unavailable: new (...args: never[]) => Error): Promise<string> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(Unavailable);
  return (err as Error & { reason: string }).reason;
}

describe('the keychain, its addon stubbed', () => {
  it('an addon that fails to load is "the keyring module could not be loaded", said once, on its first line', async () => {
    asSea();
    stub.loadError = new Error('libsecret-1.so.0: cannot open shared object file: No such file or directory\nRequire stack:\n- keyring.node');
    const { readKeychain, KeychainUnavailable } = await fresh();
    const reason = await reasonOf(readKeychain('default'), KeychainUnavailable);
    expect(reason).toBe('the keyring module could not be loaded (libsecret-1.so.0: cannot open shared object file: No such file or directory)');
  });

  it("the platform's reason is its first line, and a very long one is cut short with an ellipsis", async () => {
    const { readKeychain, KeychainUnavailable } = await fresh();
    stub.callError = new Error('No such secret collection\nsecond line');
    expect(await reasonOf(readKeychain('default'), KeychainUnavailable)).toBe('No such secret collection');
    stub.callError = new Error(`${'e'.repeat(5_000)}\nsecond line`);
    const long = await reasonOf(readKeychain('default'), KeychainUnavailable);
    expect(long.length).toBeLessThan(1_000);
    expect(long).toMatch(/^e+…$/);
  });

  it('the single-file executable hands the addon in its assets, and their recorded SHA-256 (trimmed), to extractAddon, for the cache', async () => {
    const hash = 'b'.repeat(64);
    asSea(hash);
    const { readKeychain } = await fresh();
    expect(await readKeychain('default')).toBe('from-the-asset');
    expect(stub.extracted).toHaveLength(1);
    const [dir, name, got, recorded] = stub.extracted[0] ?? [];
    expect(dir).toMatch(/[/\\]hostctl[/\\]addons$/);
    expect(name).toBe('keyring');
    expect([...(got as Uint8Array)]).toEqual([1, 2, 3]);
    expect(recorded).toBe(hash);
  });

  it('outside it, the addon is the installed package', async () => {
    const { readKeychain } = await fresh();
    expect(await readKeychain('default')).toBe('from-the-addon');
    expect(stub.extracted).toHaveLength(0);
  });
});

// The walk's cap on V8's young generation, with node:v8 stubbed: what it reads and sets.

import { afterEach, describe, expect, it, vi } from 'vitest';

const v8 = vi.hoisted(() => ({ young: 0, flags: [] as string[] }));
vi.mock('node:v8', () => ({
  getHeapSpaceStatistics: () => [
    { space_name: 'old_space', space_size: 50 << 20 },
    { space_name: 'new_space', space_size: v8.young },
  ],
  setFlagsFromString: (flags: string) => v8.flags.push(flags),
}));

// The unit layer shares its workers between files (isolate: false): another file may have
// loaded young.js with the real node:v8 already, so this file loads its own.
vi.resetModules();
const { YOUNG_CAP_BYTES, youngCap } = await import('../../src/http/young.js');

afterEach(() => {
  v8.young = 0;
  v8.flags = [];
});

describe('the young generation during a walk', () => {
  it('grows freely until it reaches the cap, then no more; the default again when the walk ends', () => {
    const cap = youngCap();
    v8.young = YOUNG_CAP_BYTES / 2;
    cap.check();
    expect(v8.flags).toEqual([]);
    v8.young = YOUNG_CAP_BYTES;
    cap.check();
    cap.check();
    expect(v8.flags).toEqual(['--semi-space-growth-factor=1']);
    cap.release();
    cap.release();
    expect(v8.flags).toEqual(['--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
  });

  it('two walks at once (a filter walks within a walk): the default comes back when the last one ends', () => {
    const outer = youngCap();
    const inner = youngCap();
    v8.young = YOUNG_CAP_BYTES;
    inner.check();
    outer.check();
    inner.release();
    expect(v8.flags).toEqual(['--semi-space-growth-factor=1']);
    outer.release();
    expect(v8.flags.at(-1)).toBe('--semi-space-growth-factor=2');
    // A walk that never reached the cap sets nothing.
    const small = youngCap();
    v8.young = 0;
    small.check();
    small.release();
    expect(v8.flags).toHaveLength(2);
  });
});

// A walk over many pages allocates fast and keeps little alive (a page at a time), and V8
// grows its young generation under that rate, by doubling, to 2 × 16 MiB: about 20 MiB of
// peak RSS that a walk of 100,000 objects paid for no speed (docs/performance.md, "Issue
// 29: leases"). V8 reads its heap sizes once, at start (`--max-semi-space-size` set from
// here has no effect), but its growth factor each time it grows the young generation: once
// the young generation has reached YOUNG_CAP_BYTES, the walk turns growing off.

import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The young generation a walk lets V8 grow to (both semi-spaces): measured as fast as 32 MiB, and 2 MiB was slower. */
export const YOUNG_CAP_BYTES = 8 * 1024 * 1024;
/** V8's default on Node 20, 22 and 24, restored when the last walk ends. */
const DEFAULT_GROWTH = 2;

let walks = 0;
let frozen = false;

function youngSize(): number {
  for (const s of getHeapSpaceStatistics()) if (s.space_name === 'new_space') return s.space_size;
  return 0;
}

/**
 * One walk's hold on the cap: check() after each page, release() when it ends. When the
 * last walk ends the factor is V8's default again: V8 ties a code cache to its flags, and
 * one made with the factor changed would be rejected by the next run (the loader saves the
 * program's at exit, Node 22+ the chunks' ones).
 */
export function youngCap(): { check(): void; release(): void } {
  walks++;
  let released = false;
  return {
    check() {
      if (frozen || released || youngSize() < YOUNG_CAP_BYTES) return;
      setFlagsFromString('--semi-space-growth-factor=1');
      frozen = true;
    },
    release() {
      if (released) return;
      released = true;
      walks--;
      if (walks === 0 && frozen) {
        setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH}`);
        frozen = false;
      }
    },
  };
}

// Streams that collect what the scrubbing sink (src/io.ts) lets through, for its unit tests.
// A file calls sinkCollectors() once and releases them after each test (afterEach), so that
// no guard, and no secret, outlives its test.

import { Writable } from 'node:stream';
import { releaseSinks } from '../../src/io.js';

export function sinkCollectors(): { collector(): Writable & { text: () => string }; release(): void } {
  const made: Writable[] = [];
  return {
    collector() {
      const chunks: string[] = [];
      const w = new Writable({
        write(chunk: Buffer, _enc, cb) {
          chunks.push(chunk.toString('utf8'));
          cb();
        },
      });
      made.push(w);
      return Object.assign(w, { text: () => chunks.join('') });
    },
    release: () => releaseSinks(...made.splice(0)),
  };
}

// A setup file of every vitest project (vitest.config.ts): after each test, the guards its
// runs left on streams of their own (an IO made by a unit test, a harness) are released,
// the process's own stdout and stderr kept. The unit and cli layers share a process across
// files (isolate: false), and scrubSecrets masks the secrets of every guard there is: a
// guard left behind would mask an earlier test's token in every later test (a check that
// a table cell hides the token could pass on another test's secret), and make each cell
// of a later table cost a scrub per guard left (20,000 rows took a minute late in a run).

import { afterEach } from 'vitest';
import { guardedStreams, releaseSinks } from '../../src/io.js';

afterEach(() => {
  releaseSinks(...guardedStreams().filter((s) => s !== process.stdout && s !== process.stderr));
});

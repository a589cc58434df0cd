// Whether this run is a CI run, where a test that needs a missing system part must fail
// rather than skip. Every such check (and vitest.config.ts's choice of reporter) asks here;
// the rule is the program's own (src/runtime.ts), so CI means the same to both.

import { underCI as programUnderCI } from '../../src/runtime.js';

/** True when CI holds any value CI services set; false when unset, empty or `false`/`0`. */
export function underCI(env: NodeJS.ProcessEnv = process.env): boolean {
  return programUnderCI(env);
}

// The one CI gate of the tests (test/support/ci.ts): under CI a test that needs a missing
// system part fails instead of skipping, whatever truthy value the CI service gives CI.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { underCI } from '../support/ci.js';

describe('underCI', () => {
  it('takes any value CI services set as CI', () => {
    for (const value of ['true', 'True', 'TRUE', '1', 'yes', 'woodpecker']) expect(underCI({ CI: value }), value).toBe(true);
  });

  it('takes unset, empty and switched-off values as not CI', () => {
    expect(underCI({})).toBe(false);
    for (const value of ['', ' ', 'false', 'False', '0', 'no', 'off']) expect(underCI({ CI: value }), JSON.stringify(value)).toBe(false);
  });
});

describe('.ci/run', () => {
  it('sets CI=true whatever the caller gave (off, 1, unset): the gate holds in the CI run', () => {
    // Its own export lines, run by bash as the script runs them.
    const exports = readFileSync(join(ROOT, '.ci', 'run'), 'utf8').split('\n').filter((l) => /^export CI=/.test(l));
    expect(exports).toHaveLength(1);
    for (const given of ['false', '0', '1', '']) {
      const seen = execFileSync('bash', ['-c', `${exports[0]}; printf %s "$CI"`], { env: { PATH: process.env.PATH, CI: given }, encoding: 'utf8' });
      expect(seen, `CI=${given}`).toBe('true');
    }
  });
});

// The one CI gate of the tests (test/support/ci.ts): under CI a test that needs a missing
// system part fails instead of skipping, whatever truthy value the CI service gives CI.

import { describe, expect, it } from 'vitest';
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

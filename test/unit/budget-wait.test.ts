// waitForSlots (src/http/budget.ts): about how long until k more requests can go, by the
// sliding window the budget file keeps. What the relation filters' wait line says.

import { describe, expect, it } from 'vitest';
import { waitForSlots, type BudgetData } from '../../src/http/budget.js';

describe('waitForSlots', () => {
  const now = 1_000_000;
  // 4 a minute; 3 counted 50, 30 and 10 seconds ago: one left now.
  const d: BudgetData = { limit: 4, windowMs: 60_000, sends: [[now - 50_000, now - 50_000], [now - 30_000, now - 30_000], [now - 10_000, now - 10_000]] };

  it('is 0 while the budget has the requests left', () => {
    expect(waitForSlots(d, 1, now)).toBe(0);
    expect(waitForSlots(d, 0, now)).toBe(0);
  });

  it('beyond what is left, waits for the oldest counted requests to leave the window, one slot each', () => {
    expect(waitForSlots(d, 2, now)).toBe(10_000);
    expect(waitForSlots(d, 3, now)).toBe(30_000);
    expect(waitForSlots(d, 4, now)).toBe(50_000);
    // Past this window, each further window frees the whole limit.
    expect(waitForSlots(d, 5, now)).toBe(50_000 + 60_000);
    expect(waitForSlots(d, 9, now)).toBe(50_000 + 120_000);
  });

  it('is unknown before the window is known', () => {
    expect(waitForSlots({ sends: [] }, 3, now)).toBeUndefined();
  });

  it('is 0 for no request at all, even before the window is known', () => {
    expect(waitForSlots({ sends: [] }, 0, now)).toBe(0);
    expect(waitForSlots({ sends: [] }, -1, now)).toBe(0);
  });

  it('is unknown while either the limit or the window is, and with a limit of 0 (a damaged file)', () => {
    expect(waitForSlots({ sends: [], limit: 4 }, 3, now)).toBeUndefined();
    expect(waitForSlots({ sends: [], windowMs: 60_000 }, 3, now)).toBeUndefined();
    expect(waitForSlots({ sends: [], limit: 0, windowMs: 60_000 }, 3, now)).toBeUndefined();
  });

  it('with nothing counted in the window, the whole limit goes now, and each further window frees it again', () => {
    const empty: BudgetData = { sends: [], limit: 4, windowMs: 60_000 };
    expect(waitForSlots(empty, 4, now)).toBe(0);
    expect(waitForSlots(empty, 5, now)).toBe(60_000);
    expect(waitForSlots(empty, 9, now)).toBe(120_000);
  });
});

// Whether this run is a CI run, where a test that needs a missing system part must fail
// rather than skip. Every such check (and vitest.config.ts's choice of reporter) asks here.

/** The values of CI that mean "not CI": set but empty, or switched off. */
const OFF = new Set(['', 'false', '0', 'no', 'off']);

/**
 * True when CI holds any value CI services set (`true` on GitHub Actions, GitLab, Travis,
 * CircleCI; `True` on AppVeyor; `1` elsewhere), false when unset, empty or `false`/`0`.
 */
export function underCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI;
  return value !== undefined && !OFF.has(value.trim().toLowerCase());
}

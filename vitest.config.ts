import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: e2e files spawn servers and CLI processes, so keep the pool small.
    maxWorkers: 2,
    fileParallelism: true,
    // Under CI=true a skipped test fails the run (.ci/no-skips-reporter.mjs).
    reporters: process.env.CI === 'true' ? ['default', './.ci/no-skips-reporter.mjs'] : ['default'],
  },
});

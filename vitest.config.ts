import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { underCI } from './test/support/ci.js';
import { LongestFirst } from './test/support/sequencer.js';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

// Three layers: unit tests of one module (test/unit, test/sandbox), the commands run
// in-process against loopback servers (test/cli), and the thin end-to-end layer that
// needs the real process, terminal, shells, keychain or package (test/e2e).
// `npm test` runs all three; `npm run test:e2e` the last alone (--project e2e).
export default defineConfig({
  // What the build defines, so that the in-process layer's main() is the built one's.
  define: { __HOSTCTL_VERSION__: JSON.stringify(pkg.version) },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: e2e files spawn servers and CLI processes, so keep the pool small.
    maxWorkers: 2,
    fileParallelism: true,
    // The longest files first, whichever project they belong to (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // The unit, cli and e2e layers share each worker's module graph across files (isolate:
    // false): a fresh process and module graph per file cost about half a second of CPU
    // each, most of the unit and cli layers' time, and a fifth of the e2e layer's CPU
    // beside its child processes (167 s → 134 s). So a file restores whatever it changes
    // in the process (env keys, umask, timers), and state lives in what a test creates.
    projects: [
      { extends: true, test: { name: 'unit', isolate: false, include: ['test/unit/**/*.test.ts', 'test/sandbox/**/*.test.ts'] } },
      { extends: true, test: { name: 'cli', isolate: false, include: ['test/cli/**/*.test.ts'] } },
      // Unit tests of native code that keeps state for the life of the process (the
      // keychain addon's D-Bus connection): a process of its own per file.
      { extends: true, test: { name: 'own-process', include: ['test/own-process/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', isolate: false, include: ['test/e2e/**/*.test.ts'] } },
    ],
    // After each test, the output guards its runs left are released (no secret outlives its test).
    setupFiles: ['test/support/release-guards.ts'],
    // Under CI=true a skipped test fails the run (.ci/no-skips-reporter.mjs).
    reporters: underCI() ? ['default', './.ci/no-skips-reporter.mjs'] : ['default'],
  },
});

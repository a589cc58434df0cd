// Mutation testing (`npm run test:mutation`; docs/testing.md has the figures): Stryker
// changes the code that keeps hostctl's promises one small edit at a time and runs the
// unit and cli layers against each change; a change no test notices is a gap in the tests.
// The globs name folders, not files, so that moving a module keeps it measured.
// `--mutate 'src/auth/**/*.ts' --incrementalFile reports/mutation/auth.incremental.json`
// measures one folder, with an incremental file of its own (docs/testing.md).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.stryker.config.ts' },
  // Not jq-worker.ts: jq.ts runs that function from its source text in a worker thread, where
  // the instrumented copy's calls to Stryker's helpers (defined in the main thread) would fail
  // every --jq test in the initial run. Its promises are checked by the jq tests all the same.
  mutate: ['src/http/**/*.ts', 'src/auth/**/*.ts', 'src/config/**/*.ts', 'src/output/**/*.ts', '!src/output/jq-worker.ts', 'src/io.ts'],
  coverageAnalysis: 'perTest',
  // A re-run tests only the mutants whose code or tests changed since the last one.
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  concurrency: 2,
  // Tests run against loopback servers on a busy machine: give a slow mutant room before
  // calling it a timeout (an endless loop still ends as one).
  timeoutMS: 15000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // What the sandbox copy of the project leaves out: other builds and reports.
  ignorePatterns: ['dist.*', 'coverage', 'reports', '.tmp'],
  // Vitest does not type-check, so the sandbox's files stay as they are: a line added at the
  // top of dist/*.cjs would break the built CLI that some cli tests run.
  disableTypeChecks: false,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

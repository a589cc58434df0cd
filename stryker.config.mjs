// Mutation testing (`npm run test:mutation`; docs/testing.md): Stryker changes the code that
// keeps hostctl's promises one small edit at a time and runs the unit and cli layers against
// each change; a change no test notices is a gap in the tests. The globs name folders, not
// files, so that moving a module keeps it measured.
//
// The scope is measured in pieces (PIECES, run by scripts/mutation.mjs), one at a time. A
// piece's incremental file (a re-run tests again only the mutants whose code or tests
// changed) is state, not source: it lives in MUTATION_CACHE, outside the checkout, and its
// reports under reports/mutation/PIECE.*. HOSTCTL_MUTATION_PIECE=NAME makes `npx stryker run`
// run that piece; unset, it runs the whole scope with MUTATION_CACHE/all.incremental.json.
import { join } from 'node:path';
import { userCache } from './scripts/node-dist.mjs';

/** ${HOSTCTL_MUTATION_CACHE:-${XDG_CACHE_HOME:-~/.cache}/hostctl-mutation}: CI may keep it as an artifact. */
export const MUTATION_CACHE = userCache('hostctl-mutation', 'HOSTCTL_MUTATION_CACHE');

/** The pieces, each a few hundred to a thousand mutants: together, exactly `mutate` below. */
export const PIECES = {
  auth: ['src/auth/**/*.ts'],
  'config-cs': ['src/config/{config,store,state}.ts'],
  'config-atomic': ['src/config/atomic.ts'],
  'config-five': ['src/config/{trust,paths,resolve,duration,url}.ts'],
  // io.ts in two by lines: the secrets and the sink, then the IO class from the spinner's
  // frames on (move the line when io.ts changes above it; a run shows the mutants it takes).
  'io-a': ['src/io.ts:1-186'],
  'io-b': ['src/io.ts:187-392'],
  'output-a1': ['src/output/printers/*.ts', 'src/output/{rate-line,tsv,time,format,fields,sanitize}.ts'],
  'output-b1': ['src/output/{columns,detail,json,jq}.ts'],
  'output-b2': ['src/output/{printer,table}.ts'],
  'http-a': ['src/http/{media-type,wait429,bearer,dry-run,layers,verbose,status,retry,proxy,fleet,noproxy,origin,wire}.ts'],
  'http-b': ['src/http/{failures,paging,ratelimit,cache}.ts'],
  'http-c': ['src/http/{client,redis}.ts'],
  'http-d': ['src/http/budget.ts'],
};

const piece = process.env.HOSTCTL_MUTATION_PIECE;
if (piece !== undefined && !Object.hasOwn(PIECES, piece)) {
  throw new Error(`HOSTCTL_MUTATION_PIECE=${piece} is not a piece; the pieces are ${Object.keys(PIECES).join(', ')}.`);
}
const pieceOptions = piece
  ? {
      mutate: PIECES[piece],
      incrementalFile: join(MUTATION_CACHE, `${piece}.incremental.json`),
      htmlReporter: { fileName: `reports/mutation/${piece}.html` },
      jsonReporter: { fileName: `reports/mutation/${piece}.json` },
      // One file per mutant tested, as it is tested (reports/mutation/events-PIECE/): what
      // survived is readable while the run goes on (scripts/mutation.mjs --survivors PIECE).
      eventReporter: { baseDir: `reports/mutation/events-${piece}` },
    }
  : {};

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
  incrementalFile: join(MUTATION_CACHE, 'all.incremental.json'),
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
  ...pieceOptions,
  ...(piece ? { reporters: ['clear-text', 'progress', 'html', 'json', 'event-recorder'] } : {}),
};

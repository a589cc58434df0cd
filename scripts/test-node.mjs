// `npm run test:node -- <major> [vitest arguments]`: the test suite under another Node,
// the newest <major>.x from the npm registry's node-<platform>-<arch> package, kept in
// the build cache (scripts/node-dist.mjs). .ci/run runs it for 22 and 24 after
// `npm run test:ci` on the machine's Node.
//
// That Node goes first on PATH, so the build, vitest, and every `node` and
// process.execPath the tests start are that Node. What runs under it (STEPS):
//   1. `npm run build`: the V8 code caches in dist/ are per V8 version; a Node that
//      rejects them still works (bin/hostctl.js compiles from the source), only slower.
//   2. vitest, without test/e2e/sea.test.ts: the single-file executable embeds Node 24
//      whichever Node builds or tests it, and `npm run test:ci` builds and tests it once
//      (the build of step 1 replaces dist/, the executable with it).
// Under CI=true a skipped test fails the run (vitest.config.ts, .ci/no-skips-reporter.mjs).
// Afterwards dist/ is the one that Node built; `npm run build` makes it the machine's again.
//
// Exits with the first failing step's code, or 2 on bad arguments.

import { spawnSync } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { nodeDist } from './node-dist.mjs';

const STEPS = [
  ['npm', ['run', 'build']],
  ['npx', ['vitest', 'run', '--exclude', 'test/e2e/sea.test.ts']],
];

const [major, ...vitestArgs] = process.argv.slice(2);
if (!major || !/^\d+$/.test(major)) {
  process.stderr.write('test-node: give the Node major version to test with.\nUsage: npm run test:node -- <major> [vitest arguments]\n');
  process.exit(2);
}

let node;
try {
  node = nodeDist(major, { log: (line) => process.stderr.write(`${line}\n`) });
} catch (err) {
  process.stderr.write(`test-node: ${err instanceof Error ? err.message : err}\n`);
  process.exit(1);
}

const env = { ...process.env, PATH: [dirname(node), process.env.PATH].join(delimiter) };
const version = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
process.stderr.write(`test-node: Node ${version} (${node})\n`);

for (const [i, [cmd, args]] of STEPS.entries()) {
  const last = i === STEPS.length - 1;
  const r = spawnSync(cmd, last ? [...args, ...vitestArgs] : args, { env, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    process.stderr.write(`test-node: "${[cmd, ...args].join(' ')}" under Node ${version} ${r.error ? `failed: ${r.error.message}` : `exited with ${r.status ?? r.signal}`}.\n`);
    process.exit(r.status || 1);
  }
}
process.stderr.write(`test-node: the suite passed under Node ${version}.\n`);

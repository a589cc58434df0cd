// `npm run test:undici [-- <node major>...]`: the build and the e2e layer against the oldest and
// the newest undici that package.json allows (scripts/trim.mjs builds on undici's internal
// files; the build checks every patch against the undici it bundles, and its smoke test
// fails on a client that cannot make a request: this shows both ends of the range pass).
// .ci/run runs it after the suite, on the machine's Node and then on each Node in
// HOSTCTL_CI_NODES (given here as arguments: `npm run test:node -- N --project e2e`, which
// builds with that Node first).
//
// For each end: `npm install --no-save undici@<version>`, `npm run build`, `vitest run
// --project e2e` (the single-file executable's tests aside: that executable is built by
// `npm run test:ci`, with the locked undici), then the same under each Node given. Afterwards
// the locked undici is installed again and dist/ rebuilt. Exits with the first failure's code.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
const range = pkg.devDependencies?.undici ?? pkg.dependencies?.undici;
const oldest = /^\^(\d+\.\d+\.\d+)$/.exec(range ?? '')?.[1];
if (!oldest) {
  process.stderr.write(`test-undici: package.json's undici is "${range}"; this script expects a caret range (^X.Y.Z).\n`);
  process.exit(2);
}
const locked = lock.packages?.['node_modules/undici']?.version;
// The newest that ^X.Y.Z allows: the newest X.*, as npm resolves it.
const ends = [oldest, oldest.split('.')[0]];
const nodes = process.argv.slice(2);

function step(cmd, args) {
  process.stderr.write(`test-undici: ${[cmd, ...args].join(' ')}\n`);
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`test-undici: "${[cmd, ...args].join(' ')}" ${r.error ? `failed: ${r.error.message}` : `exited with ${r.status ?? r.signal}`}.\n`);
    process.exit(r.status || 1);
  }
}

const installed = () => JSON.parse(readFileSync(new URL('../node_modules/undici/package.json', import.meta.url), 'utf8')).version;

for (const version of ends) {
  step('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `undici@${version}`]);
  process.stderr.write(`test-undici: undici ${installed()} (package.json: ${range})\n`);
  step('npm', ['run', 'build']);
  step('npx', ['vitest', 'run', '--project', 'e2e', '--exclude', 'test/e2e/sea.test.ts']);
  for (const major of nodes) step('npm', ['run', 'test:node', '--', major, '--project', 'e2e']);
}
if (locked) step('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `undici@${locked}`]);
step('npm', ['run', 'build']);
process.stderr.write(`test-undici: the e2e layer passed with undici ${oldest} and the newest ${ends[1]}.x (${range}).\n`);

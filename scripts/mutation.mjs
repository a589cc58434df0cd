#!/usr/bin/env node
// npm run test:mutation [-- PIECE ...] [-- --concurrency 1 …]: Stryker over the modules that
// keep hostctl's promises (docs/testing.md), one piece after another (PIECES in
// stryker.config.mjs; all of them when none is named), each with its own incremental file in
// the cache directory (MUTATION_CACHE: $HOSTCTL_MUTATION_CACHE, else hostctl-mutation under
// the XDG cache home) and its reports under reports/mutation/. Builds dist/ first: a few cli
// tests run the built CLI. Arguments that begin with -- go to Stryker as they are.
//
//   node scripts/mutation.mjs --survivors PIECE [TEXT]   what survived so far (during a run too),
//                                                        one line a mutant, of files whose path has TEXT
//   node scripts/mutation.mjs --score PIECE ...          the score of each file and of all, from the reports
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTATION_CACHE, PIECES } from '../stryker.config.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const reports = join(root, 'reports', 'mutation');
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

function fail(message) {
  console.error(`mutation: ${message}`);
  process.exit(2);
}

function known(piece) {
  if (!Object.hasOwn(PIECES, piece)) fail(`${piece} is not a piece; the pieces are ${Object.keys(PIECES).join(', ')}.`);
  return piece;
}

const srcPath = (file) => relative(root, file).replace(/^.*?(?=src\/)/, '');

/** Killed and timed out over all but the ignored, compile errors and the like, as Stryker counts. */
function score(c) {
  const detected = (c.Killed ?? 0) + (c.Timeout ?? 0);
  const all = detected + (c.Survived ?? 0) + (c.NoCoverage ?? 0);
  return all === 0 ? '-' : `${((100 * detected) / all).toFixed(2)} %`;
}

function printScores(pieces) {
  const perFile = {};
  const total = {};
  for (const piece of pieces) {
    const file = join(reports, `${known(piece)}.json`);
    if (!existsSync(file)) fail(`no report of ${piece} yet (${relative(root, file)}); run it first.`);
    for (const [name, { mutants }] of Object.entries(JSON.parse(readFileSync(file, 'utf8')).files)) {
      for (const { status } of mutants) {
        const counts = (perFile[srcPath(name)] ??= {});
        counts[status] = (counts[status] ?? 0) + 1;
        total[status] = (total[status] ?? 0) + 1;
      }
    }
  }
  const row = (name, c) =>
    console.log(`| ${name} | ${Object.values(c).reduce((a, b) => a + b, 0)} | ${c.Killed ?? 0} | ${c.Timeout ?? 0} | ${c.Survived ?? 0} | ${c.NoCoverage ?? 0} | ${score(c)} |`);
  console.log('| File | Mutants | Killed | Timeout | Survived | No coverage | Score |\n|---|---:|---:|---:|---:|---:|---:|');
  for (const name of Object.keys(perFile).sort()) row(`\`${name}\``, perFile[name]);
  row('all', total);
}

function printSurvivors(piece, filter = '') {
  const dir = join(reports, `events-${known(piece)}`);
  if (!existsSync(dir)) fail(`no events of ${piece} (${relative(root, dir)}): it has not been run with scripts/mutation.mjs here.`);
  const names = readdirSync(dir).sort();
  const planned = {};
  const plan = names.find((n) => n.endsWith('onMutationTestingPlanReady.json'));
  if (plan) for (const { mutant } of JSON.parse(readFileSync(join(dir, plan), 'utf8')).mutantPlans) planned[srcPath(mutant.fileName)] = (planned[srcPath(mutant.fileName)] ?? 0) + 1;
  const perFile = {};
  const undetected = [];
  for (const name of names.filter((n) => n.endsWith('onMutantTested.json'))) {
    const m = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    const file = srcPath(m.fileName);
    const counts = (perFile[file] ??= {});
    counts[m.status] = (counts[m.status] ?? 0) + 1;
    if (UNDETECTED.has(m.status) && file.includes(filter)) undetected.push({ ...m, file });
  }
  for (const [file, c] of Object.entries(perFile)) {
    const tested = Object.values(c).reduce((a, b) => a + b, 0);
    console.log(`${file}: ${tested} of ${planned[file] ?? '?'} tested, ${c.Survived ?? 0} survived, ${c.NoCoverage ?? 0} no coverage, score ${score(c)}`);
  }
  const sources = {};
  undetected.sort((a, b) => a.file.localeCompare(b.file) || a.location.start.line - b.location.start.line);
  for (const m of undetected) {
    const lines = (sources[m.file] ??= readFileSync(join(root, m.file), 'utf8').split('\n'));
    const { start, end } = m.location;
    // The events' columns count from 1.
    const text = start.line === end.line ? lines[start.line - 1].slice(start.column - 1, end.column - 1) : `${lines[start.line - 1].slice(start.column - 1)} …`;
    const flat = (t) => String(t).replace(/\s+/g, ' ').slice(0, 100);
    const marks = `${m.status === 'NoCoverage' ? 'no coverage ' : ''}${m.static ? 'static ' : ''}`;
    console.log(`${m.id}\t${m.file}:${start.line}\t${marks}${m.mutatorName}\t\`${flat(text)}\` -> \`${flat(m.replacement)}\``);
  }
}

const args = process.argv.slice(2);
if (args[0] === '--survivors') {
  printSurvivors(args[1] ?? fail('--survivors takes a piece.'), args[2]);
} else if (args[0] === '--score') {
  printScores(args.length > 1 ? args.slice(1) : fail('--score takes one piece or more.'));
} else {
  const pieces = args.filter((a) => !a.startsWith('-')).map(known);
  const strykerArgs = args.filter((a) => a.startsWith('-'));
  const run = (cmd, cmdArgs, env = process.env) => {
    const { status } = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env });
    if (status !== 0) process.exit(status ?? 1);
  };
  run(process.execPath, ['scripts/build.mjs']);
  console.log(`mutation: incremental files in ${MUTATION_CACHE}`);
  for (const piece of pieces.length > 0 ? pieces : Object.keys(PIECES)) {
    console.log(`mutation: piece ${piece} (${PIECES[piece].join(' ')})`);
    run(process.execPath, [join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'), 'run', ...strykerArgs], { ...process.env, HOSTCTL_MUTATION_PIECE: piece });
  }
}

// `npm run bench`: hostctl's start-up cost as ratios to bare Node doing the same work.
//
//   (a) hostctl apps list --json   vs  a bare node:http script: the same GET, same headers, prints the JSON  (≤ 1.7)
//   (b) hostctl --version          vs  node -e 0  (≤ 1.15)
//   (c) hostctl __complete apps get ""  vs  node -e 0  (≤ 1.2)
//   (d) peak RSS of (a)            vs  peak RSS of (a)'s baseline  (≤ 1.5)
//
// and, for information, the floor of (a) for any program that uses undici: a script doing
// the same GET through the same slim undici bundle (scripts/trim.mjs), loaded the way
// hostctl is (bin/hostctl.js's loadProgram: V8 code cache, --liftoff-only), against the
// same node:http script.
//
// Each pair runs alternately (A B, then B A, …) after warm-ups, against `hostctl sandbox`
// on loopback, and the medians are compared. Ratios within one run are robust to a
// uniformly slow machine, not to a neighbour that comes and goes: run it on a quiet one.
// Exits non-zero only when something could not be measured (a run failed, or the two
// sides of (a) printed different data); a ratio over its target is reported, not fatal.
//
//   (e) the request economy: parallel and sequential loops of commands with one token
//       against a rate-limited sandbox, as ratios to their theoretical minimum, and 429s
//       (--section economy runs just this part); and the fleet (issue 26): 4 "machines"
//       (own config dirs and homes) of 8 commands with one token, without and with a
//       shared budget in a redis-server the bench starts, and the latency one Redis
//       reservation adds on loopback
//
// and an output section: rows/s of `hostctl apps list --all -o FORMAT` for json, ndjson,
// tsv and table at 10,000 objects in pages of 100, and 100,000 objects (the bulk walk) in
// pages of 100 and of 1,000, against a floor measured in the same run (`curl` fetching
// every page | `jq -c '.[]'`), with the peak RSS of each. The objects come from a small
// paging server of the bench's own (a child process, pages pre-rendered, Link headers,
// rate-limit headers with a limit no walk reaches, and `Keep-Alive: timeout=2` as common
// servers send), so the server costs next to nothing. Targets: json, ndjson and tsv
// within 2x the floor; table within 3x tsv. Peak RSS is for information: V8 sizes its
// heap for the rate a walk allocates at, and hostctl leaves it to.
//
// Options: --runs N (timed pairs per case, default 40), --warmup N (default 5),
// --rss-runs N (default 10), --output-runs N (runs per output case, default 3),
// --section startup|output|economy|all (default all), --keep-env (see childEnv below), --sea (also
// the single-file executable, dist/hostctl-<platform>-<arch> from `npm run build:sea`,
// against `node bin/hostctl.js` on three commands, then against its own Node (24) running
// bin/hostctl.js with a dist/ built by that Node; and the sizes of both),
// --node N (every process runs on the newest Node N.x from scripts/node-dist.mjs, hostctl
// from a copy of the package whose dist/ that Node built: the figures per Node),
// --against FILE (also (a), `apps list` as a table, (b) and (c) of another build, FILE being its bin/hostctl.js,
// against this one, alternately in the same run: a change's cost before and after; may be
// given more than once, numbered #1, #2… in the order given).

/* global fetch */
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { nodeDist } from './node-dist.mjs';
import { builtinDefaults, trimDependencies } from './trim.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
// Both change with --node (main).
let BIN = join(ROOT, 'bin', 'hostctl.js');
let NODE = process.execPath;
const TIME = '/usr/bin/time';
const SEA = join(ROOT, 'dist', `hostctl-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`);

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      runs: { type: 'string', default: '40' },
      warmup: { type: 'string', default: '5' },
      'rss-runs': { type: 'string', default: '10' },
      'output-runs': { type: 'string', default: '3' },
      section: { type: 'string', default: 'all' },
      'keep-env': { type: 'boolean', default: false },
      sea: { type: 'boolean', default: false },
      node: { type: 'string' },
      against: { type: 'string', multiple: true },
    },
  }));
} catch (err) {
  process.stderr.write(`bench: ${err.message}\nUsage: npm run bench -- [--runs N] [--warmup N] [--rss-runs N] [--output-runs N] [--section startup|output|economy|all] [--keep-env] [--sea] [--node N] [--against FILE]\n`);
  process.exit(2);
}

function count(raw, flag) {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) fail(`${flag} takes a whole number from 1 up, not "${raw}".`);
  return n;
}

class CannotMeasure extends Error {}

function fail(message) {
  throw new CannotMeasure(message);
}

/**
 * The environment of every measured process. NODE_OPTIONS would change what each side
 * runs. NODE_EXTRA_CA_CERTS makes every Node process read and parse a CA file before it
 * runs a line (about 75 ms on the machine this was written on, on both sides alike): it
 * would dilute every ratio towards 1, so it is dropped unless --keep-env is given. Nothing
 * here speaks TLS.
 */
function childEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('HOSTCTL_') || k === 'NODE_OPTIONS' || k === 'FORCE_COLOR' || k === 'NO_COLOR') continue;
    if (k === 'NODE_EXTRA_CA_CERTS' && !args['keep-env']) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

// The floor for (a): what any Node program must do to print this list. CommonJS, as a
// bare `node script.js` outside a package is, so it pays no ES module loader.
const BASELINE = String.raw`'use strict';
const http = require('node:http');
const url = new URL(process.env.HOSTCTL_BASE_URL + '/apps');
const req = http.get(url, {
  headers: {
    accept: 'application/json',
    authorization: 'Bearer ' + process.env.HOSTCTL_TOKEN,
    'user-agent': 'hostctl/' + process.env.BENCH_VERSION,
  },
}, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => {
    if (res.statusCode !== 200) {
      process.stderr.write('HTTP ' + res.statusCode + '\n');
      process.exitCode = 1;
      return;
    }
    process.stdout.write(JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')), null, 2) + '\n');
  });
});
req.on('error', (err) => {
  process.stderr.write(err.message + '\n');
  process.exitCode = 1;
});
`;

// The undici floor: the same GET as BASELINE, with the pool options hostctl's HTTP core
// uses, through the undici that hostctl bundles.
const UNDICI_FLOOR = String.raw`import { Agent } from 'undici';

export async function main() {
  const timeout = 30_000;
  const agent = new Agent({ keepAliveTimeout: 10_000, connect: { timeout }, headersTimeout: timeout, bodyTimeout: timeout });
  try {
    const url = new URL(process.env.HOSTCTL_BASE_URL + '/apps');
    const res = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'GET',
      headers: {
        accept: 'application/json',
        authorization: 'Bearer ' + process.env.HOSTCTL_TOKEN,
        'user-agent': 'hostctl/' + process.env.BENCH_VERSION,
      },
    });
    const chunks = [];
    for await (const chunk of res.body) chunks.push(chunk);
    if (res.statusCode !== 200) {
      process.stderr.write('HTTP ' + res.statusCode + '\n');
      return 1;
    }
    process.stdout.write(JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')), null, 2) + '\n');
    return 0;
  } finally {
    await agent.destroy();
  }
}
`;

/**
 * Bundles UNDICI_FLOOR as dist/hostctl.cjs is bundled, into `dir`, with a script that
 * runs it through bin/hostctl.js's loader, and one that runs it once and saves its code
 * cache, as the build trains the program's: { runner, trainer }.
 */
async function buildUndiciFloor(dir) {
  await build({
    absWorkingDir: ROOT,
    stdin: { contents: UNDICI_FLOOR, resolveDir: ROOT, loader: 'js' },
    outfile: join(dir, 'hostctl.cjs'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [builtinDefaults, trimDependencies(dir)],
  });
  const runner = join(dir, 'run.cjs');
  writeFileSync(runner, `'use strict';\nrequire(${JSON.stringify(BIN)}).loadProgram(__dirname).exports.main().then((code) => { process.exitCode = code; });\n`);
  const trainer = join(dir, 'train.cjs');
  writeFileSync(
    trainer,
    `'use strict';\nconst floor = require(${JSON.stringify(BIN)}).loadProgram(__dirname);\nfloor.exports.main().then((code) => { process.exitCode = code; require('node:fs').writeFileSync(__dirname + '/hostctl.cjs.cache', floor.cache()); });\n`,
  );
  return { runner, trainer };
}

/**
 * The package laid out in `dir` (bin/, package.json, and dist/ built by `node`, whose V8
 * accepts the code caches that build trains), for `node` to run as it runs from a clone.
 * Returns its bin/hostctl.js.
 */
function buildForNode(node, dir) {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  for (const file of ['bin/hostctl.js', 'bin/package.json', 'package.json']) copyFileSync(join(ROOT, file), join(dir, file));
  const r = spawnSync(node, [join(ROOT, 'scripts', 'build.mjs'), '--out', join(dir, 'dist')], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.status !== 0) fail(`Building dist/ with ${node} failed. ${String(r.stderr).trim()}`);
  return join(dir, 'bin', 'hostctl.js');
}

/** Starts `hostctl sandbox` and reads its two lines; rejects after 20 s. */
function startSandbox(env, limits = ['--rate-limit', '1000000']) {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [BIN, 'sandbox', '--port', '0', ...limits], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let logs = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (logs += d));
    const vars = {};
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new CannotMeasure(`hostctl sandbox did not start within 20 s. ${logs.trim()}`));
    }, 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new CannotMeasure(`hostctl sandbox exited with ${code}. ${logs.trim()}`));
    });
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      const m = /^(HOSTCTL_[A-Z_]+)=(.*)$/.exec(line);
      if (m) vars[m[1]] = m[2];
      if (vars.HOSTCTL_BASE_URL && vars.HOSTCTL_TOKEN) {
        clearTimeout(timer);
        rl.close();
        child.removeAllListeners('exit');
        resolve({ child, baseUrl: vars.HOSTCTL_BASE_URL, token: vars.HOSTCTL_TOKEN });
      }
    });
  });
}

/** One run: wall time in ms from spawn to exit, and what it printed. */
function run(cmd, argv, env) {
  const started = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.error || r.status !== 0) {
    fail(`"${[cmd, ...argv].join(' ')}" ${r.error ? `failed: ${r.error.message}` : `exited with ${r.status ?? r.signal}`}. ${String(r.stderr ?? '').trim()}`);
  }
  return { ms, stdout: String(r.stdout) };
}

/** Peak RSS in KiB of one run, through GNU time. */
function rss(cmd, argv, env, outFile) {
  const r = spawnSync(TIME, ['-f', '%M', '-o', outFile, cmd, ...argv], { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
  if (r.error || r.status !== 0) fail(`"${[cmd, ...argv].join(' ')}" under ${TIME} exited with ${r.status ?? r.error?.message}. ${String(r.stderr ?? '').trim()}`);
  const kib = Number(readFileSync(outFile, 'utf8').trim().split('\n').pop());
  if (!Number.isFinite(kib) || kib <= 0) fail(`${TIME} reported no peak RSS.`);
  return kib;
}

/** Runs A and B alternately, A first on even rounds and B first on odd ones. */
function alternate(a, b, warmup, runs) {
  const out = { a: [], b: [] };
  for (let i = 0; i < warmup + runs; i++) {
    const pair = i % 2 === 0 ? [['a', a], ['b', b]] : [['b', b], ['a', a]];
    for (const [side, fn] of pair) {
      const v = fn();
      if (i >= warmup) out[side].push(v);
    }
  }
  return out;
}

function median(list) {
  const s = [...list].sort((x, y) => x - y);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function quartiles(list) {
  const s = [...list].sort((x, y) => x - y);
  return [s[Math.floor((s.length - 1) / 4)], s[Math.ceil(((s.length - 1) * 3) / 4)]];
}

// The output section's server: N app-like objects, SIZE a page, bare arrays with a Link
// header to the next page, and the rate-limit headers the platform sends on every answer
// (a limit no walk reaches), so that hostctl's budget does its per-request work as against
// the platform. It keeps an idle connection 2 s and says so (`Keep-Alive: timeout=2`, as
// Node's and many servers' defaults do: undici's own margin once made that a connection
// per page). Pages are rendered once, at start, so a request costs a write.
const PAGING_SERVER = String.raw`'use strict';
const http = require('node:http');
const total = Number(process.argv[2]);
const size = Number(process.argv[3]);
const hex = (n) => (n * 2654435761 >>> 0).toString(16).padStart(8, '0');
const pages = [];
for (let start = 0; start < total; start += size) {
  const items = [];
  for (let i = start; i < Math.min(total, start + size); i++) {
    items.push({
      publicId: 'ap-' + i.toString(36).padStart(8, '0'),
      name: 'app-' + i,
      status: i % 7 === 0 ? 'stopped' : 'running',
      region: ['eu-west', 'us-east', 'ap-south'][i % 3],
      team: 'te-' + (i % 50).toString(36).padStart(8, '0'),
      commit: hex(i) + hex(i + 1) + hex(i + 2) + hex(i + 3) + hex(i + 4),
      instances: i % 5,
      createdAt: new Date(Date.UTC(2025, 0, 1) + i * 60000).toISOString(),
      updatedAt: new Date(Date.UTC(2026, 0, 1) + i * 60000).toISOString(),
    });
  }
  pages.push(Buffer.from(JSON.stringify(items)));
}
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://bench.invalid');
  const n = Number(url.searchParams.get('page') || '1');
  const body = pages[n - 1] || Buffer.from('[]');
  const now = Date.now();
  while (served.length > 0 && served[0] <= now - 60000) served.shift();
  served.push(now);
  const reset = Math.ceil((served[0] + 60000 - now) / 1000);
  const headers = { 'content-type': 'application/json', 'content-length': body.length, 'x-ratelimit-limit': '1000000', 'x-ratelimit-remaining': String(1000000 - served.length), 'x-ratelimit-reset': String(reset) };
  if (n < pages.length) headers.link = '</v1/apps?page=' + (n + 1) + '>; rel="next"';
  res.writeHead(200, headers);
  res.end(body);
});
// The platform's window slides (platform-api.md, Limits): what it counts is the last minute's requests.
const served = [];
server.keepAliveTimeout = 2000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\n'));
`;

function startPagingServer(file, total, size, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [file, String(total), String(size)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const rl = createInterface({ input: child.stdout });
    child.on('exit', (code) => reject(new CannotMeasure(`the bench's paging server exited with ${code}.`)));
    rl.on('line', (line) => {
      rl.close();
      child.removeAllListeners('exit');
      resolve({ child, baseUrl: `http://127.0.0.1:${line.trim()}/v1`, pages: Math.ceil(total / size) });
    });
  });
}

/** Wall time in ms of a shell pipeline, its stdout counted in lines. */
function runShell(script, env) {
  const started = process.hrtime.bigint();
  const r = spawnSync('sh', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1024 * 1024 * 1024, timeout: 600_000 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.error || r.status !== 0) fail(`"${script}" ${r.error ? `failed: ${r.error.message}` : `exited with ${r.status ?? r.signal}`}. ${String(r.stderr ?? '').trim()}`);
  return { ms, lines: String(r.stdout).split('\n').length - 1 };
}

const shq = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

async function outputSection(scratch, runs) {
  const lines = [];
  const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
  const floorMissing = ['curl', 'jq'].filter((c) => !have(c));
  if (floorMissing.length > 0) lines.push(`The curl | jq floor is skipped: ${floorMissing.join(' and ')} not installed (apt-get install ${floorMissing.join(' ')}).`);
  if (!existsSync(TIME)) fail(`${TIME} (GNU time) is needed for the peak RSS: install the "time" package.`);
  const serverFile = join(scratch, 'paging-server.cjs');
  writeFileSync(serverFile, PAGING_SERVER);
  const rssFile = join(scratch, 'rss-output.txt');
  const results = [];
  for (const [total, size] of [[10_000, 100], [100_000, 100], [100_000, 1_000]]) {
    const server = await startPagingServer(serverFile, total, size, childEnv({}));
    try {
      const env = childEnv({ HOSTCTL_BASE_URL: server.baseUrl, HOSTCTL_TOKEN: 'bench-token', HOSTCTL_CONFIG_DIR: join(scratch, `config-${total}-${size}`), COLUMNS: '160' });
      const hostctl = (format) => `${shq(NODE)} ${shq(BIN)} apps list --all -o ${format}`;
      const cases = [];
      if (floorMissing.length === 0) {
        cases.push(['curl | jq -c', `curl -sf -H 'accept: application/json' ${shq(`${server.baseUrl}/apps?page=[1-${server.pages}]`)} | jq -c '.[]'`, undefined]);
      }
      for (const format of ['json', 'ndjson', 'tsv', 'table']) cases.push([format, hostctl(format), format]);
      for (const [name, script, format] of cases) {
        const times = [];
        let count = 0;
        for (let i = 0; i < runs; i++) {
          const r = runShell(script, env);
          times.push(r.ms);
          count = r.lines;
        }
        const expected = format === 'json' ? total * 11 + 2 : format === 'table' ? total + 1 : total;
        if (count !== expected) fail(`${name} at ${total} objects (${size} a page) printed ${count} lines, not ${expected}.`);
        let peak;
        if (format) {
          const r = spawnSync(TIME, ['-f', '%M', '-o', rssFile, NODE, BIN, 'apps', 'list', '--all', '-o', format], { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 });
          if (r.status !== 0) fail(`hostctl apps list --all -o ${format} under ${TIME} exited with ${r.status}. ${String(r.stderr).trim()}`);
          peak = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024;
        }
        results.push({ total, size, name, ms: median(times), peak });
      }
    } finally {
      server.child.kill('SIGTERM');
    }
  }
  const header = ['objects', 'a page', 'case', 'median', 'rows/s', 'vs floor', 'vs tsv', 'peak RSS', ''];
  const table = [header];
  let allPass = true;
  for (const r of results) {
    const same = (x) => x.total === r.total && x.size === r.size;
    const floor = results.find((x) => same(x) && x.name === 'curl | jq -c');
    const tsv = results.find((x) => same(x) && x.name === 'tsv');
    const vsFloor = floor && r !== floor ? r.ms / floor.ms : undefined;
    const vsTsv = r.name === 'table' && tsv ? r.ms / tsv.ms : undefined;
    const checks = [];
    if (vsFloor !== undefined && r.name !== 'table') checks.push(vsFloor <= 2);
    if (vsTsv !== undefined) checks.push(vsTsv <= 3);
    const pass = checks.every(Boolean);
    if (checks.length > 0) allPass &&= pass;
    table.push([
      r.total.toLocaleString('en'),
      r.size.toLocaleString('en'),
      r.name,
      `${(r.ms / 1000).toFixed(2)} s`,
      Math.round(r.total / (r.ms / 1000)).toLocaleString('en'),
      vsFloor === undefined ? '' : `${vsFloor.toFixed(2)}${r.name === 'table' ? '' : ' (≤ 2)'}`,
      vsTsv === undefined ? '' : `${vsTsv.toFixed(2)} (≤ 3)`,
      r.peak === undefined ? '' : `${r.peak.toFixed(1)} MiB`,
      checks.length === 0 ? 'info' : pass ? 'pass' : 'FAIL',
    ]);
  }
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  lines.push(`Output: hostctl apps list --all -o FORMAT > pipe, median of ${runs} runs each; peak RSS of one run.`);
  for (const row of table) lines.push(row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
  lines.push(allPass ? 'All output targets are met.' : 'Some output targets are missed (timings are noisy on a busy machine; run it again on a quiet one).');
  return lines;
}

// The request economy (issue 13): commands with one token against a sandbox that allows
// ECONOMY_LIMIT requests per ECONOMY_WINDOW_S seconds, each case as a ratio of its wall
// time to the theoretical minimum (theoreticalMinimum: a perfect scheduler with the
// measured time of one command and the window), and the 429s
// the sandbox answered (from its request log).
const ECONOMY_LIMIT = 10;
const ECONOMY_WINDOW_S = 5;

/**
 * The shortest possible wall time of `loops` parallel loops of `each` commands, each
 * taking `commandMs` and sending one request, when at most `limit` requests may start in
 * any `windowMs`: a perfect scheduler, simulated (the next request goes when its loop is
 * free and the window allows it).
 */
function theoreticalMinimum(loops, each, commandMs, limit, windowMs) {
  const ready = Array(loops).fill(0);
  const left = Array(loops).fill(each);
  const starts = [];
  let end = 0;
  for (let n = 0; n < loops * each; n++) {
    let i = -1;
    for (let j = 0; j < loops; j++) if (left[j] > 0 && (i === -1 || ready[j] < ready[i])) i = j;
    const start = Math.max(ready[i], starts.length >= limit ? starts[starts.length - limit] + windowMs : 0);
    starts.push(start);
    left[i]--;
    ready[i] = start + commandMs;
    end = Math.max(end, ready[i]);
  }
  return end;
}

/** One hostctl process, asynchronously: resolves with its wall time, rejects on failure. */
function runAsync(argv, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(NODE, [BIN, ...argv], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('exit', (code) => {
      if (code === 0) resolve(Number(process.hrtime.bigint() - started) / 1e6);
      else reject(new CannotMeasure(`hostctl ${argv.join(' ')} exited with ${code}: ${err.trim()}`));
    });
  });
}

async function economy(scratch, oneCommandMs) {
  const sandbox = await startSandbox(childEnv({}), ['--rate-limit', String(ECONOMY_LIMIT), '--window', String(ECONOMY_WINDOW_S)]);
  const admin = (path, init) => fetch(`${sandbox.baseUrl.replace(/\/v1$/, '')}/_sandbox${path}`, init);
  try {
    const apps = await (await admin('/objects/apps')).json();
    const argv = ['apps', 'get', apps[0].publicId, '--json'];
    const windowMs = ECONOMY_WINDOW_S * 1000;
    const minimum = (loops, each) => theoreticalMinimum(loops, each, oneCommandMs, ECONOMY_LIMIT, windowMs);
    const cases = [
      { name: `(e1) 5 parallel loops of 8, one token, ${ECONOMY_LIMIT}/${ECONOMY_WINDOW_S}s`, loops: 5, each: 8, target: 1.3 },
      { name: `(e2) 100 sequential commands, ${ECONOMY_LIMIT}/${ECONOMY_WINDOW_S}s`, loops: 1, each: 100, target: 1.03 },
    ];
    const redis = await startRedisServer();
    if (redis.url) {
      cases.push(
        { name: `(e3) 4 machines × 8, one token, ${ECONOMY_LIMIT}/${ECONOMY_WINDOW_S}s, each its own budget`, loops: 4, each: 8, machines: true, informational: true },
        { name: `(e4) the same, one budget in Redis`, loops: 4, each: 8, machines: true, redis: redis.url, target: 1.3 },
      );
    }
    const rows = [];
    try {
    for (const [i, c] of cases.entries()) {
      const res = await admin('/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `economy-${i}` }) });
      const { token } = await res.json();
      const env = childEnv({ HOSTCTL_BASE_URL: sandbox.baseUrl, HOSTCTL_TOKEN: token, HOSTCTL_CONFIG_DIR: join(scratch, `economy-${i}`), ...(c.redis ? { HOSTCTL_REDIS_URL: c.redis } : {}) });
      // A machine of its own: its config dir (state, budget file) and home.
      const machine = (m) => (c.machines ? { ...env, HOSTCTL_CONFIG_DIR: join(scratch, `economy-${i}-m${m}`), HOME: join(scratch, `economy-${i}-m${m}-home`) } : env);
      const started = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: c.loops }, async (_, m) => {
          for (let n = 0; n < c.each; n++) await runAsync(argv, machine(m));
        }),
      );
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const log = await (await admin('/requests')).json();
      const mine = log.filter((r) => r.token === `economy-${i}`);
      rows.push({ name: c.name, ms, min: minimum(c.loops, c.each), sent: mine.length, refused: mine.filter((r) => r.status === 429).length, target: c.target, informational: c.informational });
    }
    if (redis.url) rows.reservationMs = await redisReservationMs(redis.port);
    else rows.skipped = redis.why;
    } finally {
      redis.stop();
    }
    return rows;
  } finally {
    sandbox.child.kill('SIGTERM');
  }
}

/** A redis-server of the bench's own on a free loopback port, persistence off; { why } when there is none. */
async function startRedisServer() {
  if (spawnSync('redis-server', ['--version']).status !== 0) return { why: 'redis-server is not installed', stop() {} };
  const { createServer, connect } = await import('node:net');
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const port = probe.address().port;
  await new Promise((r) => probe.close(r));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise((r) => {
      const s = connect(port, '127.0.0.1', () => (s.end(), r(true)));
      s.on('error', () => r(false));
    });
    if (up) return { url: `redis://127.0.0.1:${port}/0`, port, stop: () => child.kill('SIGTERM') };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  return { why: `redis-server did not listen on ${port}`, stop() {} };
}

/**
 * What one reservation in Redis costs on loopback: the median of 200 updates through the
 * built chunk's RedisStore (WATCH+GET+TIME, then MULTI/SET/EXEC), in ms.
 */
async function redisReservationMs(port) {
  const chunk = readdirSync(join(ROOT, 'dist', 'chunks')).find((f) => /^redis-.*\.cjs$/.test(f));
  if (!chunk) return undefined;
  const { connectRedis, RedisStore } = createRequire(import.meta.url)(join(ROOT, 'dist', 'chunks', chunk));
  const link = await connectRedis({ host: '127.0.0.1', port, tls: false, db: 0, where: `127.0.0.1:${port}` });
  const store = new RedisStore(link, { budget: 'hostctl:{bench}:budget', cache: (id) => `hostctl:{bench}:cache:${id}` }, undefined, (why) => {
    throw new Error(why);
  });
  const times = [];
  try {
    for (let i = 0; i < 220; i++) {
      const t = process.hrtime.bigint();
      await store.update((d, now) => ({ data: { ...d, sends: [...d.sends.slice(-9), [now, now]] }, result: undefined }), undefined);
      if (i >= 20) times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  } finally {
    store.close();
  }
  return median(times);
}

function printEconomy(rows, oneCommandMs) {
  console.log('');
  console.log(`Request economy (one command alone: ${oneCommandMs.toFixed(0)} ms; minimum = a perfect scheduler's wall time with that command time and the window):`);
  const header = ['case', 'wall', 'minimum', 'ratio', 'target', 'requests', '429s', ''];
  const table = [header];
  let pass = true;
  for (const r of rows) {
    const ratio = r.ms / r.min;
    const ok = ratio <= r.target && r.refused === 0;
    if (!r.informational) pass &&= ok;
    table.push([r.name, `${(r.ms / 1000).toFixed(2)} s`, `${(r.min / 1000).toFixed(2)} s`, ratio.toFixed(3), r.informational ? '(what it saves)' : `≤ ${r.target}`, String(r.sent), String(r.refused), r.informational ? '' : ok ? 'pass' : 'FAIL']);
  }
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const r of table) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
  if (rows.skipped) console.log(`The fleet cases (e3, e4) are skipped: ${rows.skipped}.`);
  if (rows.reservationMs !== undefined) console.log(`One reservation in Redis on loopback (two round trips): ${rows.reservationMs.toFixed(2)} ms, median of 200.`);
  return pass;
}

/** The median wall time of one `apps get` against an unlimited sandbox. */
function oneCommand(env) {
  const apps = JSON.parse(run(NODE, [BIN, 'apps', 'list', '--json'], env).stdout);
  const argv = [BIN, 'apps', 'get', apps[0].publicId, '--json'];
  for (let i = 0; i < 3; i++) run(NODE, argv, env);
  return median(Array.from({ length: 15 }, () => run(NODE, argv, env).ms));
}

async function main() {
  const RUNS = count(args.runs, '--runs');
  const WARMUP = count(args.warmup, '--warmup');
  const RSS_RUNS = count(args['rss-runs'], '--rss-runs');
  if (!existsSync(join(ROOT, 'dist', 'hostctl.cjs'))) fail('dist/ is missing or out of date: run "npm run build" first.');
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  const OUTPUT_RUNS = count(args['output-runs'], '--output-runs');
  if (!['all', 'startup', 'output', 'economy'].includes(args.section)) fail(`--section takes startup, output, economy or all, not "${args.section}".`);
  if (args.node !== undefined && args.sea) fail('--sea compares the executable with the Node that runs the bench: leave out --node.');
  const scratch = mkdtempSync(join(tmpdir(), 'hostctl-bench-'));
  let sandbox;
  try {
    if (args.node !== undefined) {
      NODE = nodeDist(args.node, { log: (line) => process.stderr.write(`${line}\n`) });
      BIN = buildForNode(NODE, join(scratch, `node${args.node}`));
    }
    if (args.section === 'output') {
      for (const line of await outputSection(scratch, OUTPUT_RUNS)) console.log(line);
      return 0;
    }
    sandbox = await startSandbox(childEnv({}));
    const baselineFile = join(scratch, 'baseline.cjs');
    writeFileSync(baselineFile, BASELINE);
    const env = childEnv({
      HOSTCTL_BASE_URL: sandbox.baseUrl,
      HOSTCTL_TOKEN: sandbox.token,
      HOSTCTL_CONFIG_DIR: join(scratch, 'config'),
      BENCH_VERSION: version,
    });

    if (args.section === 'economy') {
      const one = oneCommand(env);
      const ok = printEconomy(await economy(scratch, one), one);
      console.log('');
      console.log(ok ? 'Every ratio meets its target.' : 'Some ratios miss their targets (timings are noisy on a busy machine; run it again on a quiet one).');
      return 0;
    }

    const floorDir = join(scratch, 'undici-floor');
    mkdirSync(floorDir);
    const { runner: undiciFloor, trainer } = await buildUndiciFloor(floorDir);

    // The sides of (a) must print the same data, or the comparison means nothing.
    const listed = JSON.parse(run(NODE, [BIN, 'apps', 'list', '--json'], env).stdout);
    const floor = JSON.parse(run(NODE, [baselineFile], env).stdout);
    if (!isDeepStrictEqual(listed, floor)) fail('hostctl apps list --json and the baseline script printed different data.');
    if (!isDeepStrictEqual(JSON.parse(run(NODE, [trainer], env).stdout), floor)) fail('The undici floor script and the baseline script printed different data.');
    if (!existsSync(join(floorDir, 'hostctl.cjs.cache'))) fail('The undici floor script saved no code cache on its first run.');
    // (a) has filled the ID cache, so (c) answers with the app IDs, as after real use.
    const candidates = run(NODE, [BIN, '__complete', 'apps', 'get', ''], env).stdout.split('\n').filter(Boolean);
    if (candidates.length === 0) fail('hostctl __complete apps get "" offered no IDs after apps list.');
    if (run(NODE, [BIN, '--version'], env).stdout !== `${version}\n`) fail(`hostctl --version did not print ${version}.`);

    const load0 = loadavg()[0];
    const rows = [];
    const timed = (name, a, b, target) => {
      const r = alternate(() => a().ms, () => b().ms, WARMUP, RUNS);
      rows.push({ name, a: r.a, b: r.b, unit: 'ms', target });
    };
    timed('(a) apps list --json  / node:http script', () => run(NODE, [BIN, 'apps', 'list', '--json'], env), () => run(NODE, [baselineFile], env), 1.7);
    timed('    undici floor of (a) / node:http script', () => run(NODE, [undiciFloor], env), () => run(NODE, [baselineFile], env));
    timed('(b) --version         / node -e 0', () => run(NODE, [BIN, '--version'], env), () => run(NODE, ['-e', '0'], env), 1.15);
    timed('(c) __complete apps get "" / node -e 0', () => run(NODE, [BIN, '__complete', 'apps', 'get', ''], env), () => run(NODE, ['-e', '0'], env), 1.2);

    for (const [n, other] of (args.against ?? []).entries()) {
      if (!existsSync(other)) fail(`--against ${other}: no such file.`);
      if (run(NODE, [other, 'apps', 'list', '--json'], env).stdout !== run(NODE, [BIN, 'apps', 'list', '--json'], env).stdout) fail(`${other} and this build printed different data.`);
      const tag = args.against.length > 1 ? ` #${n + 1}` : '';
      const cases = [
        ['apps list --json', ['apps', 'list', '--json']],
        ['apps list (a table)', ['apps', 'list']],
        ['--version', ['--version']],
        ['__complete apps get ""', ['__complete', 'apps', 'get', '']],
      ];
      for (const [i, [label, argv]] of cases.entries()) {
        timed(`(x${i + 1}) ${label}: this build / --against${tag}`, () => run(NODE, [BIN, ...argv], env), () => run(NODE, [other, ...argv], env));
      }
    }

    if (args.sea) {
      if (!existsSync(SEA)) fail(`${SEA} is missing: run "npm run build:sea" after "npm run build".`);
      if (run(SEA, ['apps', 'list', '--json'], env).stdout !== run(NODE, [BIN, 'apps', 'list', '--json'], env).stdout) fail('The executable and node bin/hostctl.js printed different data.');
      const cases = [
        ['apps list --json', ['apps', 'list', '--json']],
        ['--version', ['--version']],
        ['__complete apps get ""', ['__complete', 'apps', 'get', '']],
      ];
      for (const [i, [label, argv]] of cases.entries()) {
        timed(`(s${i + 1}) executable ${label} / node bin/hostctl.js`, () => run(SEA, argv, env), () => run(NODE, [BIN, ...argv], env), 1);
      }
      // The same against the executable's own Node running the package from files, and
      // that Node's bare start against this one's: the part hostctl cannot change.
      const embedded = nodeDist(24);
      const embeddedVersion = run(embedded, ['--version'], env).stdout.trim();
      const sameNodeBin = buildForNode(embedded, join(scratch, 'node24'));
      for (const [i, [label, argv]] of cases.entries()) {
        timed(`(s${i + 1}') executable ${label} / Node ${embeddedVersion} bin/hostctl.js`, () => run(SEA, argv, env), () => run(embedded, [sameNodeBin, ...argv], env));
      }
      timed(`     Node ${embeddedVersion} -e 0 / node -e 0`, () => run(embedded, ['-e', '0'], env), () => run(NODE, ['-e', '0'], env));
    }

    if (!existsSync(TIME)) fail(`${TIME} (GNU time) is needed for the peak RSS: install the "time" package.`);
    const rssFile = join(scratch, 'rss.txt');
    const m = alternate(
      () => rss(NODE, [BIN, 'apps', 'list', '--json'], env, rssFile),
      () => rss(NODE, [baselineFile], env, rssFile),
      1,
      RSS_RUNS,
    );
    rows.push({ name: '(d) peak RSS of (a)   / of its baseline', a: m.a.map((k) => k / 1024), b: m.b.map((k) => k / 1024), unit: 'MiB', target: 1.5 });
    if (args.sea) {
      const s = alternate(() => rss(SEA, ['apps', 'list', '--json'], env, rssFile), () => rss(NODE, [BIN, 'apps', 'list', '--json'], env, rssFile), 1, RSS_RUNS);
      rows.push({ name: '(s4) peak RSS of (s1)  / of node bin/hostctl.js', a: s.a.map((k) => k / 1024), b: s.b.map((k) => k / 1024), unit: 'MiB' });
    }
    const one = args.section === 'all' ? oneCommand(env) : 0;
    const economyRows = args.section === 'all' ? await economy(scratch, one) : [];
    const load1 = loadavg()[0];

    const cpu = cpus();
    const nodeVersion = run(NODE, ['--version'], env).stdout.trim();
    console.log(`hostctl ${version}, Node ${nodeVersion}, ${cpu.length} × ${cpu[0]?.model ?? 'CPU'}, ${process.platform}`);
    console.log(`${RUNS} alternating pairs per case after ${WARMUP} warm-up pairs (RSS: ${RSS_RUNS}); load average ${load0.toFixed(2)} → ${load1.toFixed(2)}`);
    for (const [n, other] of (args.against ?? []).entries()) console.log(`--against${args.against.length > 1 ? ` #${n + 1}` : ''}: ${other}`);
    if (!args['keep-env'] && process.env.NODE_EXTRA_CA_CERTS) console.log('NODE_EXTRA_CA_CERTS is set here and was left out of the runs (--keep-env keeps it).');
    console.log('');
    const header = ['case (A / B)', 'median A', 'median B', 'A/B', 'target', ''];
    const table = [header];
    let allPass = true;
    for (const row of rows) {
      const ma = median(row.a);
      const mb = median(row.b);
      const ratio = ma / mb;
      const [qa1, qa3] = quartiles(row.a);
      const spread = row.unit === 'ms' ? ` (IQR ${qa1.toFixed(1)}–${qa3.toFixed(1)})` : '';
      let verdict = 'info';
      if (row.target !== undefined) {
        const pass = ratio <= row.target;
        allPass &&= pass;
        verdict = pass ? 'pass' : 'FAIL';
      }
      table.push([row.name, `${ma.toFixed(1)} ${row.unit}${spread}`, `${mb.toFixed(1)} ${row.unit}`, ratio.toFixed(2), row.target === undefined ? '' : `≤ ${row.target}`, verdict]);
    }
    const widths = header.map((_, i) => Math.max(...table.map((r) => r[i].length)));
    for (const r of table) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
    if (args.sea) {
      const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
      const shipped = readdirSync(join(ROOT, 'dist'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && !e.name.startsWith('hostctl-'));
      const distBytes = shipped.reduce((sum, e) => sum + statSync(join(e.parentPath, e.name)).size, 0);
      console.log('');
      console.log(`Sizes: the executable ${mib(statSync(SEA).size)}; dist/ as the npm package ships it ${mib(distBytes)} (${shipped.length} files), plus Node.`);
    }
    if (args.section === 'all') allPass = printEconomy(economyRows, one) && allPass;
    console.log('');
    console.log(allPass ? 'Every ratio meets its target.' : 'Some ratios miss their targets (timings are noisy on a busy machine; run it again on a quiet one).');
    if (args.section === 'all') {
      console.log('');
      for (const line of await outputSection(scratch, OUTPUT_RUNS)) console.log(line);
    }
    return 0;
  } finally {
    sandbox?.child.kill('SIGTERM');
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`bench: ${err instanceof CannotMeasure ? err.message : err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);

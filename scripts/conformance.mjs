// `npm run test:conformance [-- <major>]`: the official MCP conformance suite
// (@modelcontextprotocol/conformance, a dev dependency) against `hostctl mcp --http`, on the
// dist/ already built. The suite needs Node 22 or later: it runs under the newest <major>.x
// (default 22) from the build cache (scripts/node-dist.mjs, fetched there if missing, as
// test-node does); hostctl itself runs under the Node running this script.
//
// What runs: a sandbox (`hostctl sandbox`), `hostctl mcp --http` against it, and the
// server scenarios that apply to a server of read-only tools (SCENARIOS). The suite's
// client sends no Authorization header, so it talks to a loopback proxy of this script's
// that adds the key and passes everything else (Host and Origin included) as sent: the
// DNS rebinding scenario reaches hostctl's own check.
//
// Exits 0 when every scenario passed, 1 when one failed, 2 on bad arguments.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeDist } from './node-dist.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'hostctl.js');
const SUITE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

const say = (line) => process.stderr.write(`conformance: ${line}\n`);

const [major = '22'] = process.argv.slice(2);
if (!/^\d+$/.test(major) || Number(major) < 22) {
  say('give a Node major version of 22 or later (the suite needs it).\nUsage: npm run test:conformance [-- <major>]');
  process.exit(2);
}

/** Starts `hostctl args` and resolves with the NAME=value lines it prints first (`count` of them). */
function started(args, env, count) {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n').filter((l) => l.includes('='));
      if (lines.length >= count) resolve({ child, vars: Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])) });
    });
    child.on('exit', (code) => reject(new Error(`hostctl ${args[0]} exited with ${code} before it was ready.`)));
  });
}

/** A loopback proxy to `target` that adds the key to every request and changes nothing else. */
function keyProxy(target, key) {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${key}` } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let node;
try {
  node = nodeDist(major, { log: say });
} catch (err) {
  say(err instanceof Error ? err.message : String(err));
  process.exit(1);
}

const home = mkdtempSync(join(tmpdir(), 'hostctl-conformance-'));
const env = { PATH: process.env.PATH, HOME: home, HOSTCTL_CONFIG_DIR: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache') };
const children = [];
let failed = 0;
try {
  const sandbox = await started(['-q', 'sandbox', '--port', '0'], env, 2);
  children.push(sandbox.child);
  const mcp = await started(['mcp', '--http'], { ...env, ...sandbox.vars }, 2);
  children.push(mcp.child);
  const proxy = await keyProxy(mcp.vars.HOSTCTL_MCP_URL, mcp.vars.HOSTCTL_MCP_KEY);
  const url = `http://localhost:${proxy.address().port}/mcp`;
  for (const scenario of SCENARIOS) {
    // Asynchronous: the proxy runs in this process and must answer while the suite runs.
    const code = await new Promise((resolve) => {
      const run = spawn(node, [SUITE, 'server', '--url', url, '--scenario', scenario], { cwd: ROOT, env: { ...process.env, HOME: home }, stdio: 'inherit' });
      run.on('exit', (c) => resolve(c));
    });
    if (code !== 0) {
      failed++;
      say(`scenario ${scenario} failed (exit ${code}).`);
    }
  }
  proxy.close();
  proxy.closeAllConnections();
} catch (err) {
  failed++;
  say(err instanceof Error ? err.message : String(err));
} finally {
  for (const c of children) c.kill('SIGTERM');
  rmSync(home, { recursive: true, force: true });
}
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
if (failed > 0) {
  say(`${failed} of ${SCENARIOS.length} scenarios failed (suite under Node ${version}).`);
  process.exit(1);
}
say(`every scenario passed: ${SCENARIOS.join(', ')} (suite under Node ${version}).`);

// `npm run demo`: starts `hostctl sandbox` in the background, runs a few real hostctl
// commands against it over HTTP on loopback, and stops it. Nothing outside a temporary
// config directory is touched.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const bin = new URL('../bin/hostctl.js', import.meta.url).pathname;
const configDir = mkdtempSync(join(tmpdir(), 'hostctl-demo-'));

function startSandbox() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const vars = {};
    const timer = setTimeout(() => reject(new Error('the sandbox did not start within 20s')), 20_000);
    child.on('exit', (code) => reject(new Error(`the sandbox exited with code ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^(HOSTCTL_[A-Z_]+)=(.*)$/.exec(line);
      if (m) vars[m[1]] = m[2];
      if (vars.HOSTCTL_BASE_URL && vars.HOSTCTL_TOKEN) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, vars });
      }
    });
  });
}

function run(args, env) {
  process.stdout.write(`\n\u001b[1m$ hostctl ${args.join(' ')}\u001b[22m\n`);
  const r = spawnSync(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env, encoding: 'utf8' });
  process.stdout.write(r.stdout);
  process.stdout.write(r.stderr);
  if (r.status !== 0) throw new Error(`"hostctl ${args.join(' ')}" exited with ${r.status}`);
  return r.stdout;
}

let sandbox;
let failed = false;
try {
  sandbox = await startSandbox();
  const { HOSTCTL_BASE_URL, HOSTCTL_TOKEN } = sandbox.vars;
  process.stdout.write(`Sandbox running at ${HOSTCTL_BASE_URL} (token in HOSTCTL_TOKEN for this demo).\n`);
  const env = { ...process.env, HOSTCTL_BASE_URL, HOSTCTL_TOKEN, HOSTCTL_CONFIG_DIR: configDir, COLUMNS: process.env.COLUMNS ?? '120' };
  // The demo shows tables even when its output is piped (CI logs).
  const table = process.stdout.isTTY ? [] : ['-o', 'table'];

  run(['apps', 'list', '--limit', '8', ...table], env);
  const ids = run(['apps', 'list', '--limit', '3', '-o', 'tsv', '--fields', 'publicId'], env).trim().split('\n');
  run(['apps', 'get', ...ids, '--json', '--fields', 'publicId,name,status'], env);
  run(['environments', 'list', '--limit', '5', '-R', ...table], env);
  run(['docs', '--operations', ...table], env);
  run(['api', '-X', 'GET', '/apps', '-f', `publicId[]=${ids[0]}`, '--fields', 'publicId,name'], env);
  run(['rate-limit', ...table], env);
} catch (err) {
  failed = true;
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
} finally {
  sandbox?.child.kill('SIGTERM');
  rmSync(configDir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

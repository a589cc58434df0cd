// Runs the built CLI as a child process, as a user would, and starts `hostctl sandbox`
// on a loopback port. Shared by every e2e test.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { LoggedRequest } from '../../src/sandbox/requestlog.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'hostctl.js');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
  cwd?: string;
}

/**
 * A clean environment: nothing of the developer's HOSTCTL_* or colour settings leaks in.
 * Nor NODE_EXTRA_CA_CERTS: every test talks to loopback only, and with it set each Node
 * process the tests start reads and parses that CA file first (about 50 ms here, the
 * cost of a whole `node -e 0`; docs/performance.md). A test that needs it passes it.
 */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('HOSTCTL_') || k === 'NO_COLOR' || k === 'FORCE_COLOR' || k.startsWith('VITEST') || k === 'NODE_OPTIONS' || k === 'NODE_EXTRA_CA_CERTS') continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** The XDG dirs a run never inherits from the developer's shell (a test may name them). */
const XDG_DIRS = ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_RUNTIME_DIR'];

let scratch: string | undefined;

/** A new empty directory under this test process's own, which goes when the process exits. */
function scratchDir(prefix: string): string {
  if (scratch === undefined) {
    const root = mkdtempSync(join(tmpdir(), 'hostctl-runs-'));
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
    scratch = root;
  }
  return mkdtempSync(join(scratch, prefix));
}

/**
 * What a hostctl run adds to the environment its test gives it: a HOME of its own (new and
 * empty) unless the test names one, none of the developer's XDG dirs, and no D-Bus session
 * unless the test names one (test/support/secret-service.ts starts a private one). So a run
 * that names no HOSTCTL_CONFIG_DIR reads and writes an empty ~/.config/hostctl of its own,
 * never the developer's, never reaches the developer's keychain, and passes or fails the
 * same wherever it runs.
 */
export function isolated(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env = { ...extra };
  if (!('HOME' in env)) env.HOME = scratchDir('home-');
  for (const k of [...XDG_DIRS, 'DBUS_SESSION_BUS_ADDRESS']) if (!(k in env)) env[k] = undefined;
  return env;
}

export function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return runProcess(process.execPath, [BIN, ...args], { ...opts, env: isolated(opts.env) });
}

/**
 * Runs a command to its end and collects its output. stdin gets `opts.input` and is
 * closed; with `onStdout`, stdin stays open instead and `onStdout` sees all of stdout so
 * far after each chunk, to type into the program (see runInPtyInteractive).
 */
export function runProcess(
  cmd: string,
  args: string[],
  opts: RunOptions = {},
  onStdout?: (stdout: string, stdin: NodeJS.WritableStream) => void,
): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env: baseEnv(opts.env), cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      onStdout?.(stdout, child.stdin);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${opts.timeoutMs ?? 30_000} ms: ${args.join(' ')}\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    // A program that exits without reading its input closes the pipe: EPIPE here is no
    // failure of the test, and unhandled it would be vitest's.
    child.stdin.on('error', () => {});
    if (!onStdout) child.stdin.end(opts.input ?? '');
  });
}

export function tmpDir(prefix = 'hostctl-test-'): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export interface Sandbox {
  /** HOSTCTL_BASE_URL, e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** The token created at start (named "sandbox"). */
  token: string;
  /** http://127.0.0.1:PORT, for /_sandbox admin endpoints. */
  origin: string;
  process: ChildProcess;
  /** Everything the sandbox logged on stderr so far. */
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Starts `hostctl sandbox --port 0 …` and reads its two stdout lines. `hostctl` is the
 * command that runs hostctl: node bin/hostctl.js, or another build of it.
 */
export function startSandbox(args: string[] = [], env: Record<string, string | undefined> = {}, hostctl: string[] = [process.execPath, BIN]): Promise<Sandbox> {
  return new Promise((resolvePromise, reject) => {
    const [cmd = process.execPath, ...pre] = hostctl;
    const child = spawn(cmd, [...pre, 'sandbox', '--port', '0', ...args], {
      env: baseEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (logs += d));
    const vars: Record<string, string> = {};
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox did not start: ${logs}`));
    }, 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code}: ${logs}`));
    });
    rl.on('line', (line) => {
      const m = /^([A-Z_]+)=(.*)$/.exec(line);
      if (m && m[1] && m[2] !== undefined) vars[m[1]] = m[2];
      if (vars.HOSTCTL_BASE_URL && vars.HOSTCTL_TOKEN) {
        clearTimeout(timer);
        rl.close();
        const baseUrl = vars.HOSTCTL_BASE_URL;
        child.removeAllListeners('exit');
        resolvePromise({
          baseUrl,
          token: vars.HOSTCTL_TOKEN,
          origin: new URL(baseUrl).origin,
          process: child,
          logs: () => logs,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}

/** Runs a command in a pseudo-terminal (util-linux `script`), for TTY behaviour. */
export function runInPty(args: string[], opts: RunOptions & { columns?: number } = {}): Promise<RunResult> {
  return runProcess('script', scriptArgs(args, opts.columns), { ...opts, env: isolated({ TERM: 'xterm-256color', ...opts.env }) });
}

/** util-linux `script` running hostctl in a pseudo-terminal of `columns` × 50. */
function scriptArgs(args: string[], columns = 120): string[] {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return ['-qfec', `stty cols ${columns} rows 50 2>/dev/null; ${quoted}`, '/dev/null'];
}

export interface PtyStep {
  /** Wait until the terminal output (since the previous step) matches this… */
  waitFor: RegExp;
  /** …then type this (use "\r" for Enter). */
  send: string;
}

/**
 * Like runInPty, but types into the terminal: each step waits for a prompt before it
 * sends its keys. Typing before the program has switched the terminal to its own mode
 * would be echoed by the terminal itself, so a test of hidden input must wait.
 */
export function runInPtyInteractive(args: string[], steps: PtyStep[], opts: RunOptions & { columns?: number } = {}): Promise<RunResult> {
  const pending = [...steps];
  let from = 0;
  const advance = (stdout: string, stdin: NodeJS.WritableStream): void => {
    const step = pending[0];
    if (step && step.waitFor.test(stdout.slice(from))) {
      pending.shift();
      from = stdout.length;
      stdin.write(step.send);
      advance(stdout, stdin);
    }
  };
  return runProcess('script', scriptArgs(args, opts.columns), { ...opts, env: isolated({ TERM: 'xterm-256color', ...opts.env }) }, advance);
}

/** Every file under `dir` whose bytes hold `needle` (a token, say). */
export function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    if (e.isFile() && readFileSync(p).includes(needle)) hits.push(p);
  }
  return hits;
}

/** One request as the sandbox's log (`GET /_sandbox/requests`) records it. */
export type SandboxRequest = LoggedRequest;

/** The sandbox's admin endpoints (the dashboard's part: loopback only, no token). */
export function sandboxAdmin(sandbox: { origin: string }) {
  const admin = (path: string, init?: RequestInit) => fetch(`${sandbox.origin}/_sandbox${path}`, init);
  return {
    /** Creates a token named `name` and returns it; the only time the sandbox shows it. */
    async newToken(name: string): Promise<string> {
      const res = await admin('/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
      if (res.status !== 201) throw new Error(`creating token "${name}" failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    },
    /** Revokes a token, as the dashboard's Delete does: rejected from the next request on. */
    async revoke(name: string): Promise<void> {
      const res = await admin(`/tokens/${encodeURIComponent(name)}`, { method: 'DELETE' });
      if (res.status !== 204) throw new Error(`revoking token "${name}" failed: ${res.status}`);
    },
    async requests(): Promise<SandboxRequest[]> {
      return (await (await admin('/requests')).json()) as SandboxRequest[];
    },
    async clearRequests(): Promise<void> {
      await admin('/requests', { method: 'DELETE' });
    },
    /** Adds or replaces objects of `resource` (by publicId), as the platform would change them. */
    async plant(resource: string, objects: Record<string, unknown>[]): Promise<void> {
      const res = await admin(`/objects/${resource}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(objects) });
      if (!res.ok) throw new Error(`planting ${resource} failed: ${res.status} ${await res.text()}`);
    },
  };
}

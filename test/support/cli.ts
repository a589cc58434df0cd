// Runs the built CLI as a child process, as a user would, and starts `hostctl sandbox`
// on a loopback port. Shared by every e2e test.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

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

/** A clean environment: nothing of the developer's HOSTCTL_* or colour settings leaks in. */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('HOSTCTL_') || k === 'NO_COLOR' || k === 'FORCE_COLOR' || k.startsWith('VITEST') || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return runProcess(process.execPath, [BIN, ...args], opts);
}

export function runProcess(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env: baseEnv(opts.env), cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
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
    child.stdin.end(opts.input ?? '');
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

/** Starts `hostctl sandbox --port 0 …` and reads its two stdout lines. */
export function startSandbox(args: string[] = [], env: Record<string, string | undefined> = {}): Promise<Sandbox> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], {
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
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const cols = opts.columns ?? 120;
  return runProcess('script', ['-qfec', `stty cols ${cols} rows 50 2>/dev/null; ${quoted}`, '/dev/null'], {
    ...opts,
    env: { TERM: 'xterm-256color', ...opts.env },
  });
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
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const cols = opts.columns ?? 120;
  return new Promise((resolvePromise, reject) => {
    const child = spawn('script', ['-qfec', `stty cols ${cols} rows 50 2>/dev/null; ${quoted}`, '/dev/null'], {
      env: baseEnv({ TERM: 'xterm-256color', ...opts.env }),
      cwd: opts.cwd ?? ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let from = 0;
    const pending = [...steps];
    const advance = () => {
      const step = pending[0];
      if (step && step.waitFor.test(stdout.slice(from))) {
        pending.shift();
        from = stdout.length;
        child.stdin.write(step.send);
        advance();
      }
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      advance();
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
  });
}

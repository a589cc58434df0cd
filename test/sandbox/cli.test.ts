// `hostctl sandbox` as a user runs it. Start-up output, signals, the limits given as
// flags and --seed: the built CLI in a child process (needs `npm run build` first). What
// ends before serving (flag errors, --help, a port in use, a bad state file) and --state
// across restarts: in this process, through the same main() (test/support/inproc.ts).

import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, startSandbox, tmpDir, type Sandbox } from '../support/cli.js';
import { runCli, startSandbox as startInProcess } from '../support/inproc.js';
import { allObjects, createToken, ids, JSON_ACCEPT, req, type Obj } from './helpers.js';

const running: Array<Pick<Sandbox, 'stop'>> = [];
async function start(args: string[] = []): Promise<Sandbox> {
  const sb = await startSandbox(args);
  running.push(sb);
  return sb;
}
async function startHere(args: string[]) {
  const sb = await startInProcess(args);
  running.push(sb);
  return sb;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

/** Starts the sandbox, waits for its two lines, sends `signal`, and reports everything. */
function runUntilSignal(signal: NodeJS.Signals, args: string[] = [], before: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...before, 'sandbox', '--port', '0', ...args], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let lines = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no start or no stop: ${stderr}`));
    }, 20_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    createInterface({ input: child.stdout }).on('line', () => {
      if (++lines === 2) {
        // A request first, so that the stop has a live server (and a kept-alive socket) to close.
        const url = /HOSTCTL_BASE_URL=(.*)/.exec(stdout)?.[1] ?? '';
        const token = /HOSTCTL_TOKEN=(.*)/.exec(stdout)?.[1] ?? '';
        void fetch(`${url}/teams`, { headers: { accept: 'application/json', authorization: `Bearer ${token}` } }).then(() => child.kill(signal));
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A plain run stopped with SIGTERM: one for the tests that read it, started by the first. */
let terminated: ReturnType<typeof runUntilSignal> | undefined;
const terminatedRun = () => (terminated ??= runUntilSignal('SIGTERM'));

describe('start-up and stop', () => {
  it('prints exactly the two lines, logs requests to stderr without the token, and stops on SIGTERM with 143', async () => {
    const r = await terminatedRun();
    expect(r.stdout).toMatch(/^HOSTCTL_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1\nHOSTCTL_TOKEN=\S+\n$/);
    // The contract: 143 terminated (SIGTERM), the sandbox included.
    expect(r.code).toBe(143);
    const token = /HOSTCTL_TOKEN=(.*)/.exec(r.stdout)?.[1] ?? 'missing';
    expect(r.stderr).toContain('GET /v1/teams 200 sandbox');
    // The token is on stderr once: in the line to paste into another terminal, never in the request log.
    const lines = r.stderr.split('\n');
    expect(lines.filter((l) => l.includes(token))).toEqual([`export HOSTCTL_BASE_URL='${/HOSTCTL_BASE_URL=(.*)/.exec(r.stdout)?.[1]}' HOSTCTL_TOKEN='${token}'`]);
  });

  it('the export line on stderr, pasted into another shell, points hostctl at the sandbox', async () => {
    const r = await terminatedRun();
    const line = r.stderr.split('\n').find((l) => l.startsWith('export ')) ?? 'missing';
    const shell = spawnSync('bash', ['-c', `${line}; printf '%s\\n' "$HOSTCTL_BASE_URL" "$HOSTCTL_TOKEN"`], { encoding: 'utf8' });
    expect(shell.stdout).toBe(r.stdout.replace(/^HOSTCTL_[A-Z_]+=/gm, ''));
  });

  it('hostctl -q --no-color sandbox: the two lines on stdout, and nothing on stderr but warnings and errors', async () => {
    const r = await runUntilSignal('SIGTERM', [], ['-q', '--no-color']);
    expect(r.stdout).toMatch(/^HOSTCTL_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1\nHOSTCTL_TOKEN=\S+\n$/);
    expect(r.code).toBe(143);
    expect(r.stderr).toBe('');
  });

  it('stops on SIGINT (Ctrl-C) with 130', async () => {
    const r = await runUntilSignal('SIGINT');
    expect(r.code).toBe(130);
    expect(r.stdout.split('\n')).toHaveLength(3);
  });

  it('the printed token and base URL work', async () => {
    const sb = await start();
    const res = await req(`${sb.baseUrl}/apps`, { token: sb.token, headers: JSON_ACCEPT });
    expect(res.status).toBe(200);
    expect(ids(res.json())).toHaveLength(30);
    expect(asTokens(await req(`${sb.origin}/_sandbox/tokens`))).toEqual(['sandbox']);
  });
});

function asTokens(res: { json(): unknown }): string[] {
  return (res.json() as Obj[]).map((t) => String(t.name));
}

describe('flags', () => {
  it('an unknown flag: one clear sentence on stderr, nothing on stdout, exit 2', async () => {
    const r = await runCli(['sandbox', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^hostctl sandbox: Unknown option '--bogus'\./);
  });

  it('bad values and stray arguments: exit 2', async () => {
    for (const args of [['--port', 'abc'], ['--port', '70000'], ['--rate-limit', '0'], ['--window', '1.5'], ['--page-size', '101'], ['--seed', '-1'], ['--lockout-after'], ['extra']]) {
      const r = await runCli(['sandbox', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    expect((await runCli(['sandbox', '--rate-limit', 'x'])).stderr).toMatch(/--rate-limit must be a whole number/);
  });

  it('global options before the word: -q, -v and --no-color apply (also clustered)', async () => {
    for (const before of [['-q'], ['-v', '--no-color'], ['-qv'], ['--quiet', '--verbose']]) {
      const r = await runCli([...before, 'sandbox', '--help']);
      expect(r.code, `${before.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('--rate-limit <n>');
    }
    // Started for real: the sandbox's own error still reaches stderr under -q.
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(['-q', 'sandbox', '--port', String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });

  it('any other global option before the word: exit 2, naming it, nothing started', async () => {
    const cases: Array<[string[], string]> = [
      [['--json'], '--json'],
      [['--profile', 'sandbox'], '--profile'],
      [['-o', 'json'], '-o'],
      [['-ojson'], '-o'],
      [['-qR'], '-R'],
      [['--base-url=http://api.example.invalid/v1', '-q'], '--base-url'],
      [['-v', '--jq', '.'], '--jq'],
    ];
    for (const [before, named] of cases) {
      const r = await runCli([...before, 'sandbox', '--port', '0']);
      expect(r.code, before.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      // A flag that asks for JSON gets its usage error as one JSON line (issue 27), with the same sentence.
      const json = before.some((b) => b === '--json' || b === 'json' || b === '-ojson');
      if (json) expect(JSON.parse(r.stderr), before.join(' ')).toMatchObject({ error: { code: 'usage', exit: 2, message: `${named} does not apply to the sandbox.` } });
      else expect(r.stderr, before.join(' ')).toMatch(new RegExp(`^hostctl: ${named} does not apply to the sandbox\\.`));
    }
  });

  it('--help lists the flags and exits 0', async () => {
    const r = await runCli(['sandbox', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--host', '--port', '--rate-limit', '--window', '--page-size', '--lockout-after', '--lockout-seconds', '--seed', '--state']) expect(r.stdout).toContain(flag);
  });

  it('a port in use: a clear message and exit 1', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(['sandbox', '--port', String(port)]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });

  it('the limits given on the command line apply', async () => {
    const sb = await start(['--rate-limit', '3', '--page-size', '7', '--lockout-after', '2']);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await req(`${sb.baseUrl}/apps`, { token: sb.token, headers: JSON_ACCEPT });
      statuses.push(res.status);
      if (res.status === 200) expect(ids(res.json())).toHaveLength(7);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await req(`${sb.baseUrl}/apps`, { token: 'bad', localAddress: '127.0.0.3' })).status).toBe(401);
    expect((await req(`${sb.baseUrl}/apps`, { token: 'bad', localAddress: '127.0.0.3' })).status).toBe(401);
    expect((await req(`${sb.baseUrl}/apps`, { token: 'bad', localAddress: '127.0.0.3' })).status).toBe(429);
  });
});

describe('--seed', () => {
  it('the same seed gives the same data in two processes; another seed gives other data', async () => {
    const [a, b, c] = await Promise.all([start(['--seed', '9']), start(['--seed', '9']), start(['--seed', '10'])]);
    for (const resource of ['teams', 'people', 'payment-methods', 'apps', 'environments', 'deployments', 'domains']) {
      expect(await allObjects(a!.origin, resource), resource).toEqual(await allObjects(b!.origin, resource));
    }
    expect(await allObjects(a!.origin, 'apps')).not.toEqual(await allObjects(c!.origin, 'apps'));
    // And through the API itself.
    const page = (s: Sandbox) => req(`${s.baseUrl}/apps?page=2`, { token: s.token, headers: JSON_ACCEPT }).then((r) => r.text);
    expect(await page(a!)).toBe(await page(b!));
  });
});

describe('--state', () => {
  it('keeps tokens and data (created objects included) across a restart', async () => {
    const dir = tmpDir();
    try {
      const file = join(dir.path, 'sub', 'state.json');
      const first = await startHere(['--state', file, '--seed', '3']);
      const kept = await createToken(first.origin, 'kept');
      const created = await req(`${first.baseUrl}/apps`, { method: 'POST', token: first.token, headers: JSON_ACCEPT, body: '{"name":"made","big":12345678901234567890,"f":1.0}' });
      expect(created.status).toBe(201);
      await req(`${first.origin}/_sandbox/objects/teams`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"publicId":"te-planted","name":"Planted"}' });
      const before = await allObjects(first.origin, 'apps');
      await first.stop();

      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(kept);
      expect(text).not.toContain(first.token);
      expect(readdirSync(join(dir.path, 'sub'))).toEqual(['state.json']);

      // The state wins over --seed: the data is what was saved.
      const second = await startHere(['--state', file, '--seed', '4']);
      expect(await allObjects(second.origin, 'apps')).toEqual(before);
      const id = /"publicId":"([^"]+)"/.exec(created.text)?.[1];
      const again = await req(`${second.baseUrl}/apps/${id}`, { token: kept, headers: JSON_ACCEPT });
      expect(again.status).toBe(200);
      expect(again.text).toBe(created.text);
      expect((await req(`${second.baseUrl}/teams/te-planted`, { token: kept, headers: JSON_ACCEPT })).status).toBe(200);
      expect(asTokens(await req(`${second.origin}/_sandbox/tokens`)).sort()).toEqual(['kept', 'sandbox']);
      // Only hashes are saved, so each start makes a new "sandbox" token and drops the old one.
      expect(second.token).not.toBe(first.token);
      expect((await req(`${second.baseUrl}/teams`, { token: second.token, headers: JSON_ACCEPT })).status).toBe(200);
      expect((await req(`${second.baseUrl}/teams`, { token: first.token, headers: JSON_ACCEPT, localAddress: '127.0.0.4' })).status).toBe(401);
      // A revocation is kept too.
      await req(`${second.origin}/_sandbox/tokens/kept`, { method: 'DELETE' });
      await second.stop();
      const third = await startHere(['--state', file]);
      expect((await req(`${third.baseUrl}/teams`, { token: kept, headers: JSON_ACCEPT, localAddress: '127.0.0.4' })).status).toBe(401);
    } finally {
      dir.cleanup();
    }
  });

  it('a file that is not a state file: a clear message, exit 1, and the file left alone', async () => {
    const dir = tmpDir();
    try {
      const file = join(dir.path, 'notes.txt');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(file, 'my notes');
      const r = await runCli(['sandbox', '--port', '0', '--state', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/is not a sandbox state file/);
      expect(readFileSync(file, 'utf8')).toBe('my notes');
    } finally {
      dir.cleanup();
    }
  });
});

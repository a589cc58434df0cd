// The sandbox started in the test's own worker, on a real loopback port, with the real
// clock: for e2e tests where hostctl is the real process and the sandbox only serves it.
// It spares each such file a `hostctl sandbox` process (Node's start-up and the bundle's)
// and imports only the sandbox's modules, not the CLI (test/support/inproc.ts does that,
// with a virtual clock, for the in-process layer).

import { startSandboxServer, type StartOptions } from '../../src/sandbox/server.js';
import type { Sandbox } from './cli.js';

export type LocalSandbox = Omit<Sandbox, 'process'>;

export async function startSandboxHere(options: StartOptions = {}): Promise<LocalSandbox> {
  let logs = '';
  const server = await startSandboxServer({ ...options, log: (line) => (logs += `${line}\n`) });
  return {
    baseUrl: server.url,
    token: server.token,
    origin: server.origin,
    logs: () => logs,
    stop: () => server.close(),
  };
}

const FLAGS: Record<string, keyof StartOptions> = {
  '--rate-limit': 'rateLimit',
  '--window': 'windowSeconds',
  '--page-size': 'pageSize',
  '--lockout-after': 'lockoutAfter',
  '--lockout-seconds': 'lockoutSeconds',
  '--seed': 'seed',
  '--state': 'stateFile',
  '--host': 'host',
};

/**
 * The flags of `hostctl sandbox` that tests use, as the options of a sandbox started in
 * this worker (here, or in-process with inproc.ts). Another flag is an error: start the
 * real one (test/support/cli.ts).
 */
export function sandboxFlags(args: string[]): StartOptions {
  const out: Record<string, string | number> = {};
  for (let i = 0; i < args.length; i++) {
    const [flag = '', inline] = (args[i] ?? '').split(/=(.*)/s, 2);
    const key = FLAGS[flag];
    if (!key) throw new Error(`in-process sandbox: unknown flag ${args[i]}; start the real one (test/support/cli.ts)`);
    const value = inline ?? args[++i] ?? '';
    out[key] = key === 'stateFile' || key === 'host' ? value : Number(value);
  }
  return out as StartOptions;
}

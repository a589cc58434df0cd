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

// The real OS keychain as the tests see it: a Secret Service (gnome-keyring in a D-Bus
// session of the test's own: secret-service.ts), read and cleared with libsecret's
// `secret-tool` on that session's bus, never through hostctl's own code.

import { spawnSync } from 'node:child_process';

function secretTool(bus: string, args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('secret-tool', args, { input: input ?? '', encoding: 'utf8', timeout: 15_000, env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus } });
  if (r.error) return { code: 127, stdout: '', stderr: r.error.message };
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/** The secret stored for (service hostctl, account) — the attributes @napi-rs/keyring uses. */
export function keychainLookup(bus: string, account: string): string | undefined {
  const r = secretTool(bus, ['lookup', 'service', 'hostctl', 'username', account]);
  return r.code === 0 && r.stdout !== '' ? r.stdout : undefined;
}

/** Why the Secret Service on `bus` does not store and read a secret, or undefined when it does. */
export function probeSecretService(bus: string): string | undefined {
  const attrs = ['service', 'hostctl-test-probe', 'username', `probe-${process.pid}`];
  const stored = secretTool(bus, ['store', '--label=hostctl test probe', ...attrs], 'probe-secret');
  if (stored.code !== 0) return `secret-tool store failed: ${stored.stderr.trim() || `exit ${stored.code}`}`;
  const read = secretTool(bus, ['lookup', ...attrs]);
  secretTool(bus, ['clear', ...attrs]);
  if (read.stdout !== 'probe-secret') return `secret-tool lookup did not return what was stored: ${read.stderr.trim()}`;
  return undefined;
}

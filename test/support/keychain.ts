// The real OS keychain as the tests see it: a Secret Service (gnome-keyring in a D-Bus
// session, as .ci/run sets up), read and cleared with libsecret's `secret-tool`, never
// through hostctl's own code.

import { spawnSync } from 'node:child_process';

function secretTool(args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('secret-tool', args, { input: input ?? '', encoding: 'utf8', timeout: 15_000 });
  if (r.error) return { code: 127, stdout: '', stderr: r.error.message };
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/** The secret stored for (service hostctl, account) — the attributes @napi-rs/keyring uses. */
export function keychainLookup(account: string): string | undefined {
  const r = secretTool(['lookup', 'service', 'hostctl', 'username', account]);
  return r.code === 0 && r.stdout !== '' ? r.stdout : undefined;
}

export function keychainClear(account: string): void {
  secretTool(['clear', 'service', 'hostctl', 'username', account]);
}

/** Why there is no usable Secret Service here, or undefined when there is one. */
export function probeSecretService(): string | undefined {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return 'DBUS_SESSION_BUS_ADDRESS is not set (no D-Bus session)';
  const attrs = ['service', 'hostctl-test-probe', 'username', `probe-${process.pid}`];
  const stored = secretTool(['store', '--label=hostctl test probe', ...attrs], 'probe-secret');
  if (stored.code !== 0) return `secret-tool store failed: ${stored.stderr.trim() || `exit ${stored.code}`}`;
  const read = secretTool(['lookup', ...attrs]);
  secretTool(['clear', ...attrs]);
  if (read.stdout !== 'probe-secret') return `secret-tool lookup did not return what was stored: ${read.stderr.trim()}`;
  return undefined;
}

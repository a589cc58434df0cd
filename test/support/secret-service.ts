// A Secret Service of the test's own: a D-Bus session (dbus-run-session) with an unlocked
// gnome-keyring whose keyrings, HOME and runtime dir are a throwaway directory. The tests
// that use the real OS keychain hand its bus to the hostctl they run (and to secret-tool),
// so they never read or write the developer's keychain, whether or not one is running.
// Where dbus-run-session, gnome-keyring-daemon or secret-tool is missing they skip with
// the reason, except under CI, where they run (and fail).

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { underCI } from './ci.js';
import { baseEnv, tmpDir } from './cli.js';
import { probeSecretService } from './keychain.js';

const PARTS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'];

/** Why no Secret Service of our own can be started here, or undefined. Under CI nothing is a reason. */
export function secretServiceMissing(): string | undefined {
  if (underCI()) return undefined;
  const missing = PARTS.filter((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status !== 0);
  return missing.length === 0 ? undefined : `${missing.join(', ')} not installed (Debian: apt-get install dbus gnome-keyring libsecret-tools)`;
}

export interface SecretService {
  /** Its session bus: DBUS_SESSION_BUS_ADDRESS for the processes that should use it. */
  readonly bus: string;
  /** Ends the session: the bus, and gnome-keyring with it. */
  stop(): Promise<void>;
}

/**
 * Starts the session and waits until its Secret Service stores and reads a secret. The
 * session lives as long as its shell reads its stdin: stop() closes it.
 */
export async function startSecretService(): Promise<SecretService> {
  const dir = tmpDir('hostctl-secret-service-');
  const dirs = { HOME: join(dir.path, 'home'), XDG_DATA_HOME: join(dir.path, 'data'), XDG_RUNTIME_DIR: join(dir.path, 'run'), XDG_CONFIG_HOME: join(dir.path, 'config') };
  for (const d of Object.values(dirs)) mkdirSync(d, { mode: 0o700 });
  // gnome-keyring creates (and unlocks) the default "login" keyring only for a password
  // that is not empty; without one, libsecret has nowhere to store.
  const script = 'printf hostctl-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1; printf "%s\\n" "$DBUS_SESSION_BUS_ADDRESS"; exec cat >/dev/null';
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
    env: baseEnv({ ...dirs, DBUS_SESSION_BUS_ADDRESS: undefined }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  // 'exit', not 'close': gnome-keyring, a daemon of the session's, holds the stderr pipe
  // until it has seen the bus go.
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    child.stdin.end();
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
    dir.cleanup();
  };
  const bus = await new Promise<string | undefined>((resolve) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => resolve(undefined));
    child.once('error', () => resolve(undefined));
  });
  const broken = bus === undefined || !bus.startsWith('unix:') ? `no session bus (${log.trim() || 'dbus-run-session ended'})` : probeSecretService(bus);
  if (broken !== undefined || bus === undefined) {
    await stop();
    throw new Error(`could not start a Secret Service of the test's own: ${broken}`);
  }
  return { bus, stop };
}

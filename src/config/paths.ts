// Where config and state live: HOSTCTL_CONFIG_DIR, else conf's own choice for project
// "hostctl" with no "-nodejs" suffix (~/.config/hostctl on Linux).

import envPaths from 'env-paths';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.HOSTCTL_CONFIG_DIR;
  if (dir) return dir;
  // env-paths reads process.env; on Linux its rule is followed here on the run's own
  // environment, so that a run in a test process gets the HOME it was given.
  if (process.platform === 'linux') return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'hostctl');
  return envPaths('hostctl', { suffix: '' }).config;
}

export const configFile = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'config.json');
export const stateFile = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'state.json');

/**
 * Where a rejected-token mark goes when the state file cannot be written (a read-only
 * config dir, a read-only file system in a CI container), in order: the user's state
 * directory, the runtime directory, a per-user directory under the temporary directory.
 * Each is private to the user (state.ts checks and makes it so before using it).
 */
export function rejectedFallbackDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  const home = env.HOME;
  if (env.XDG_STATE_HOME) dirs.push(join(env.XDG_STATE_HOME, 'hostctl'));
  else if (home) dirs.push(join(home, '.local', 'state', 'hostctl'));
  if (env.XDG_RUNTIME_DIR) dirs.push(join(env.XDG_RUNTIME_DIR, 'hostctl'));
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  dirs.push(join(env.TMPDIR || tmpdir(), `hostctl-${uid ?? env.USERNAME ?? 'user'}`));
  const main = configDir(env);
  return dirs.filter((d) => d !== main);
}
export const cacheDir = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'cache');

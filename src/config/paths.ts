// Where config and state live: HOSTCTL_CONFIG_DIR, else conf's own choice for project
// "hostctl" with no "-nodejs" suffix (~/.config/hostctl on Linux).

import envPaths from 'env-paths';
import { join } from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.HOSTCTL_CONFIG_DIR;
  if (dir) return dir;
  return envPaths('hostctl', { suffix: '' }).config;
}

export const configFile = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'config.json');
export const stateFile = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'state.json');

// The opt-in clear-text store (`auth login --insecure-storage`): one file per profile,
// mode 0600, in a 0700 directory under the config dir. Only for machines with no keychain;
// every use prints a warning, so that nobody forgets the token lies on disk.

import { chmodSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../config/paths.js';
import { readTextFile, writeError, writeFileAtomic } from '../config/atomic.js';

export function tokenFile(profile: string, env?: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'tokens', profile);
}

export function writeTokenFile(profile: string, token: string, env?: NodeJS.ProcessEnv): string {
  const dir = join(configDir(env), 'tokens');
  try {
    return writeIn(dir, tokenFile(profile, env), token);
  } catch (err) {
    throw writeError(err, dir, 'the token file');
  }
}

function writeIn(dir: string, path: string, token: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and ignored for an existing directory.
  chmodSync(dir, 0o700);
  writeFileAtomic(path, `${token}\n`, 0o600);
  return path;
}

/** The token in the file, or undefined when there is no file. */
export function readTokenFile(profile: string, env?: NodeJS.ProcessEnv): { token: string; path: string; loose: boolean } | undefined {
  const path = tokenFile(profile, env);
  const token = readTextFile(path)?.trim();
  if (!token) return undefined;
  // Like ssh with a private key: say so when others can read it.
  const loose = process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0;
  return { token, path, loose };
}

/** True when a file was removed. */
export function deleteTokenFile(profile: string, env?: NodeJS.ProcessEnv): boolean {
  const path = tokenFile(profile, env);
  try {
    rmSync(path);
    return true;
  } catch {
    return false;
  }
}

// Who may own what hostctl reads from the config dir. The config names the base URL the
// token goes to, so a config dir or config.json that another user can write (a shared
// HOSTCTL_CONFIG_DIR or XDG_CONFIG_HOME created first by someone else) would let them
// send the token to their own server. As ssh does with ~/.ssh: the owner must be this
// user (or root, who could change it anyway), and neither group nor others may write.

import { fstatSync, statSync, type Stats } from 'node:fs';
import { UsageError } from '../errors.js';

/** A path as a shell takes it back: bare when it is plain, else in single quotes. */
export function shellQuote(path: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * Throws a UsageError (exit 2) naming `path` and the command that fixes it, when `st`
 * belongs to another user or is writable by group or others. `what`: "the config
 * directory", "the config file".
 */
export function checkOwnership(st: Stats, path: string, what: string): void {
  // Windows has neither owners by uid nor these mode bits.
  if (process.platform === 'win32') return;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid && st.uid !== 0) {
    throw new UsageError(
      `Refusing ${what} ${path}: it belongs to another user (uid ${st.uid}), who could change where hostctl sends your token; take it with "sudo chown ${uid} ${shellQuote(path)}" or use a directory of your own.`,
      'Point HOSTCTL_CONFIG_DIR at a directory only you can write, such as ~/.config/hostctl.',
    );
  }
  if ((st.mode & 0o022) !== 0) {
    throw new UsageError(
      `Refusing ${what} ${path}: other users can write to it (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}), so they could change where hostctl sends your token; fix it with "chmod go-w ${shellQuote(path)}".`,
      'hostctl, like ssh, only reads a config that no one else can change.',
    );
  }
}

/** checkOwnership of the directory at `path`, when it exists (a missing one is made 0700). */
export function checkConfigDir(path: string): void {
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    // Missing (made private when first written), or not reachable: the read says why.
    return;
  }
  checkOwnership(st, path, 'the config directory');
}

/** checkOwnership of an open file, judged by the file read (not a name swapped meanwhile). */
export function checkOpenFile(fd: number, path: string, what: string): void {
  checkOwnership(fstatSync(fd), path, what);
}

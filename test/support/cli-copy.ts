// A copy of the built CLI that any user can run, wherever the checkout lives. Tests that
// run hostctl as another (unprivileged) user cannot run it from a checkout in a private
// directory (`mktemp -d` makes one with mode 0700): that user cannot reach bin/hostctl.js.
// So they run this copy: what `bin/hostctl.js` needs at run time (bin/, dist/,
// package.json, and the one runtime dependency with its native part), in a directory of
// its own under the system's temporary directory, readable and searchable by everyone.

import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export interface CliCopy {
  /** The copy's bin/hostctl.js. */
  readonly bin: string;
  /** Its root: a working directory the other user can enter. */
  readonly dir: string;
  cleanup(): void;
}

/** The parts of the checkout the built CLI reads at run time. */
const RUNTIME = ['bin', 'dist', 'package.json', join('node_modules', '@napi-rs')];

/** Opens `path` (and all below it) to every user: directories 0755, files 0644 (0755 if executable). */
function openToAll(path: string): void {
  const st = statSync(path);
  if (st.isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) openToAll(join(path, entry));
  } else {
    chmodSync(path, st.mode & 0o100 ? 0o755 : 0o644);
  }
}

export function cliCopy(): CliCopy {
  if (!existsSync(join(ROOT, 'dist', 'hostctl.cjs'))) throw new Error('dist/ is not built: run "npm run build" (npm test does).');
  // The system's temporary directory, not TMPDIR, which may point into a private one.
  const base = process.platform === 'win32' ? tmpdir() : '/tmp';
  const dir = mkdtempSync(join(base, 'hostctl-cli-copy-'));
  for (const part of RUNTIME) {
    if (existsSync(join(ROOT, part))) cpSync(join(ROOT, part), join(dir, part), { recursive: true, dereference: true });
  }
  openToAll(dir);
  return { bin: join(dir, 'bin', 'hostctl.js'), dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The copy as a vitest fixture (`.extend('copy', { scope: 'file' }, copyFixture)`): made once
 * for the file, by the first test that names it, and removed after the file.
 */
// eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from its first parameter, an object pattern: `{}` is "nothing".
export function copyFixture({}, { onCleanup }: { onCleanup(fn: () => void): void }): CliCopy {
  const copy = cliCopy();
  onCleanup(() => copy.cleanup());
  return copy;
}

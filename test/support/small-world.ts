// A sandbox that starts from a few objects instead of its seed (about 100 apps and 1,000
// deployments), for a test whose promise is about the shape of a walk (its pages, its
// filters, its bound), not its length: every walk of the seed costs a request per page.
// It uses the sandbox's own `--state FILE` (a user's way to keep a world across restarts),
// so the server is the one users run; the file is written into a directory of the test's,
// or, for a file's sandbox (whose flags are given before any test runs), into one that
// goes when the test process exits.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Objects = Record<string, unknown>[];

const RESOURCES = ['apps', 'environments', 'deployments', 'domains', 'teams', 'people', 'payment-methods'];

/**
 * The flags that start a sandbox from `collections` (every other collection empty). The
 * start token acts as the organisation's owner, who sees every object, as with the seed.
 */
export function smallWorld(dir: string | undefined, collections: Record<string, Objects>): string[] {
  const file = join(dir ?? processDir(), 'sandbox-state.json');
  const all: Record<string, Objects> = Object.fromEntries(RESOURCES.map((r) => [r, []]));
  all.people = [{ publicId: 'pe-smallowner1', name: 'Owner', role: 'owner' }];
  Object.assign(all, collections);
  writeFileSync(file, JSON.stringify({ version: 1, seed: 1, tokens: [], collections: all }));
  return ['--state', file];
}

/** A new directory that goes when this test process exits. */
function processDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostctl-world-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

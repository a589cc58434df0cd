// A linked directory: `.hostctl.json` ties a directory and everything below it to one app
// (and at most a profile, by name). A person may commit it, so a cloned repository holds
// one: it may name nothing that sends a token elsewhere (a base URL, a token, a Redis
// URL), and a file that holds anything else is refused before any request.

import { lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { findResource, idProblem } from '../resources.js';
import { isRecord } from '../json/narrow.js';
import { oneLine } from '../output/sanitize.js';
import { checkProfileName } from './config.js';

export const LINK_FILE = '.hostctl.json';

/** A link file is a line of JSON; anything much larger is not one hostctl wrote. */
const MAX_LINK_BYTES = 4096;

const KEYS = new Set(['app', 'profile']);

export interface Link {
  /** The file's path. */
  path: string;
  app: string;
  profile?: string;
}

/**
 * The nearest link file at or above `cwd`, as git finds `.git`, up to the filesystem root.
 * Only a regular file counts (not a directory or a symlink: a link file is written here,
 * never through another path).
 */
function findLinkFile(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const path = join(dir, LINK_FILE);
    try {
      if (lstatSync(path).isFile()) return path;
    } catch {
      // Not here (or not readable as a directory entry): look further up.
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** A path as messages show it: one harmless line, whatever the directory is called. */
export function shownPath(path: string): string {
  return oneLine(path, 200);
}

function refuse(path: string, problem: string): never {
  throw new UsageError(
    `The link file ${shownPath(path)} ${problem}.`,
    `A link file names only "app" (ap-…) and "profile" (a profile name): run "hostctl unlink" there, then "hostctl link ap-…".`,
  );
}

/** The link file at `path`, checked: exactly what hostctl writes, else a usage error naming the file. */
function readLink(path: string): Link {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_LINK_BYTES) refuse(path, `is ${bytes.length} bytes, more than a link file holds`);
    text = bytes.toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    refuse(path, 'cannot be read');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    refuse(path, 'is not JSON');
  }
  if (!isRecord(data)) refuse(path, 'is not a JSON object');
  const other = Object.keys(data).filter((k) => !KEYS.has(k));
  if (other.length > 0) refuse(path, `holds ${other.map((k) => `"${oneLine(k, 40)}"`).join(', ')}, which a link file never names (it must not redirect your token)`);
  const apps = findResource('apps');
  if (typeof data.app !== 'string' || !apps || idProblem(apps, data.app) !== undefined) refuse(path, 'does not name an app ID ("app": "ap-…")');
  const link: Link = { path, app: data.app };
  if (data.profile !== undefined) {
    if (typeof data.profile !== 'string') refuse(path, 'names a profile that is not a string');
    try {
      link.profile = checkProfileName(data.profile);
    } catch {
      refuse(path, `names the profile "${oneLine(data.profile, 40)}", which is not a plain profile name`);
    }
  }
  return link;
}

/** The link of `cwd` (the nearest file at or above it), checked; undefined when there is none. */
export function linkOf(cwd: string): Link | undefined {
  const path = findLinkFile(cwd);
  return path === undefined ? undefined : readLink(path);
}

/** The text hostctl writes. */
export function linkText(app: string, profile: string | undefined): string {
  return `${JSON.stringify(profile === undefined ? { app } : { app, profile })}\n`;
}

/** Removes the nearest link file; its path, or undefined when there was none. */
export function removeLink(cwd: string): string | undefined {
  const path = findLinkFile(cwd);
  if (path !== undefined) unlinkSync(path);
  return path;
}

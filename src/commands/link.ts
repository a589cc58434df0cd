// `hostctl link [ap-…]` and `hostctl unlink`: tie this directory (and everything below it)
// to one app, in a file a person may commit (src/config/link.ts).

import { Argument } from '@commander-js/extra-typings';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { findResource, NAME_FIELDS } from '../resources.js';
import { completes } from './hints.js';
import { isRecord, publicIdOf } from '../json/narrow.js';
import { oneLine } from '../output/sanitize.js';
import { LINK_FILE, shownPath } from '../config/link.js';
import { checkIds } from '../core/by-id.js';
import { command, withContext, type HostctlCommand } from './define.js';

export function linkCommand() {
  return command('link')
    .description(`Tie this directory (and below) to one app: writes ${LINK_FILE}, which you may commit`)
    .examples(['hostctl link ap-…', 'hostctl link', 'hostctl --profile staging link ap-…'])
    .addArgument(completes(new Argument('[app]', 'the app (ap-…); on a terminal, left out: pick one from a list'), { ids: 'apps' }))
    .action(withContext(async (ctx, [app]) => linkRun(ctx, app)));
}

export function unlinkCommand(): HostctlCommand {
  return command('unlink')
    .description(`Remove the nearest ${LINK_FILE} at or above this directory`)
    .examples(['hostctl unlink', 'cd services/api && hostctl unlink'])
    .action(withContext(async (ctx) => unlinkRun(ctx)));
}

/** The profile a link names: --profile or HOSTCTL_PROFILE as given, checked to exist; else none. */
function profileToLink(ctx: Context): string | undefined {
  if (ctx.opts.profile === undefined && !ctx.env.HOSTCTL_PROFILE) return undefined;
  ctx.checkProfileExists();
  return ctx.profileName();
}

async function linkRun(ctx: Context, given: string | undefined): Promise<void> {
  // A link file hostctl refuses is replaced, not obeyed.
  ctx.ignoreLink = true;
  const apps = findResource('apps');
  if (!apps) throw new Error('no apps resource');
  if (given !== undefined) checkIds(apps, [given]);
  const profile = profileToLink(ctx);
  const app = given ?? (await pick(ctx));
  const [{ writeFileAtomic }, { linkText }] = await Promise.all([import('../config/atomic.js'), import('../config/link.js')]);
  const path = join(ctx.cwd, LINK_FILE);
  try {
    writeFileAtomic(path, linkText(app, profile), 0o644);
  } catch (err) {
    const code = isRecord(err) && typeof err.code === 'string' ? err.code : 'an error';
    throw new UsageError(`Cannot write ${shownPath(path)} (${code}).`, 'Run "hostctl link" in a directory you can write to.');
  }
  ctx.io.note(`Linked ${shownPath(ctx.cwd)} to ${app}${profile === undefined ? '' : ` (profile ${profile})`}: ${shownPath(path)}. "hostctl status" shows it; "hostctl unlink" undoes this.`);
}

/** On a terminal: the first page of apps, by name, and the number typed. */
async function pick(ctx: Context): Promise<string> {
  if (!ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY) {
    throw new UsageError('link needs an app ID when there is no terminal to pick one on.', 'Name it: hostctl link ap-… ("hostctl apps list" shows them).');
  }
  const apps = findResource('apps');
  if (!apps) throw new Error('no apps resource');
  const http = await ctx.http();
  const { walkPages } = await import('../http/paging.js');
  const items: unknown[] = [];
  for await (const page of walkPages(http, { path: apps.path }, { all: false })) items.push(...page);
  const choices = items.flatMap((item) => {
    const id = publicIdOf(item);
    if (id === undefined) return [];
    const name = isRecord(item) ? NAME_FIELDS.map((f) => item[f]).find((v) => typeof v === 'string') : undefined;
    return [{ id, name: typeof name === 'string' ? oneLine(name, 40) : '' }];
  });
  if (choices.length === 0) throw new UsageError('This token sees no apps to link.', 'Check the profile ("hostctl auth status"), or name the app: hostctl link ap-….');
  const width = String(choices.length).length;
  ctx.io.stderr.write(choices.map((c, i) => `${String(i + 1).padStart(width)}) ${c.id}  ${c.name}\n`).join(''));

  // Loaded here, not with the program: every other command would pay for it.
  const { createInterface } = process.getBuiltinModule('node:readline/promises');
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr, terminal: false });
  try {
    const answer = (await rl.question(`Link this directory to which app? [1-${choices.length}, or an app ID]: `)).trim();
    const byNumber = /^\d+$/.test(answer) ? choices[Number(answer) - 1] : undefined;
    if (byNumber) return byNumber.id;
    checkIds(apps, [answer]);
    return answer;
  } finally {
    rl.close();
  }
}

async function unlinkRun(ctx: Context): Promise<void> {
  ctx.ignoreLink = true;
  const { removeLink } = await import('../config/link.js');
  const removed = removeLink(ctx.cwd);
  if (removed === undefined) {
    ctx.io.note(`Nothing to unlink: no ${LINK_FILE} at or above ${shownPath(ctx.cwd)}.`);
    return;
  }
  ctx.io.note(`Removed ${shownPath(removed)}: this directory is no longer linked.`);
}

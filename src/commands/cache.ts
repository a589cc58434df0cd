// `hostctl cache info|clear`: the --cache directory, every base URL and token at once.
// Reads and removes files only; sends nothing.

import type { Context } from '../context.js';
import { cacheDir } from '../config/paths.js';
import type { CacheInfo } from '../http/cache.js';
import { command, withContext, type HostctlCommand } from './define.js';

export function cacheCommand(): HostctlCommand {
  const cache = command('cache')
    .description('The local response cache of --cache (no request)')
    .examples(['hostctl apps list --all --cache 10m', 'hostctl cache info', 'hostctl cache clear'])
    .seeAlso(['rate-limit']);
  cache.addCommand(
    command('info')
      .description('Show where the cache is, its entries, size and oldest entry')
      .examples(['hostctl cache info', 'hostctl cache info --json'])
      .seeAlso(['rate-limit'])
      .action(withContext(async (ctx) => cacheInfoRun(ctx))),
  );
  cache.addCommand(
    command('clear')
      .description('Remove every cached answer, for every base URL and token')
      .examples(['hostctl cache clear', 'hostctl cache clear && hostctl cache info'])
      .seeAlso(['rate-limit'])
      .action(withContext(async (ctx) => cacheClearRun(ctx))),
  );
  return cache;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function asJson(dir: string, info: CacheInfo): string {
  return `${JSON.stringify({ path: dir, entries: info.entries, bytes: info.bytes, oldest: info.oldest === undefined ? null : new Date(info.oldest).toISOString() }, null, 2)}\n`;
}

async function cacheInfoRun(ctx: Context): Promise<void> {
  const { cacheInfo } = await import('../http/cache.js');
  const dir = cacheDir(ctx.env);
  const info = cacheInfo(dir);
  if (ctx.outputFormat() === 'json') {
    ctx.io.stdout.write(asJson(dir, info));
    return;
  }
  const oldest = info.oldest === undefined ? '-' : new Date(info.oldest).toISOString().replace(/\.\d+Z$/, 'Z');
  ctx.io.stdout.write(`Path:    ${dir}\nEntries: ${info.entries}\nSize:    ${size(info.bytes)}\nOldest:  ${oldest}\n`);
}

async function cacheClearRun(ctx: Context): Promise<void> {
  const { clearCache } = await import('../http/cache.js');
  const before = clearCache(cacheDir(ctx.env));
  ctx.io.note(`Removed ${before.entries} cached ${before.entries === 1 ? 'entry' : 'entries'} (${size(before.bytes)}).`);
}

// `hostctl cache info|clear`: the --cache directory, every base URL and token at once.
// Reads and removes files only; sends nothing.

import type { Context } from '../context.js';
import { cacheDir } from '../config/paths.js';
import { cacheInfo, clearCache, type CacheInfo } from '../http/cache.js';

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function asJson(dir: string, info: CacheInfo): string {
  return `${JSON.stringify({ path: dir, entries: info.entries, bytes: info.bytes, oldest: info.oldest === undefined ? null : new Date(info.oldest).toISOString() }, null, 2)}\n`;
}

export function cacheInfoRun(ctx: Context): void {
  const dir = cacheDir(ctx.env);
  const info = cacheInfo(dir);
  if (ctx.outputFormat() === 'json') {
    ctx.io.stdout.write(asJson(dir, info));
    return;
  }
  const oldest = info.oldest === undefined ? '-' : new Date(info.oldest).toISOString().replace(/\.\d+Z$/, 'Z');
  ctx.io.stdout.write(`Path:    ${dir}\nEntries: ${info.entries}\nSize:    ${size(info.bytes)}\nOldest:  ${oldest}\n`);
}

export function cacheClearRun(ctx: Context): void {
  const before = clearCache(cacheDir(ctx.env));
  ctx.io.note(`Removed ${before.entries} cached ${before.entries === 1 ? 'entry' : 'entries'} (${size(before.bytes)}).`);
}

// config list | get | set | unset | path. Reads are plain JSON reads (config.ts); writes
// go through conf under a lock (config/store.ts). The config never holds a token.

import type { Context } from '../context.js';
import type { ConfigData } from '../config/config.js';
import { configFile } from '../config/paths.js';
import { keyPath, parseKey, parseValue, pruneProfile, updateConfig, type ConfigKey } from '../config/store.js';

type Verb = 'list' | 'get' | 'set' | 'unset' | 'path';

/** Every setting as `key=value` pairs, in a stable order. */
export function flatten(config: ConfigData): [string, string][] {
  const out: [string, string][] = [];
  if (config.defaultProfile) out.push(['defaultProfile', config.defaultProfile]);
  for (const name of Object.keys(config.profiles).sort()) {
    const p = config.profiles[name];
    if (!p) continue;
    for (const field of ['baseUrl', 'output', 'storage', 'cache', 'storedAt'] as const) {
      const v = p[field];
      if (v !== undefined) out.push([`profiles.${name}.${field}`, v]);
    }
  }
  return out;
}

function lookup(config: ConfigData, k: ConfigKey): string | undefined {
  if (k.kind === 'defaultProfile') return config.defaultProfile;
  return config.profiles[k.profile]?.[k.field];
}


export async function configRun(ctx: Context, verb: Verb, args: string[]): Promise<void> {
  const [key = '', value = ''] = args;
  switch (verb) {
    case 'path':
      ctx.io.out(`${configFile(ctx.env)}\n`);
      return;
    case 'list': {
      const config = ctx.config();
      const { dataPrinter } = await import('../output/format.js');
      const printer = await dataPrinter(ctx);
      if (printer) {
        await printer.add([config]);
        await printer.end('single');
        return;
      }
      ctx.io.out(flatten(config).map(([k, v]) => `${k}=${v}\n`).join(''));
      return;
    }
    case 'get': {
      // An unset key prints nothing and exits 0, as `gh config get` does.
      const v = lookup(ctx.config(), parseKey(key, true));
      if (v !== undefined) ctx.io.out(`${v}\n`);
      return;
    }
    case 'set': {
      const k = parseKey(key);
      const v = parseValue(k, value);
      await updateConfig(ctx.env, (conf) => conf.set(keyPath(k), v));
      const config = ctx.reloadConfig();
      if (k.kind === 'defaultProfile' && !config.profiles[v]) {
        ctx.io.note(`Profile "${v}" has no settings yet; set its base URL with "hostctl auth login --profile ${v} --base-url …".`);
      }
      if (k.kind === 'profile' && k.field === 'storage') {
        ctx.io.note('This only says where hostctl looks for the token; it moves nothing. "hostctl auth login" stores a token.');
      }
      return;
    }
    case 'unset': {
      const k = parseKey(key);
      await updateConfig(ctx.env, (conf) => {
        conf.delete(keyPath(k));
        if (k.kind === 'profile') pruneProfile(conf, k.profile);
      });
      ctx.reloadConfig();
      return;
    }
  }
}

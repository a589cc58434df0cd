// config list | get | set | unset | path. Reads are plain JSON reads (config.ts); writes
// go through conf under a lock (config/store.ts). The config never holds a token.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import type { ConfigData } from '../config/config.js';
import { configFile } from '../config/paths.js';
import type { ConfigKey } from '../config/store.js';
import { completes } from './hints.js';
import { maskRedisUrl } from '../http/fleet.js';
import { command, withContext, type HostctlCommand } from './define.js';

type Verb = 'list' | 'get' | 'set' | 'unset' | 'path';

export function configCommand(): HostctlCommand {
  const config = command('config')
    .description('Read and change settings (profiles, base URL, output)')
    .examples([
      'hostctl config set profiles.default.baseUrl https://api.example.com/v1',
      'hostctl config set profiles.default.output json',
      'hostctl config set defaultProfile staging',
      'hostctl config set profiles.ci.redisUrl rediss://:PASSWORD@redis.example.com:6379/0',
      'hostctl config list',
    ])
    .seeAlso(['environment']);
  const verb = (name: Verb, description: string, examples: string[], args: Argument[] = []) => {
    const cmd = command(name).description(description).examples(examples).seeAlso(['environment']);
    for (const arg of args) cmd.addArgument(arg);
    config.addCommand(cmd.action(withContext(async (ctx) => configRun(ctx, name, cmd.args))));
  };
  const key = () => completes(new Argument('<key>'), 'config-keys');
  verb('list', 'show all settings', ['hostctl config list', 'hostctl config list --json']);
  verb('get', 'print one setting, e.g. profiles.default.baseUrl', ['hostctl config get profiles.default.baseUrl', 'hostctl config get defaultProfile'], [key()]);
  verb('set', 'change one setting', ['hostctl config set profiles.default.output json', 'hostctl config set defaultProfile staging'], [
    completes(new Argument('<key>'), 'settable-config-keys'),
    completes(new Argument('<value>'), 'config-value'),
  ]);
  verb('unset', 'remove one setting', ['hostctl config unset profiles.default.output', 'hostctl config unset defaultProfile'], [key()]);
  verb('path', 'print where the config file lives', ['hostctl config path', 'cat "$(hostctl config path)"']);
  return config;
}

/** Every setting as `key=value` pairs, in a stable order. */
function flatten(config: ConfigData): [string, string][] {
  const out: [string, string][] = [];
  if (config.defaultProfile) out.push(['defaultProfile', config.defaultProfile]);
  if (config.accessible !== undefined) out.push(['accessible', String(config.accessible)]);
  for (const name of Object.keys(config.profiles).sort()) {
    const p = config.profiles[name];
    if (!p) continue;
    for (const field of ['baseUrl', 'output', 'storage', 'cache', 'redisUrl', 'storedAt'] as const) {
      const v = p[field];
      if (v !== undefined) out.push([`profiles.${name}.${field}`, field === 'redisUrl' ? maskRedisUrl(v) : v]);
    }
  }
  return out;
}

function lookup(config: ConfigData, k: ConfigKey): string | undefined {
  if (k.kind === 'defaultProfile') return config.defaultProfile;
  if (k.kind === 'accessible') return config.accessible === undefined ? undefined : String(config.accessible);
  const v = config.profiles[k.profile]?.[k.field];
  return v !== undefined && k.field === 'redisUrl' ? maskRedisUrl(v) : v;
}

/** The config as shown: a Redis URL's password is a secret like the token. */
function shown(config: ConfigData): ConfigData {
  const profiles = Object.fromEntries(Object.entries(config.profiles).map(([name, p]) => [name, p.redisUrl === undefined ? p : { ...p, redisUrl: maskRedisUrl(p.redisUrl) }]));
  return { ...config, profiles };
}


async function configRun(ctx: Context, verb: Verb, args: readonly string[]): Promise<void> {
  const [key = '', value = ''] = args;
  const { keyPath, parseKey, parseValue, pruneProfile, updateConfig } = await import('../config/store.js');
  switch (verb) {
    case 'path':
      ctx.io.out(`${configFile(ctx.env)}\n`);
      return;
    case 'list': {
      const config = ctx.config();
      const { dataPrinter } = await import('../output/format.js');
      const printer = await dataPrinter(ctx);
      if (printer) {
        await printer.add([shown(config)]);
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

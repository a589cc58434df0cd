// Changing the config (src/config/store.ts): which keys and values `config set` takes, and
// for the rest one refusal naming the key and the way out; a change made under the lock,
// through dotted keys, written as conf wrote it (tab-indented JSON) and never through a
// link; an emptied profile pruned; a lock held too long named with the directory to remove.

import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyPath, parseKey, parseValue, pruneProfile, updateConfig, type ConfStore } from '../../src/config/store.js';
import { HostctlError, UsageError } from '../../src/errors.js';
import { tmpDir } from '../support/cli.js';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

/** A config dir of the test's own, and the env that points hostctl at it. */
function world(config?: unknown): { dir: string; file: string; env: NodeJS.ProcessEnv } {
  const t = tmpDir('hostctl-store-');
  cleanups.push(t.cleanup);
  const file = join(t.path, 'config.json');
  if (config !== undefined) writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return { dir: t.path, file, env: { HOSTCTL_CONFIG_DIR: t.path } };
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('nothing was thrown');
}

function usage(f: () => unknown): UsageError {
  const err = thrown(f);
  if (err instanceof UsageError) return err;
  throw err;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('the change was made');
    },
    (err: unknown) => err,
  );
}

const VALID_KEYS = [
  'Valid keys:',
  '  defaultProfile',
  '  accessible                (true or false: see "hostctl help accessibility")',
  '  profiles.<name>.baseUrl   (https://…/v1; http only for loopback hosts)',
  '  profiles.<name>.output    (table, json, ndjson, tsv)',
  '  profiles.<name>.storage   (keychain, file)',
  '  profiles.<name>.cache     (a duration such as 10m: the default for --cache)',
  "  profiles.<name>.redisUrl  (rediss://…, or redis:// on loopback: a fleet's shared budget; HOSTCTL_REDIS_URL wins)",
].join('\n');

describe('parseKey', () => {
  it('an unknown key is named, with every valid key and what it takes, one per line', () => {
    const err = usage(() => parseKey('colour'));
    expect(err.message).toBe('Unknown config key "colour".');
    expect(err.hint).toBe(VALID_KEYS);
  });

  it('takes defaultProfile, accessible and profiles.<name>.<field>, and nothing shaped otherwise', () => {
    expect(parseKey('defaultProfile')).toEqual({ kind: 'defaultProfile' });
    expect(parseKey('accessible')).toEqual({ kind: 'accessible' });
    for (const field of ['baseUrl', 'output', 'storage', 'cache', 'redisUrl']) expect(parseKey(`profiles.ci.${field}`)).toEqual({ kind: 'profile', profile: 'ci', field });
    for (const key of ['other.ci.baseUrl', 'profile.ci.output', 'profiles.ci.baseUrl.extra', 'profiles.ci', 'profiles..baseUrl.x', 'ci.baseUrl']) {
      expect(usage(() => parseKey(key)).message, key).toBe(`Unknown config key "${key}".`);
    }
  });

  it('storedAt can be read (auth login sets it) but not changed by hand, which says how it is set', () => {
    const k = parseKey('profiles.ci.storedAt', true);
    expect(k).toEqual({ kind: 'profile', profile: 'ci', field: 'storedAt' });
    expect(keyPath(k)).toBe('profiles.ci.storedAt');
    const err = usage(() => parseKey('profiles.ci.storedAt'));
    expect(err.message).toBe('"profiles.ci.storedAt" is set by "hostctl auth login" and cannot be changed by hand.');
    expect(err.hint).toBe('Run "hostctl auth login" to store a token again.');
  });
});

describe('parseValue', () => {
  it('accessible takes true or false, around spaces too, and names what it was given otherwise', () => {
    const k = parseKey('accessible');
    expect(parseValue(k, 'true')).toBe('true');
    expect(parseValue(k, 'false')).toBe('false');
    expect(parseValue(k, ' false\n')).toBe('false');
    for (const raw of ['yes', ' 1 ', '', 'TRUE']) {
      const err = usage(() => parseValue(k, raw));
      expect(err.message, raw).toBe(`accessible takes true or false, not "${raw}".`);
      expect(err.hint, raw).toBe('For example: hostctl config set accessible true');
    }
  });

  it('a value is stored without the spaces around it, and a base URL without its trailing slash', () => {
    expect(parseValue(parseKey('defaultProfile'), '  staging ')).toBe('staging');
    expect(parseValue(parseKey('profiles.ci.output'), ' json ')).toBe('json');
    expect(parseValue(parseKey('profiles.ci.baseUrl'), ' https://api.example.invalid/v1/ ')).toBe('https://api.example.invalid/v1');
    expect(parseValue(parseKey('profiles.ci.cache'), '10m')).toBe('10m');
  });

  it('a refused baseUrl, cache or redisUrl names the key it was given for', () => {
    expect(usage(() => parseValue(parseKey('profiles.ci.baseUrl'), 'not a url')).message).toBe('The base URL from "profiles.ci.baseUrl" is not a valid URL: not a url.');
    expect(usage(() => parseValue(parseKey('profiles.ci.cache'), 'soon')).message).toBe('"profiles.ci.cache" takes a duration such as 30s, 10m or 1h (at most 7d), not "soon".');
    expect(usage(() => parseValue(parseKey('profiles.ci.redisUrl'), 'not a url')).message).toBe('The Redis URL from "profiles.ci.redisUrl" is not a valid URL.');
  });

  it('storedAt, which only reads accept, takes no value: an unknown key with the valid ones', () => {
    const err = usage(() => parseValue(parseKey('profiles.ci.storedAt', true), '2026-01-01T00:00:00Z'));
    expect(err.message).toBe('Unknown config key "profiles.ci.storedAt".');
    expect(err.hint).toBe(VALID_KEYS);
  });
});

describe('updateConfig', () => {
  it('a change sees the config by dotted keys; reading or deleting a key that is not there adds nothing; the file is tab-indented JSON', async () => {
    const url = 'https://a.example.invalid/v1';
    const { env, file } = world({ profiles: { a: { baseUrl: url } } });
    const seen: unknown[] = [];
    const written = await updateConfig(env, (conf) => {
      seen.push(conf.get('profiles.a.baseUrl'), conf.has('profiles.a.baseUrl'), conf.has('profiles.b.baseUrl'), conf.get('profiles.c.output'));
      conf.delete('profiles.d.cache');
      conf.set('profiles.a.output', 'json');
    });
    expect(seen).toEqual([url, true, false, undefined]);
    expect(written).toEqual({ profiles: { a: { baseUrl: url, output: 'json' } } });
    expect(readFileSync(file, 'utf8')).toBe(`{\n\t"profiles": {\n\t\t"a": {\n\t\t\t"baseUrl": "${url}",\n\t\t\t"output": "json"\n\t\t}\n\t}\n}\n`);
  });

  it('pruneProfile removes a profile left with no settings, and profiles once none is left', async () => {
    const { env, file } = world({ defaultProfile: 'a', profiles: { a: { output: 'json' }, b: { cache: '1m' } } });
    await updateConfig(env, (conf) => {
      conf.delete('profiles.a.output');
      pruneProfile(conf, 'a');
    });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ defaultProfile: 'a', profiles: { b: { cache: '1m' } } });
    const written = await updateConfig(env, (conf) => {
      conf.delete('profiles.b.cache');
      pruneProfile(conf, 'b');
    });
    expect(written).toEqual({ defaultProfile: 'a', profiles: {} });
    expect(readFileSync(file, 'utf8')).toBe('{\n\t"defaultProfile": "a"\n}\n');
  });

  it('pruneProfile removes only empty objects: a profile, or profiles, that is null is left as it is', async () => {
    const { env } = world({ profiles: { a: { output: 'json' } } });
    const seen: unknown[] = [];
    await updateConfig(env, (conf: ConfStore) => {
      conf.set('profiles.a', null);
      pruneProfile(conf, 'a');
      seen.push(structuredClone(conf.get('profiles')));
      conf.set('profiles', null);
      pruneProfile(conf, 'a');
      seen.push(structuredClone(conf.store));
      conf.delete('profiles');
    });
    expect(seen).toEqual([{ a: null }, { profiles: null }]);
  });

  it('refuses to write through a config.json that is a symbolic link, with the copy that replaces it', async () => {
    const { dir, env, file } = world();
    const real = join(dir, 'real.json');
    writeFileSync(real, '{}', { mode: 0o600 });
    symlinkSync(real, file);
    const err = (await rejection(updateConfig(env, (conf) => conf.set('defaultProfile', 'a')))) as UsageError;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(`Refusing to write the config file ${file}: it is a symbolic link, and hostctl does not write through links in its config directory.`);
    expect(err.hint).toBe(`Replace the link with the file itself, e.g. cp --remove-destination "$(readlink -f ${file})" ${file}`);
    expect(readFileSync(real, 'utf8')).toBe('{}');
  });

  it('a config dir that is a file: one sentence naming the config, the dir and why', async () => {
    const { dir } = world();
    const notDir = join(dir, 'hostctl');
    writeFileSync(notDir, '', { mode: 0o600 });
    const err = (await rejection(updateConfig({ HOSTCTL_CONFIG_DIR: notDir }, (conf) => conf.set('defaultProfile', 'a')))) as HostctlError;
    expect(err).toBeInstanceOf(HostctlError);
    expect(err.message).toBe(`Cannot write the config in ${notDir}: a file is in the way where a directory should be (ENOTDIR).`);
  });

  it('a config lock held past the wait (15 s, on a fake clock) is named with the directory to remove, and nothing is written', async () => {
    const { dir, env, file } = world({ defaultProfile: 'a' });
    const lock = join(dir, 'config.json.lock');
    // Held by another process: not an empty directory, so never taken over as stale.
    mkdirSync(lock);
    writeFileSync(join(lock, 'holder'), '');
    vi.useFakeTimers();
    try {
      let outcome: { err: unknown } | undefined;
      updateConfig(env, (conf) => conf.set('defaultProfile', 'b')).then(
        () => (outcome = { err: undefined }),
        (err: unknown) => (outcome = { err }),
      );
      await vi.advanceTimersByTimeAsync(16_000);
      expect(outcome).toBeDefined();
      const err = outcome?.err as HostctlError;
      expect(err).toBeInstanceOf(HostctlError);
      expect(err.message).toBe(`Another hostctl process has held the config lock for 15s (${lock}).`);
      expect(err.hint).toBe('If no other hostctl is running, remove that directory and try again.');
    } finally {
      vi.useRealTimers();
    }
    expect(readFileSync(file, 'utf8')).toBe('{"defaultProfile":"a"}');
  });
});

// The one precedence of the profile and the base URL (flag > environment > config >
// default), which every command and the completion engine resolve through.

import { describe, expect, it } from 'vitest';
import type { ConfigData } from '../../src/config/config.js';
import { resolveBaseUrl, resolveProfileName, type ProfileInputs } from '../../src/config/resolve.js';
import { UsageError } from '../../src/errors.js';

const CONFIG = { defaultProfile: 'prod', profiles: { prod: { baseUrl: 'https://prod.example.invalid/v1' }, staging: { baseUrl: 'https://staging.example.invalid/v1' } } } as unknown as ConfigData;

/** Inputs over CONFIG, counting the reads of the config. */
function inputs(given: Partial<Omit<ProfileInputs, 'config'>> = {}): ProfileInputs & { reads(): number } {
  let reads = 0;
  return {
    env: {},
    ...given,
    config: () => {
      reads++;
      return CONFIG;
    },
    reads: () => reads,
  };
}

const usage = (f: () => unknown): UsageError => {
  try {
    f();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('no usage error');
};

describe('resolveProfileName', () => {
  it('flag, then environment, then the config, then "default"; the config read only when needed', () => {
    const flag = inputs({ profile: 'staging', env: { HOSTCTL_PROFILE: 'other' } });
    expect(resolveProfileName(flag)).toBe('staging');
    expect(flag.reads()).toBe(0);
    const env = inputs({ env: { HOSTCTL_PROFILE: 'staging' } });
    expect(resolveProfileName(env)).toBe('staging');
    expect(env.reads()).toBe(0);
    expect(resolveProfileName(inputs())).toBe('prod');
    expect(resolveProfileName({ env: {}, config: () => ({ profiles: {} }) as unknown as ConfigData })).toBe('default');
  });

  it('an empty HOSTCTL_PROFILE is unset; an empty --profile is a usage error naming it', () => {
    expect(resolveProfileName(inputs({ env: { HOSTCTL_PROFILE: '' } }))).toBe('prod');
    expect(usage(() => resolveProfileName(inputs({ profile: '', env: { HOSTCTL_PROFILE: 'staging' } }))).message).toBe('--profile needs a value; it was given an empty one.');
    expect(usage(() => resolveProfileName(inputs({ profile: 'no good' }))).message).toMatch(/is not a valid profile name/);
    expect(usage(() => resolveProfileName(inputs({ env: { HOSTCTL_PROFILE: 'no good' } }))).message).toMatch(/is not a valid profile name/);
  });
});

describe('resolveBaseUrl', () => {
  it('flag, then environment, then the profile in effect, each saying where it came from', () => {
    const env = { HOSTCTL_BASE_URL: 'http://127.0.0.1:1/v1' };
    expect(resolveBaseUrl(inputs({ baseUrl: 'http://localhost:2/v1', env }))).toEqual({ url: 'http://localhost:2/v1', origin: '--base-url' });
    expect(resolveBaseUrl(inputs({ env, profile: 'staging' }))).toEqual({ url: env.HOSTCTL_BASE_URL, origin: 'HOSTCTL_BASE_URL' });
    expect(resolveBaseUrl(inputs({ profile: 'staging' }))).toEqual({ url: 'https://staging.example.invalid/v1', origin: 'profile "staging"' });
    expect(resolveBaseUrl(inputs({ env: { HOSTCTL_PROFILE: 'staging' } }))?.origin).toBe('profile "staging"');
    expect(resolveBaseUrl(inputs())?.origin).toBe('profile "prod"');
    expect(resolveBaseUrl(inputs({ profile: 'nowhere' }))).toBeUndefined();
  });

  it('an empty HOSTCTL_BASE_URL is unset; an empty --base-url, or one under an empty --profile, is a usage error naming it', () => {
    expect(resolveBaseUrl(inputs({ env: { HOSTCTL_BASE_URL: '' } }))?.origin).toBe('profile "prod"');
    expect(usage(() => resolveBaseUrl(inputs({ baseUrl: '', env: { HOSTCTL_BASE_URL: 'http://127.0.0.1:1/v1' } }))).message).toBe('--base-url needs a value; it was given an empty one.');
    expect(usage(() => resolveBaseUrl(inputs({ baseUrl: '  ' }))).message).toMatch(/^--base-url needs a value/);
    expect(usage(() => resolveBaseUrl(inputs({ profile: '' }))).message).toMatch(/^--profile needs a value/);
  });
});

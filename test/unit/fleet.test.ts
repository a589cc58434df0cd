// A fleet's shared store: the URL's rules, how it is shown, and its keys (src/http/fleet.ts).
// Non-loopback hosts are names under .invalid; nothing here connects.

import { describe, expect, it } from 'vitest';
import { maskRedisUrl, parseRedisUrl, redisKeys, redisUrlSetting } from '../../src/http/fleet.js';
import { faultReason } from '../../src/http/redis.js';
import { UsageError } from '../../src/errors.js';

describe('parseRedisUrl', () => {
  it('rediss:// anywhere; redis:// on loopback only; the port defaults to 6379, the database to 0', () => {
    expect(parseRedisUrl('rediss://:p%40ss@redis.example.invalid:6380/3', 'x')).toEqual({ host: 'redis.example.invalid', port: 6380, tls: true, db: 3, password: 'p@ss', where: 'redis.example.invalid:6380' });
    expect(parseRedisUrl('redis://127.0.0.1', 'x')).toMatchObject({ host: '127.0.0.1', port: 6379, tls: false, db: 0, where: '127.0.0.1:6379' });
    expect(parseRedisUrl('redis://[::1]:7000/1', 'x')).toMatchObject({ host: '::1', port: 7000, db: 1 });
    expect(parseRedisUrl('redis://user:pw@localhost:6379', 'x')).toMatchObject({ username: 'user', password: 'pw' });
  });

  it('plain redis:// to another host is a usage error naming rediss:// and never the password', () => {
    const err = (() => {
      try {
        parseRedisUrl('redis://:topsecret@10.redis.example.invalid:6379/0', 'HOSTCTL_REDIS_URL');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    const text = `${(err as UsageError).message} ${(err as UsageError).hint ?? ''}`;
    expect(text).toContain('rediss://10.redis.example.invalid:6379');
    expect(text).not.toContain('topsecret');
    // *.localhost is not loopback (the base URL's rule).
    expect(() => parseRedisUrl('redis://evil.localhost:6379', 'x')).toThrow(UsageError);
  });

  it('other schemes, a bad database and text that is no URL are usage errors that do not echo the text', () => {
    expect(() => parseRedisUrl('http://127.0.0.1:6379', 'x')).toThrow(/must be rediss:\/\//);
    expect(() => parseRedisUrl('redis://127.0.0.1:6379/zero', 'x')).toThrow(/not a number/);
    expect(() => parseRedisUrl('not a url :pw@', 'x')).toThrow(/not a valid URL\.$/);
  });
});

describe('what is shown and kept', () => {
  it('a password is masked; a URL without one is shown as is', () => {
    expect(maskRedisUrl('rediss://:pw@redis.example.invalid:6380/0')).toBe('rediss://:****@redis.example.invalid:6380/0');
    expect(maskRedisUrl('rediss://user:pw@redis.example.invalid/0')).toBe('rediss://user:****@redis.example.invalid/0');
    expect(maskRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('the keys of one token share one hash slot ({fingerprint}) and hold only the fingerprint', () => {
    const k = redisKeys('ab12');
    expect(k.budget).toBe('hostctl:{ab12}:budget');
    expect(k.cache('x')).toBe('hostctl:{ab12}:cache:x');
    expect(redisKeys('a}b{c').budget).toBe('hostctl:{abc}:budget');
  });

  it('HOSTCTL_REDIS_URL wins over the profile setting; empty is unset', () => {
    expect(redisUrlSetting({ HOSTCTL_REDIS_URL: 'redis://127.0.0.1' }, 'rediss://p.invalid', 'ci')).toEqual({ raw: 'redis://127.0.0.1', origin: 'HOSTCTL_REDIS_URL' });
    expect(redisUrlSetting({ HOSTCTL_REDIS_URL: '' }, 'rediss://p.invalid', 'ci')).toEqual({ raw: 'rediss://p.invalid', origin: 'profile "ci" redisUrl' });
    expect(redisUrlSetting({}, undefined, 'ci')).toBeUndefined();
  });

  it('a fault is one short reason, with the password scrubbed', () => {
    const target = parseRedisUrl('redis://:hunter2@127.0.0.1:1', 'x');
    expect(faultReason(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), target)).toBe('connection refused');
    expect(faultReason(new Error('WRONGPASS invalid username-password pair'), target)).toBe('the password was refused');
    expect(faultReason(new Error('OOM command not allowed when used memory > maxmemory'), target)).toBe('Redis is out of memory');
    expect(faultReason(new Error('odd failure with hunter2 in it'), target)).toBe('odd failure with **** in it');
    // A transaction Redis refused names the command's own error.
    const aborted = Object.assign(new Error('EXECABORT Transaction discarded because of previous errors.'), { previousErrors: [new Error('OOM command not allowed')] });
    expect(faultReason(aborted, target)).toBe('Redis is out of memory');
  });
});

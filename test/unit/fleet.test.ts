// A fleet's shared store: the URL's rules, how it is shown, and its keys (src/http/fleet.ts).
// Non-loopback hosts are names under .invalid; nothing here connects.

import { describe, expect, it } from 'vitest';
import { maskRedisUrl, parseRedisUrl, redisKeys, redisUrlSetting } from '../../src/http/fleet.js';
import { faultReason } from '../../src/http/redis.js';
import { UsageError } from '../../src/errors.js';

/** The usage error parseRedisUrl throws for `raw`: its class, message and hint, as the user reads them. */
function refusal(raw: string, origin = 'HOSTCTL_REDIS_URL'): { name: string; message: string; hint: string | undefined } {
  try {
    parseRedisUrl(raw, origin);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { name: err.name, message: err.message, hint: err.hint };
  }
  throw new Error(`${raw} was accepted`);
}

describe('parseRedisUrl', () => {
  it('rediss:// anywhere; redis:// on loopback only; the port defaults to 6379, the database to 0', () => {
    expect(parseRedisUrl('rediss://:p%40ss@redis.example.invalid:6380/3', 'x')).toEqual({ host: 'redis.example.invalid', port: 6380, tls: true, db: 3, password: 'p@ss', where: 'redis.example.invalid:6380' });
    expect(parseRedisUrl('redis://127.0.0.1', 'x')).toMatchObject({ host: '127.0.0.1', port: 6379, tls: false, db: 0, where: '127.0.0.1:6379' });
    expect(parseRedisUrl('redis://[::1]:7000/1', 'x')).toMatchObject({ host: '::1', port: 7000, db: 1 });
    expect(parseRedisUrl('redis://user:pw@localhost:6379', 'x')).toMatchObject({ username: 'user', password: 'pw' });
  });

  it('a URL without a password gives none, not an empty one (an empty secret would be registered)', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379/2', 'x')).toEqual({ host: '127.0.0.1', port: 6379, tls: false, db: 2, where: '127.0.0.1:6379' });
    expect(parseRedisUrl('rediss://user@redis.example.invalid', 'x')).toEqual({ host: 'redis.example.invalid', port: 6379, tls: true, db: 0, username: 'user', where: 'redis.example.invalid:6379' });
  });

  it('plain redis:// to another host is a usage error naming rediss:// and never the password', () => {
    expect(refusal('redis://:topsecret@10.redis.example.invalid:6379/0')).toEqual({
      name: 'UsageError',
      message: 'The Redis URL from HOSTCTL_REDIS_URL is plain redis:// to 10.redis.example.invalid:6379, which is not this machine: cached API objects and the budget would cross the network in clear text.',
      hint: 'Use rediss://10.redis.example.invalid:6379 (Redis with TLS), or redis:// to a loopback host only.',
    });
    // *.localhost is not loopback (the base URL's rule).
    expect(() => parseRedisUrl('redis://evil.localhost:6379', 'x')).toThrow(UsageError);
  });

  it('other schemes, a bad database and text that is no URL are usage errors that do not echo the text', () => {
    expect(() => parseRedisUrl('http://127.0.0.1:6379', 'x')).toThrow(/must be rediss:\/\//);
    expect(() => parseRedisUrl('redis://127.0.0.1:6379/zero', 'x')).toThrow(/not a number/);
    expect(() => parseRedisUrl('not a url :pw@', 'x')).toThrow(/not a valid URL\.$/);
  });

  it('each refusal says what to give instead, in full', () => {
    expect(refusal('not a url :pw@', 'profile "ci" redisUrl')).toEqual({
      name: 'UsageError',
      message: 'The Redis URL from profile "ci" redisUrl is not a valid URL.',
      hint: 'Give a URL such as rediss://redis.example.com:6379/0 (or redis://127.0.0.1:6379 on this machine).',
    });
    expect(refusal('http://127.0.0.1:6379')).toEqual({
      name: 'UsageError',
      message: 'The Redis URL from HOSTCTL_REDIS_URL is a http: URL; it must be rediss:// (or redis:// on a loopback host).',
      hint: 'Give a URL such as rediss://redis.example.com:6379/0.',
    });
    expect(refusal('rediss://redis.example.invalid:6380/zero')).toEqual({
      name: 'UsageError',
      message: 'The Redis URL from HOSTCTL_REDIS_URL names the database "zero", not a number.',
      hint: 'Give the database as a number, e.g. rediss://redis.example.invalid:6380/0.',
    });
  });

  it('the database is one or two digits: more digits, or digits with text before or after, are refused', () => {
    for (const db of ['123', 'x12', '12x', '1e1']) {
      expect(refusal(`redis://127.0.0.1:6379/${db}`).message).toBe(`The Redis URL from HOSTCTL_REDIS_URL names the database "${db}", not a number.`);
    }
    expect(parseRedisUrl('redis://127.0.0.1:6379/15', 'x').db).toBe(15);
  });
});

describe('parseRedisUrl: ?cluster=1', () => {
  it('cluster=1 is a Redis Cluster seeded at the URL\'s node, with the password and TLS as for one node; cluster=0 or none is one Redis', () => {
    expect(parseRedisUrl('rediss://:p%40ss@redis.example.invalid:6380?cluster=1', 'x')).toEqual({ host: 'redis.example.invalid', port: 6380, tls: true, db: 0, password: 'p@ss', cluster: true, where: 'redis.example.invalid:6380' });
    expect(parseRedisUrl('redis://127.0.0.1:7000/0?cluster=1', 'x')).toMatchObject({ cluster: true, db: 0 });
    expect(parseRedisUrl('redis://127.0.0.1:7000?cluster=0', 'x').cluster).toBeUndefined();
    expect(parseRedisUrl('redis://127.0.0.1:7000/0', 'x').cluster).toBeUndefined();
  });

  it('another value of cluster is a usage error naming it and the values there are', () => {
    for (const value of ['yes', 'true', '', '2']) {
      expect(refusal(`rediss://:pw@redis.example.invalid?cluster=${value}`)).toEqual({
        name: 'UsageError',
        message: `The Redis URL from HOSTCTL_REDIS_URL has cluster=${value}; it must be cluster=1 (a Redis Cluster) or cluster=0.`,
        hint: 'The only parameter is cluster=1, for a Redis Cluster: e.g. rediss://redis.example.invalid:6379?cluster=1.',
      });
    }
    expect(refusal('redis://127.0.0.1?cluster=1&cluster=0').message).toBe('The Redis URL from HOSTCTL_REDIS_URL has cluster=1&cluster=0; it must be cluster=1 (a Redis Cluster) or cluster=0.');
  });

  it('a parameter hostctl does not know is a usage error naming it, never its value', () => {
    for (const url of ['rediss://redis.example.invalid?family=6', 'rediss://redis.example.invalid?cluster=1&family=6']) {
      expect(refusal(url, 'profile "ci" redisUrl')).toEqual({
        name: 'UsageError',
        message: 'The Redis URL from profile "ci" redisUrl has the parameter "family", which hostctl does not know.',
        hint: 'The only parameter is cluster=1, for a Redis Cluster: e.g. rediss://redis.example.invalid:6379?cluster=1.',
      });
    }
    expect(refusal('rediss://redis.example.invalid?password=hunter2').message).not.toContain('hunter2');
  });

  it('a cluster has database 0 only: another is a usage error', () => {
    expect(refusal('rediss://redis.example.invalid:6380/3?cluster=1')).toEqual({
      name: 'UsageError',
      message: 'The Redis URL from HOSTCTL_REDIS_URL names the database 3, but a Redis Cluster has only database 0.',
      hint: 'Give the URL without a database, e.g. rediss://redis.example.invalid:6380?cluster=1.',
    });
  });
});

describe('what is shown and kept', () => {
  it('a password is masked; a URL without one is shown as is', () => {
    expect(maskRedisUrl('rediss://:pw@redis.example.invalid:6380/0')).toBe('rediss://:****@redis.example.invalid:6380/0');
    expect(maskRedisUrl('rediss://user:pw@redis.example.invalid/0')).toBe('rediss://user:****@redis.example.invalid/0');
    expect(maskRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('a hand-edited URL that does not parse, whatever its shape, is shown without its password', () => {
    expect(maskRedisUrl('redis://user:hunter2@127.0.0.1:port/0')).toBe('redis://****@127.0.0.1:port/0');
    // A password holding / or @, no // after the scheme, no host, no @ at all, no scheme.
    for (const broken of ['redis://:hun/ter2@127.0.0.1:port/0', 'redis://:hun@ter2@127.0.0.1:port', 'redis:user:hunter2@127.0.0.1:6379', 'rediss://:hunter2@', 'redis://:hunter2:x:y', 'hunter2 no url']) {
      const shown = maskRedisUrl(broken);
      expect(shown).not.toMatch(/hun|ter2/);
      expect(shown).toContain('****');
    }
    expect(maskRedisUrl('redis://:hun/ter2@127.0.0.1:port/0')).toBe('redis://****@127.0.0.1:port/0');
  });

  it('the keys of one token share one hash slot ({tag}) and hold only the tag', () => {
    const k = redisKeys('ab12');
    expect(k.budget).toBe('hostctl:{ab12}:budget');
    expect(k.cache('x')).toBe('hostctl:{ab12}:cache:x');
    expect(redisKeys('a}b{c').budget).toBe('hostctl:{abc}:budget');
    // At most 64 characters of it, as the budget file's name (budget.ts's FileBudgetStore).
    expect(redisKeys(`${'a'.repeat(64)}bcd`).budget).toBe(`hostctl:{${'a'.repeat(64)}}:budget`);
  });

  it('HOSTCTL_REDIS_URL wins over the profile setting; empty is unset', () => {
    expect(redisUrlSetting({ HOSTCTL_REDIS_URL: 'redis://127.0.0.1' }, 'rediss://p.invalid', 'ci')).toEqual({ raw: 'redis://127.0.0.1', origin: 'HOSTCTL_REDIS_URL' });
    expect(redisUrlSetting({ HOSTCTL_REDIS_URL: '' }, 'rediss://p.invalid', 'ci')).toEqual({ raw: 'rediss://p.invalid', origin: 'profile "ci" redisUrl' });
    expect(redisUrlSetting({}, undefined, 'ci')).toBeUndefined();
    expect(redisUrlSetting({ HOSTCTL_REDIS_URL: '' }, '', 'ci')).toBeUndefined();
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

  it('each kind of fault in its words: by the error\'s code, or its text', () => {
    const target = parseRedisUrl('rediss://redis.example.invalid', 'x');
    const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
    expect(faultReason(coded('getaddrinfo ENOTFOUND redis.example.invalid', 'ENOTFOUND'), target)).toBe('host not found');
    expect(faultReason(coded('getaddrinfo EAI_AGAIN redis.example.invalid', 'EAI_AGAIN'), target)).toBe('host not found');
    // Node's error when every address of a name timed out carries the code and no text.
    expect(faultReason(Object.assign(new AggregateError([], ''), { code: 'ETIMEDOUT' }), target)).toBe('no answer within 500 ms');
    expect(faultReason(new Error('Command timed out'), target)).toBe('no answer within 500 ms');
    expect(faultReason(coded('queryA ETIMEOUT redis.example.invalid', 'ETIMEOUT'), target)).toBe('no answer within 500 ms');
    // Only a reply that begins with OOM is Redis out of memory.
    expect(faultReason(new Error("ERR unknown command 'ZOOM'"), target)).toBe("ERR unknown command 'ZOOM'");
    expect(faultReason(new Error('self-signed certificate in certificate chain'), target)).toBe('TLS failed (self-signed certificate in certificate chain)');
    expect(faultReason(new Error('the peer is self signed'), target)).toBe('TLS failed (the peer is self signed)');
  });

  it('a redirection says what it means: a cluster node reached without ?cluster=1, or the token\'s slot moved during the run', () => {
    expect(faultReason(new Error('MOVED 12182 127.0.0.1:7002'), parseRedisUrl('redis://127.0.0.1:7000', 'x'))).toBe("it is a node of a Redis Cluster that does not serve the token's keys; add ?cluster=1 to the URL");
    expect(faultReason(new Error('ASK 12182 127.0.0.1:7002'), parseRedisUrl('redis://127.0.0.1:7000?cluster=1', 'x'))).toBe("the token's keys moved to another node of the cluster (a resharding or a failover); hostctl finds that node when it connects again");
    // Whatever words the node's name holds.
    expect(faultReason(new Error('MOVED 12182 tls-timeout.example.invalid:6379'), parseRedisUrl('rediss://tls-timeout.example.invalid?cluster=1', 'x'))).toMatch(/^the token's keys moved/);
  });

  it('a reason is one line of at most 200 characters', () => {
    const target = parseRedisUrl('rediss://redis.example.invalid', 'x');
    expect(faultReason(new Error('ERR first line\n    second line\t\tend'), target)).toBe('ERR first line second line end');
    expect(faultReason(new Error(`ERR ${'x'.repeat(300)}`), target)).toBe(`ERR ${'x'.repeat(196)}`);
  });
});

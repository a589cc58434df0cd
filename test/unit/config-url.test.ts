import { describe, expect, it } from 'vitest';
import { baseUrlKey, isLoopbackHost, parseBaseUrl, queryPartsWithout } from '../../src/config/url.js';
import { UsageError } from '../../src/errors.js';

describe('isLoopbackHost', () => {
  it('takes exactly the contract\'s loopback names', () => {
    for (const h of ['localhost', 'LOCALHOST', '::1', '[::1]', '127.0.0.1', '127.1.2.3']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['app.localhost', 'example.invalid', '128.0.0.1', '127.0.0.1.example.invalid', '']) expect(isLoopbackHost(h), h).toBe(false);
  });

  it('takes every address of 127.0.0.0/8, whatever its octets\' lengths, and only a whole address', () => {
    for (const h of ['127.10.200.254', '127.255.1.22', '127.0.100.9']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['x127.0.0.1', '1127.0.0.1', '127.0.0.1234']) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('parseBaseUrl', () => {
  it('keeps an https URL ending in /v1, without query, fragment or trailing slash', () => {
    expect(parseBaseUrl('https://api.example.invalid/v1/?a=1#x', 'test').href).toBe('https://api.example.invalid/v1');
  });

  it('a URL that does not parse is echoed with its password masked', () => {
    expect(() => parseBaseUrl('https://me:hunter2-secret@api.exa mple.invalid/v1', '--base-url')).toThrow(
      'The base URL from --base-url is not a valid URL: https://me:****@api.exa mple.invalid/v1.',
    );
    // a password holding @ and / is masked whole
    expect(() => parseBaseUrl('https://me:a/b@api.invalid:99999/v1', '--base-url')).toThrow('is not a valid URL: https://me:****@api.invalid:99999/v1.');
    expect(() => parseBaseUrl('https://api .invalid/v1', '--base-url')).toThrow('is not a valid URL: https://api .invalid/v1.');
    // without a scheme, and with a user name but no password (nothing to mask)
    expect(() => parseBaseUrl('//me:hunter2-secret@api.invalid/v1', '--base-url')).toThrow('is not a valid URL: //me:****@api.invalid/v1.');
    expect(() => parseBaseUrl('https://me@api .invalid/v1', '--base-url')).toThrow('is not a valid URL: https://me@api .invalid/v1.');
  });

  it('allows plain http on loopback only', () => {
    expect(parseBaseUrl('http://127.0.0.1:8080/v1', 'test').origin).toBe('http://127.0.0.1:8080');
    expect(() => parseBaseUrl('http://api.example.invalid/v1', 'test')).toThrow(/only travel over https/);
  });

  it('refuses what is not a usable base URL, naming where it came from', () => {
    for (const raw of ['not a url', 'ftp://api.example.invalid/v1', 'https://u:p@api.example.invalid/v1', 'https://api.example.invalid/v2']) {
      expect(() => parseBaseUrl(raw, 'HOSTCTL_BASE_URL'), raw).toThrow(UsageError);
      expect(() => parseBaseUrl(raw, 'HOSTCTL_BASE_URL'), raw).toThrow(/HOSTCTL_BASE_URL/);
    }
  });
});

describe('parseBaseUrl: each refusal says what is wrong and what to give instead', () => {
  const refusal = (raw: string): UsageError => {
    try {
      parseBaseUrl(raw, '--base-url');
    } catch (err) {
      if (err instanceof UsageError) return err;
      throw err;
    }
    throw new Error(`${raw} was accepted`);
  };

  it('a scheme other than https or http', () => {
    const err = refusal('ftp://api.example.invalid/v1');
    expect(err.message).toBe('The base URL from --base-url uses ftp:, not https:, and must be https:// (or http:// on a loopback host).');
    expect(err.hint).toBe('Give a URL such as https://api.example.com/v1.');
  });

  it('plain http to a host that is not loopback', () => {
    const err = refusal('http://api.example.invalid/v1');
    expect(err.message).toBe('Refusing base URL http://api.example.invalid from --base-url: the token may only travel over https (plain http is allowed for loopback hosts only).');
    expect(err.hint).toBe('Use an https:// base URL.');
  });

  it('credentials, a user name alone included', () => {
    for (const raw of ['https://me@api.example.invalid/v1', 'https://:pw@api.example.invalid/v1', 'https://me:pw@api.example.invalid/v1']) {
      const err = refusal(raw);
      expect(err.message, raw).toBe('The base URL from --base-url must not contain credentials.');
      expect(err.hint, raw).toBe('Remove the user:password@ part.');
    }
  });

  it('a path that does not end in /v1, one that goes on past it included', () => {
    for (const raw of ['https://api.example.invalid/v1/apps', 'https://api.example.invalid/v10', 'https://api.example.invalid/']) {
      const err = refusal(raw);
      expect(err.message, raw).toMatch(/^The base URL from --base-url must end in \/v1, the API's version: https:\/\/api\.example\.invalid\/\S* does not\.$/);
      expect(err.hint, raw).toBe("Give the API's address with its version, such as https://api.example.invalid/v1.");
    }
  });

  it('a URL that does not parse', () => {
    expect(refusal('not a url').hint).toBe('Give a URL such as https://api.example.com/v1.');
  });
});

describe('baseUrlKey', () => {
  it('is what parseBaseUrl makes of a base URL, as text', () => {
    const raw = 'https://api.example.invalid/v1//?page=2#top';
    expect(baseUrlKey(raw)).toBe(parseBaseUrl(raw, 'test').href);
    expect(baseUrlKey(new URL(raw))).toBe('https://api.example.invalid/v1');
  });

  it('is undefined for text that is not a URL', () => {
    expect(baseUrlKey('not a url')).toBeUndefined();
  });

  it('a bare origin is its origin, without the slash', () => {
    expect(baseUrlKey('https://api.example.invalid/')).toBe('https://api.example.invalid');
  });
});

describe('queryPartsWithout', () => {
  it('drops the parts whose decoded key is the one named, and keeps the others as encoded', () => {
    expect(queryPartsWithout('?page=2&status%5B%5D=a+b&p%61ge=3&pag+e=1', 'page')).toEqual(['status%5B%5D=a+b', 'pag+e=1']);
    expect(queryPartsWithout('a=1&&page&b=%E0%A4%A', 'page')).toEqual(['a=1', 'b=%E0%A4%A']);
    expect(queryPartsWithout('', 'page')).toEqual([]);
  });

  it('takes the leading ? off only: a ? inside a value stays', () => {
    expect(queryPartsWithout('a=?&b=2&page=1', 'page')).toEqual(['a=?', 'b=2']);
  });

  it('keeps a part whose key is not valid percent-encoding, undecoded', () => {
    expect(queryPartsWithout('%E0%A4%A=1&page=2', '%E0%A4%A')).toEqual(['page=2']);
  });
});

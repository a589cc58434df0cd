// NO_PROXY as curl reads it (src/http/noproxy.ts), and the choice of proxy
// (src/http/proxy.ts). Pure functions: the rules about addresses that are not loopback
// are tested here, never with traffic.

import { describe, expect, it } from 'vitest';
import { noProxyMatches } from '../../src/http/noproxy.js';
import { proxyFor } from '../../src/http/proxy.js';
import { UsageError } from '../../src/errors.js';

const matches = (url: string, noProxy: string) => noProxyMatches(new URL(url), noProxy);

describe('NO_PROXY, curl rules', () => {
  it.each([
    ['https://example.com/v1', 'example.com', true],
    ['https://www.example.com/v1', 'example.com', true],
    ['https://www.example.com/v1', '.example.com', true],
    ['https://notexample.com/v1', 'example.com', false],
    ['https://example.com.evil.invalid/v1', 'example.com', false],
    ['https://EXAMPLE.com/v1', 'Example.COM', true],
    ['https://other.invalid/v1', 'a.invalid, b.invalid ,other.invalid', true],
    ['https://other.invalid/v1', '', false],
    ['https://other.invalid/v1', '*', true],
  ])('%s with NO_PROXY=%s: %s', (url, noProxy, want) => {
    expect(matches(url, noProxy)).toBe(want);
  });

  it('ignores a trailing dot on either side', () => {
    expect(matches('https://api.example.com./v1', 'example.com')).toBe(true);
    expect(matches('https://api.example.com/v1', 'example.com.')).toBe(true);
    expect(matches('https://api.example.com./v1', '.example.com.')).toBe(true);
    expect(matches('https://api.example.com./v1', 'other.com.')).toBe(false);
  });

  it('compares internationalised names in either form', () => {
    expect(matches('https://api.bücher.example/v1', 'bücher.example')).toBe(true);
    expect(matches('https://api.bücher.example/v1', 'xn--bcher-kva.example')).toBe(true);
    expect(matches('https://api.xn--bcher-kva.example/v1', '.BÜCHER.example')).toBe(true);
    expect(matches('https://api.bucher.example/v1', 'bücher.example')).toBe(false);
  });

  it('bare IPv6 entries are addresses, not host and port', () => {
    expect(matches('https://[2001:db8::1]/v1', '2001:db8::1')).toBe(true);
    expect(matches('https://[2001:db8::1]/v1', '2001:db8:0:0:0:0:0:1')).toBe(true);
    expect(matches('https://[2001:db8::1]/v1', '[2001:db8::1]')).toBe(true);
    expect(matches('https://[2001:db8::2]/v1', '2001:db8::1')).toBe(false);
    // `::1` was read as host `:` port 1 before
    expect(matches('https://[2001:db8::1]:1/v1', '2001:db8::')).toBe(false);
    expect(matches('https://[2001:db8::1]/v1', '[2001:db8::1]:443')).toBe(true);
    expect(matches('https://[2001:db8::1]/v1', '[2001:db8::1]:8443')).toBe(false);
    expect(matches('https://[::ffff:10.1.2.3]/v1', '::ffff:10.1.2.3')).toBe(true);
  });

  it('IP addresses match only IP entries: the same address or a CIDR network', () => {
    expect(matches('https://10.1.2.3/v1', '10.1.2.3')).toBe(true);
    expect(matches('https://10.1.2.3/v1', '10.0.0.0/8')).toBe(true);
    expect(matches('https://11.1.2.3/v1', '10.0.0.0/8')).toBe(false);
    expect(matches('https://10.1.2.3/v1', '10.1.2.0/24')).toBe(true);
    expect(matches('https://10.1.3.3/v1', '10.1.2.0/24')).toBe(false);
    // A domain suffix never matches an address: 2.3 is no domain of 10.1.2.3.
    expect(matches('https://10.1.2.3/v1', '.2.3')).toBe(false);
    expect(matches('https://10.1.2.3/v1', '2.3')).toBe(false);
    expect(matches('https://[fd00::5]/v1', 'fd00::/8')).toBe(true);
    expect(matches('https://[fe80::5]/v1', 'fd00::/8')).toBe(false);
    expect(matches('https://10.1.2.3/v1', '10.1.2.3:443')).toBe(true);
    expect(matches('https://10.1.2.3/v1', '10.1.2.3:80')).toBe(false);
  });

  it('a CIDR prefix of 0 is the whole address, and one longer than the address or negative matches nothing, as in curl', () => {
    expect(matches('https://10.1.2.3/v1', '10.1.2.3/32')).toBe(true);
    expect(matches('https://10.1.2.3/v1', '10.1.2.3/0')).toBe(true);
    expect(matches('https://10.1.2.3/v1', '10.0.0.0/0')).toBe(false);
    expect(matches('https://10.1.2.3/v1', '10.1.2.3/33')).toBe(false);
    expect(matches('https://10.1.2.3/v1', '10.1.2.3/-1')).toBe(false);
    expect(matches('https://[fd00::5]/v1', 'fd00::5/128')).toBe(true);
    expect(matches('https://[fd00::5]/v1', 'fd00::5/129')).toBe(false);
  });

  it('an IPv4 entry is four decimal numbers of one to three digits, each at most 255, as inet_pton reads them', () => {
    expect(matches('https://10.1.2.3/v1', '10.1.2.255/24')).toBe(true);
    expect(matches('https://10.1.2.3/v1', '10.1.2.256/24')).toBe(false);
    expect(matches('https://10.1.2.3/v1', '+10.1.2.3')).toBe(false);
    expect(matches('https://10.1.2.3/v1', '0010.1.2.3')).toBe(false);
    // The bits after the prefix are free: the last address of a /24 is in it.
    expect(matches('https://10.1.2.255/v1', '10.1.2.0/24')).toBe(true);
  });

  it('an IPv6 entry is eight groups of one to four hex digits, :: standing for one zero group or more, the last two groups perhaps an IPv4 address', () => {
    expect(matches('https://[::10.1.2.3]/v1', '::10.1.2.3')).toBe(true);
    expect(matches('https://[1:2:3:4:5:6:7:0]/v1', '1:2:3:4:5:6:7::')).toBe(true);
    expect(matches('https://[1:2:3:4:5:6:7:8]/v1', '1:2:3:4::5:6:7:8')).toBe(false);
    expect(matches('https://[1:2:3:4:5:6:7:8]/v1', '1:2:3:4:5:6:7:8::1::1')).toBe(false);
    expect(matches('https://[fd00::2345]/v1', 'fd00::12345')).toBe(false);
    expect(matches('https://[fd00::1]/v1', 'fd00::1g')).toBe(false);
    expect(matches('https://[1:2:3:4:5:6:7:809]/v1', '1:2:3:4:5:6:7:8.9')).toBe(false);
    expect(matches('https://[::ffff:10.1.2.3]/v1', '::ffff:10.1.2.300')).toBe(false);
  });

  it('a bracketed IPv6 entry is the brackets and an optional :port, nothing before or after', () => {
    expect(matches('https://[2001:db8::1]/v1', 'x[2001:db8::1]')).toBe(false);
    expect(matches('https://[2001:db8::1]/v1', '[2001:db8::1]x')).toBe(false);
  });

  it('a name that is not valid is compared as written: a dotless ı in a name in ACE form is not an i', () => {
    expect(matches('https://müsli.invalid/v1', 'xn--msli-0ra.invalid')).toBe(true);
    expect(matches('https://müsli.invalid/v1', 'xn--mslı-0ra.invalid')).toBe(false);
  });

  it("hostctl's additions: :port and *.domain", () => {
    expect(matches('https://api.example.com/v1', 'example.com:443')).toBe(true);
    expect(matches('https://api.example.com/v1', 'example.com:8443')).toBe(false);
    expect(matches('https://api.example.com:8443/v1', 'example.com:8443')).toBe(true);
    expect(matches('https://api.example.com/v1', '*.example.com')).toBe(true);
    // An http:// URL without a port is on port 80; a port is digits to the end of the entry.
    expect(matches('http://api.example.invalid/v1', 'example.invalid:80')).toBe(true);
    expect(matches('http://api.example.invalid/v1', 'example.invalid:443')).toBe(false);
    expect(matches('https://api.example.invalid/v1', 'example.invalid:443x')).toBe(false);
  });
});

describe('the proxy chosen for a URL', () => {
  const url = new URL('https://api.example.invalid/v1');

  it('https_proxy before HTTPS_PROXY before the HTTP ones; http URLs use only the HTTP ones', () => {
    expect(proxyFor(url, { HTTPS_PROXY: 'http://a.invalid:1', https_proxy: 'http://b.invalid:2' })).toMatchObject({ variable: 'https_proxy', label: 'b.invalid:2' });
    expect(proxyFor(url, { HTTP_PROXY: 'http://c.invalid:3' })).toMatchObject({ variable: 'HTTP_PROXY', label: 'c.invalid:3' });
    expect(proxyFor(new URL('http://api.example.invalid/v1'), { HTTPS_PROXY: 'http://a.invalid:1' })).toBeUndefined();
    expect(proxyFor(new URL('http://api.example.invalid/v1'), { HTTP_PROXY: 'http://c.invalid:3', http_proxy: 'http://d.invalid:4' })).toMatchObject({ variable: 'http_proxy', label: 'd.invalid:4' });
  });

  it('a value is read trimmed, and a blank one counts as unset', () => {
    expect(proxyFor(url, { https_proxy: ' \t', HTTPS_PROXY: ' http://p.invalid:3128\n' })).toEqual({ url: new URL('http://p.invalid:3128'), variable: 'HTTPS_PROXY', label: 'p.invalid:3128' });
  });

  it('an https:// proxy is accepted, its port defaulting to 443', () => {
    expect(proxyFor(url, { HTTPS_PROXY: 'https://p.invalid' })).toEqual({ url: new URL('https://p.invalid'), variable: 'HTTPS_PROXY', label: 'p.invalid:443' });
    expect(proxyFor(url, { HTTPS_PROXY: 'https://p.invalid:8443' })).toMatchObject({ label: 'p.invalid:8443' });
  });

  it('a scheme-less value is http://, its port defaulting to 80', () => {
    expect(proxyFor(url, { HTTPS_PROXY: 'user:pw@proxy.invalid' })).toMatchObject({ label: 'proxy.invalid:80' });
    // Only a scheme at the start makes the value a URL, not a "scheme://" further on.
    expect(proxyFor(url, { HTTPS_PROXY: 'proxy.invalid:3128/?from=http://x' })).toMatchObject({ url: new URL('http://proxy.invalid:3128/?from=http://x'), label: 'proxy.invalid:3128' });
  });

  it('loopback hosts and hosts NO_PROXY names go direct, whatever the proxy variable holds', () => {
    expect(proxyFor(new URL('http://127.0.0.1:9/v1'), { HTTP_PROXY: 'not a url' })).toBeUndefined();
    expect(proxyFor(url, { HTTPS_PROXY: 'http://p.invalid:1', NO_PROXY: '.example.invalid' })).toBeUndefined();
  });

  it('a malformed or non-http proxy is a usage error naming the variable, its password masked, and what to set it to', () => {
    const bad = (value: string) => {
      try {
        proxyFor(url, { HTTPS_PROXY: value });
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return { message: (err as UsageError).message, hint: (err as UsageError).hint };
      }
      throw new Error(`accepted ${value}`);
    };
    expect(bad('http://u:topsecret@exa mple:80')).toEqual({
      message: 'HTTPS_PROXY is not a valid proxy URL: http://u:****@exa mple:80.',
      hint: 'Set HTTPS_PROXY to a URL such as http://proxy.example.com:3128, or unset it.',
    });
    expect(bad('socks5://u:topsecret@proxy.invalid:1080')).toEqual({
      message: 'HTTPS_PROXY names a socks5: proxy (socks5://u:****@proxy.invalid:1080); hostctl uses http:// and https:// proxies only.',
      hint: 'Set HTTPS_PROXY to an http:// or https:// proxy, or unset it.',
    });
  });
});

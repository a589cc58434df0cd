// NO_PROXY as curl reads it (lib/noproxy.c, curl 7.86 and later), so that a shell set up
// for curl sends hostctl the same way. Pure: the rules about addresses that are not
// loopback are tested here, never with traffic.
//
// curl's rules:
// - entries are separated by commas, blanks around them ignored (hostctl also takes blanks
//   alone as separators); `*` means every host;
// - a host name matches an entry equal to it or a domain it is under (`example.com` and
//   `.example.com` both match `example.com` and `www.example.com`, not `notexample.com`),
//   case-insensitively, a trailing dot ignored on either side;
// - an IP address matches only IP entries: the same address, or a network in CIDR
//   notation (`10.0.0.0/8`, `fd00::/8`); an IPv6 entry is written bare (`::1`).
// What hostctl takes on top, as Go and undici do: an entry's `:port` (the entry then
// matches that port only; `[::1]:8443` for IPv6), `*.example.com` as `.example.com`, `*`
// among other entries, bracketed IPv6 entries, and internationalised names in either form
// (`bücher.example` or `xn--bcher-kva.example`).

import { domainToASCII } from 'node:url';

/** An IPv4 address as 4 bytes, or undefined. Dotted decimal only, as inet_pton takes it. */
function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

/** An IPv6 address as 16 bytes, or undefined (with `::` and a trailing IPv4 part). */
function ipv6Bytes(text: string): number[] | undefined {
  if (!text.includes(':')) return undefined;
  let head = text;
  let tail4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4Bytes(text.slice(lastColon + 1));
    if (!v4) return undefined;
    tail4 = v4;
    head = text.slice(0, lastColon);
    if (head.endsWith(':')) head += ':';
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if (!left || !right) return undefined;
  const room = 8 - tail4.length / 2;
  let words: number[];
  if (halves.length === 2) {
    if (left.length + right.length >= room) return undefined;
    words = [...left, ...Array<number>(room - left.length - right.length).fill(0), ...right];
  } else {
    if (left.length !== room) return undefined;
    words = left;
  }
  return [...words.flatMap((w) => [w >> 8, w & 0xff]), ...tail4];
}

/**
 * Whether the first `bits` bits of two addresses of the same family agree (0: all of them).
 * A prefix longer than the address, or negative, matches nothing, as in curl.
 */
function samePrefix(a: number[], b: number[], bits: number): boolean {
  if (a.length !== b.length || bits < 0 || bits > a.length * 8) return false;
  const n = bits === 0 ? a.length * 8 : bits;
  for (let i = 0; i < n; i++) {
    const bit = (x: number[]) => (x[i >> 3]! >> (7 - (i & 7))) & 1;
    if (bit(a) !== bit(b)) return false;
  }
  return true;
}

/** A name as compared: lower-case ASCII (punycode), without a trailing dot. */
function asciiName(name: string): string {
  const trimmed = name.replace(/\.$/, '');
  return (domainToASCII(trimmed) || trimmed).toLowerCase();
}

interface Entry {
  name: string;
  port?: string;
}

/** An entry split into its host part and an optional port (`host:80`, `[::1]:80`, `1.2.3.4:80`). */
function splitEntry(entry: string): Entry {
  const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1]!, port: bracketed[2] };
  // A bare IPv6 address (two colons or more) has no port: `::1` is not host `:` port `1`.
  if ((entry.match(/:/g) ?? []).length > 1) return { name: entry };
  const m = /^(.*?):(\d+)$/.exec(entry);
  return m ? { name: m[1]!, port: m[2] } : { name: entry };
}

/** Whether NO_PROXY names this URL's host (the rules above). */
export function noProxyMatches(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const ip = url.hostname.startsWith('[') ? ipv6Bytes(bare) : ipv4Bytes(bare);
  const host = ip ? bare : asciiName(bare);
  for (const entry of noProxy.split(/[\s,]+/)) {
    if (!entry) continue;
    if (entry === '*') return true;
    const { name, port: wanted } = splitEntry(entry);
    if (wanted !== undefined && wanted !== port) continue;
    if (ip) {
      const slash = name.indexOf('/');
      const address = slash === -1 ? name : name.slice(0, slash);
      const bits = slash === -1 ? 0 : Number(name.slice(slash + 1));
      const other = ip.length === 16 ? ipv6Bytes(address) : ipv4Bytes(address);
      if (other && Number.isInteger(bits) && samePrefix(ip, other, bits)) return true;
      continue;
    }
    const domain = asciiName(name.replace(/^\*?\./, ''));
    if (domain && (host === domain || host.endsWith(`.${domain}`))) return true;
  }
  return false;
}

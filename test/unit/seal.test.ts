// The seal of what hostctl keeps in a shared Redis (src/http/seal.ts): only the token opens
// an entry, only under the key it was written for, and only while that key could have lived.

import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/auth/token.js';
import { tokenSeal } from '../../src/http/seal.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const value = { sends: [[T0, T0]], blockedUntil: T0 + 60_000, note: 'payment method pm-visa-4242 of tok_secret_abcdef' };

describe('tokenSeal', () => {
  it('an entry opens with the same token under the same key, on any machine, and reads as nothing without it', () => {
    const here = tokenSeal('tok_secret_abcdef');
    const there = tokenSeal('tok_secret_abcdef');
    const sealed = here.seal('k:budget', T0, value);
    expect(there.open('k:budget', sealed, T0 + 1_000, HOUR)).toEqual(value);
    for (const part of ['sends', 'blockedUntil', 'pm-visa', 'tok_secret', 'abcdef', String(T0)]) expect(sealed).not.toContain(part);
  });

  it('the same value sealed twice gives two unrelated texts: equal entries cannot be told equal', () => {
    const s = tokenSeal('tok_a');
    expect(s.seal('k', T0, value)).not.toBe(s.seal('k', T0, value));
  });

  it('what does not open is nothing: another token\'s entry, one moved to another key, plain JSON, garbage, a truncated or altered one', () => {
    const s = tokenSeal('tok_victim');
    const sealed = s.seal('hostctl:{t}:cache:a', T0, value);
    const open = (key: string, raw: unknown) => s.open(key, raw, T0, HOUR);
    expect(open('hostctl:{t}:cache:a', tokenSeal('tok_other').seal('hostctl:{t}:cache:a', T0, value))).toBeUndefined();
    expect(open('hostctl:{t}:cache:b', sealed)).toBeUndefined();
    expect(open('hostctl:{t}:budget', sealed)).toBeUndefined();
    expect(open('hostctl:{t}:cache:a', JSON.stringify(value))).toBeUndefined();
    expect(open('hostctl:{t}:cache:a', JSON.stringify({ at: T0, value }))).toBeUndefined();
    for (const raw of [null, undefined, 42, '', 'hs1.', 'hs1.AAAA', 'hs1.!!!not base64!!!', sealed.slice(0, -4), sealed.slice(0, 30), `${sealed}AAAA`]) {
      expect(open('hostctl:{t}:cache:a', raw)).toBeUndefined();
    }
    // Every single byte altered, one at a time (the prefix aside): none opens.
    const bytes = Buffer.from(sealed.slice(4), 'base64');
    for (let i = 0; i < bytes.length; i++) {
      const altered = Buffer.from(bytes);
      altered[i]! ^= 0x01;
      expect(open('hostctl:{t}:cache:a', `hs1.${altered.toString('base64')}`)).toBeUndefined();
    }
  });

  it('an entry written back after its key would have lapsed (a recording replayed) does not open; one within does', () => {
    const s = tokenSeal('tok_replay');
    const sealed = s.seal('k', T0, value);
    expect(s.open('k', sealed, T0 + HOUR, HOUR)).toEqual(value);
    expect(s.open('k', sealed, T0 + HOUR + 1, HOUR)).toBeUndefined();
  });

  it('key names carry a keyed digest: the same for one token everywhere, unlike another token\'s, and never the token or its fingerprint', () => {
    const a = tokenSeal('tok_names');
    expect(a.tag).toBe(tokenSeal('tok_names').tag);
    expect(a.tag).toMatch(/^[0-9a-f]{64}$/);
    expect(a.tag).not.toBe(tokenSeal('tok_names2').tag);
    expect(a.tag).not.toBe(fingerprint('tok_names'));
    expect(a.name('scope\nanswers/x')).toBe(tokenSeal('tok_names').name('scope\nanswers/x'));
    expect(a.name('scope\nanswers/x')).not.toBe(tokenSeal('tok_other').name('scope\nanswers/x'));
    expect(a.name('scope\nanswers/x')).not.toContain('answers');
  });
});

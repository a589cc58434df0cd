// The token's fingerprint keys the rate-limit state and the rejected marks in state.json,
// and a SHA-256 of the base URL names the kept API reference: files written by earlier
// versions, whose own SHA-256 was hand-written (src/auth/sha256.ts, until node:crypto
// replaced it). These digests are what that implementation computed, so a state file or a
// rejected mark from before the change keeps its meaning after it.

import { describe, expect, it } from 'vitest';
import { basename } from 'node:path';
import { fingerprint, makeToken } from '../../src/auth/token.js';
import { referenceFile } from '../../src/reference/store.js';

// Computed by the hand-written SHA-256 of hostctl before node:crypto replaced it.
const EARLIER = {
  '': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  abc: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  hsb_token: 'ad1e310cd2b79e67401e95a95abc6139e6c821fecfaa180a4ed6cfdfb4400c67',
  hsb_1Iwy8hV6IhfuNxz5buFTlPwgphsKbaI8: '7ef14d45cbccc6f5d3efdde37296730cd6c23b323b2b2e2f880f2654999b2521',
  // Multi-byte UTF-8, and a lone surrogate (encoded as U+FFFD, as Buffer.from did).
  'tök€n-😀': '0479a94d5c7e4d0abb5f0f6b8c3b032e3fcf48e96b32442712d900243af9897c',
  'a\ud800b': '05087813392efc16fe8ff448920c6328e53af865df39419436659d9ffda90f7b',
};

describe('the token fingerprint', () => {
  it.each(Object.entries(EARLIER))('of %j is the digest earlier versions keyed state.json with', (token, digest) => {
    expect(fingerprint(token)).toBe(digest);
  });

  it('is what a token carries', () => {
    expect(makeToken('hsb_token', 'env').fingerprint).toBe(EARLIER.hsb_token);
  });
});

describe('the kept reference file of a base URL', () => {
  it('has the name earlier versions gave it', () => {
    const file = referenceFile('http://api.example.invalid/v1', { HOSTCTL_CONFIG_DIR: '/nonexistent.invalid' });
    expect(basename(file ?? '')).toBe('fc2997a5a15c23fcbdc9f42866c0e883.json');
  });
});

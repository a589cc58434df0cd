// The token fingerprint's SHA-256 must be byte for byte node:crypto's: state files written
// by earlier versions key rate-limit state and rejected marks by it.

import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256Hex } from '../../src/auth/sha256.js';
import { fingerprint } from '../../src/auth/token.js';

const reference = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 example digests', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('matches node:crypto at every length around the block and padding boundaries', () => {
    for (let n = 0; n <= 300; n++) {
      const text = 'x'.repeat(n);
      expect(sha256Hex(text), `length ${n}`).toBe(reference(text));
    }
  });

  it('matches node:crypto for any string, multi-byte UTF-8 and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => sha256Hex(text) === reference(text)),
      { numRuns: 500 },
    );
  });

  it('is what fingerprint() keys the state file with', () => {
    expect(fingerprint('hsb_token')).toBe(reference('hsb_token'));
  });
});

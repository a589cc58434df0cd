// What hostctl keeps in a fleet's shared Redis is sealed with keys only the token gives:
// whoever else reaches that Redis (other teams' services, other people's tokens) reads
// nothing there and can make hostctl believe nothing. Redis is storage, not trust.
//
// - The key names carry a keyed digest of the token (`tag`), not its fingerprint, which
//   machines show in file names and anyone can match; an entry's own name is a keyed
//   digest too (`name`), so names say neither whose entry it is nor which URL it answers.
// - Each value is AES-256-GCM with a fresh random nonce, its Redis key name as associated
//   data: an entry copied to another key does not open there. Inside the seal, when it was
//   written (`at`): an entry older than its key could have lived is a recording written
//   back, and does not open either.
// Keys come from the token by HKDF-SHA256; a token is a long random secret, so no
// stretching is needed. Only the Redis chunk loads this module (and node:crypto with it).

import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { isRecord } from '../json/narrow.js';

/** What every sealed value starts with: the format, so that a later one can tell. */
const PREFIX = 'hs1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface Seal {
  /** The token's keyed digest (64 hex): what its Redis key names carry in place of its fingerprint. */
  readonly tag: string;
  /** A keyed digest of an entry's name (64 hex). */
  name(text: string): string;
  /** `value` as JSON, sealed for the Redis key `key`, written at `at` (epoch ms). */
  seal(key: string, at: number, value: unknown): string;
  /**
   * What `raw` (a Redis GET's reply) holds if it was sealed for `key` with this token and
   * written at most `maxAgeMs` before `now`; undefined for anything else (nothing, another
   * key's entry, another token's, plain text, garbage, a truncated or an old one).
   */
  open(key: string, raw: unknown, now: number, maxAgeMs: number): unknown;
}

const derive = (token: string, info: string) => Buffer.from(hkdfSync('sha256', Buffer.from(token, 'utf8'), 'hostctl shared store', info, 32));

export function tokenSeal(token: string): Seal {
  const aead = derive(token, 'seal v1');
  const naming = derive(token, 'names v1');
  const name = (text: string) => createHmac('sha256', naming).update(text, 'utf8').digest('hex');
  return {
    tag: name('\0tag'),
    name,
    seal(key, at, value) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', aead, nonce).setAAD(Buffer.from(key, 'utf8'));
      const body = Buffer.concat([cipher.update(JSON.stringify({ at, value }), 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
    },
    open(key, raw, now, maxAgeMs) {
      if (typeof raw !== 'string' || !raw.startsWith(PREFIX)) return undefined;
      const text64 = raw.slice(PREFIX.length);
      const bytes = Buffer.from(text64, 'base64');
      // Node's decoder skips what it cannot read: only the exact text hostctl writes opens.
      if (bytes.length < NONCE_BYTES + TAG_BYTES || bytes.toString('base64') !== text64) return undefined;
      let text: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', aead, bytes.subarray(0, NONCE_BYTES)).setAAD(Buffer.from(key, 'utf8'));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        text = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
      let inside: unknown;
      try {
        inside = JSON.parse(text);
      } catch {
        return undefined;
      }
      if (!isRecord(inside) || typeof inside.at !== 'number' || !Number.isFinite(inside.at)) return undefined;
      if (now - inside.at > maxAgeMs) return undefined;
      return inside.value;
    },
  };
}

// Personal API tokens, as the dashboard manages them: a name, the token shown once, a
// preview of the last four characters, a creation date. Only a SHA-256 hash of each token
// is kept (in memory and in the state file), so a token cannot be read back.

import { createHash, randomBytes } from 'node:crypto';

export interface TokenRecord {
  readonly name: string;
  readonly hash: string;
  readonly last4: string;
  readonly createdAt: string;
  /** Public ID of the person the token acts as. */
  readonly person: string | null;
}

export interface TokenListing {
  name: string;
  last4: string;
  createdAt: string;
  person: string | null;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function newTokenValue(): string {
  // Bytes below 248 (4 × 62) map evenly onto the 62 characters; the rest are dropped.
  let out = '';
  while (out.length < 32) {
    for (const b of randomBytes(48)) {
      if (b < 248 && out.length < 32) out += ALPHABET[b % 62];
    }
  }
  return `hsb_${out}`;
}

export class TokenStore {
  private readonly byHash = new Map<string, TokenRecord>();
  private readonly byName = new Map<string, TokenRecord>();

  constructor(records: readonly TokenRecord[] = []) {
    for (const r of records) this.add(r);
  }

  /** Creates a token; the returned value is the only copy of the full token. */
  create(name: string, person: string | null, now = new Date()): { record: TokenRecord; token: string } {
    if (this.byName.has(name)) throw new Error(`a token named "${name}" exists`);
    const token = newTokenValue();
    const record: TokenRecord = {
      name,
      hash: hashToken(token),
      last4: token.slice(-4),
      createdAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      person,
    };
    this.add(record);
    return { record, token };
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Takes effect for the very next request: lookups go through the same maps. */
  revoke(name: string): boolean {
    const r = this.byName.get(name);
    if (!r) return false;
    this.byName.delete(name);
    this.byHash.delete(r.hash);
    return true;
  }

  authenticate(token: string): TokenRecord | undefined {
    return this.byHash.get(hashToken(token));
  }

  list(): TokenListing[] {
    return [...this.byName.values()].map((r) => ({ name: r.name, last4: r.last4, createdAt: r.createdAt, person: r.person }));
  }

  records(): TokenRecord[] {
    return [...this.byName.values()];
  }

  private add(r: TokenRecord): void {
    this.byName.set(r.name, r);
    this.byHash.set(r.hash, r);
  }
}

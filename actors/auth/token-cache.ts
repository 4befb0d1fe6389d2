import { createHash } from 'node:crypto';

interface Entry<T> {
  value: T;
  expiresAt: number;
  /** The key set the token was verified with; a rotation invalidates the entry. */
  keysVersion: number;
}

/**
 * Verified tokens, keyed by the SHA-256 of the token so that no token is kept in memory
 * as such. An entry lives until the token's `exp`, never longer, and only while the key
 * set it was verified with is current. Bounded: when full, the oldest entry goes
 * (a Map iterates in insertion order, so that is its first key).
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  hits = 0;
  misses = 0;

  constructor(
    readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  static keyOf(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, keysVersion: number): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    if (entry.expiresAt <= this.now() || entry.keysVersion !== keysVersion) {
      this.entries.delete(key);
      this.misses++;
      return undefined;
    }
    this.hits++;
    return entry.value;
  }

  /** Keeps `value` until `expiresAt` (ms since the epoch); a token without `exp` is not cached. */
  set(key: string, value: T, expiresAt: number | undefined, keysVersion: number): void {
    if (expiresAt === undefined || expiresAt <= this.now() || this.maxEntries <= 0) return;
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt, keysVersion });
  }
}

/**
 * A least-recently-used map keyed by a pair of strings, held as a map of maps, with the
 * policy of LruCache (lru.ts): a hit stamps its entry, a `set` beyond `capacity` entries in
 * all evicts the one used longest ago. For a pair whose first key is long (a query text):
 * looking it up as it is hashes it once, where one key joining the two is a new string,
 * copied and hashed whole on every lookup.
 */
export class PairLruCache<V> {
  private readonly outer = new Map<string, Map<string, { value: V; used: number }>>();
  private size = 0;
  private clock = 0;

  constructor(private readonly capacity: number) {}

  get(first: string, second: string): V | undefined {
    const entry = this.outer.get(first)?.get(second);
    if (entry === undefined) return undefined;
    entry.used = ++this.clock;
    return entry.value;
  }

  set(first: string, second: string, value: V): void {
    let inner = this.outer.get(first);
    if (inner === undefined) this.outer.set(first, (inner = new Map()));
    if (!inner.has(second)) this.size++;
    inner.set(second, { value, used: ++this.clock });
    if (this.size > this.capacity) this.evictOldest();
  }

  private evictOldest(): void {
    let oldest: { first: string; second: string } | undefined;
    let oldestUse = Infinity;
    for (const [first, inner] of this.outer) {
      for (const [second, entry] of inner) {
        if (entry.used < oldestUse) {
          oldest = { first, second };
          oldestUse = entry.used;
        }
      }
    }
    const inner = this.outer.get(oldest!.first)!;
    inner.delete(oldest!.second);
    if (inner.size === 0) this.outer.delete(oldest!.first);
    this.size--;
  }
}

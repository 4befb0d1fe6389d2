/**
 * A least-recently-used map. A hit only stamps its entry (no map surgery on the hot path);
 * `set` beyond `capacity` evicts the entry used longest ago, found by a scan, which only
 * a cache full of distinct queries pays.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; used: number }>();
  private clock = 0;

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.clock;
    return entry.value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  set(key: string, value: V): void {
    this.entries.set(key, { value, used: ++this.clock });
    if (this.entries.size <= this.capacity) return;
    let oldest: string | undefined;
    let oldestUse = Infinity;
    for (const [candidate, entry] of this.entries) {
      if (entry.used < oldestUse) {
        oldest = candidate;
        oldestUse = entry.used;
      }
    }
    this.entries.delete(oldest!);
  }
}

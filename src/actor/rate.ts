/**
 * A counter's rate per second over the last few seconds (whole-second buckets in a ring),
 * for gauges that say what an instance does now rather than since it started.
 */
export class RateWindow {
  readonly #buckets: Float64Array;
  #second = 0;

  constructor(seconds = 10) {
    this.#buckets = new Float64Array(seconds);
  }

  add(count = 1, now = Date.now()): void {
    this.#advance(now);
    this.#buckets[this.#second % this.#buckets.length]! += count;
  }

  /** Per second, over the window's full seconds before the current one. */
  perSecond(now = Date.now()): number {
    this.#advance(now);
    let total = 0;
    for (let back = 1; back < this.#buckets.length; back++) total += this.#buckets[(this.#second - back + this.#buckets.length) % this.#buckets.length]!;
    return Math.round((total / (this.#buckets.length - 1)) * 10) / 10;
  }

  #advance(now: number): void {
    const second = Math.floor(now / 1000);
    if (this.#second === 0) this.#second = second;
    for (let step = 0; this.#second < second && step < this.#buckets.length; step++) this.#buckets[++this.#second % this.#buckets.length] = 0;
    this.#second = Math.max(this.#second, second);
  }
}

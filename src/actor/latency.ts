/**
 * Latency percentiles over the most recent requests: a fixed ring of samples, so memory
 * stays constant under load and the figures follow what the instance does now.
 */
export class LatencyWindow {
  readonly #samples: Float64Array;
  #count = 0;
  #next = 0;

  constructor(size = 1024) {
    this.#samples = new Float64Array(size);
  }

  record(ms: number): void {
    this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % this.#samples.length;
    this.#count = Math.min(this.#count + 1, this.#samples.length);
  }

  percentiles(): { p50: number; p90: number; p99: number; max: number } {
    if (this.#count === 0) return { p50: 0, p90: 0, p99: 0, max: 0 };
    const sorted = Array.from(this.#samples.subarray(0, this.#count)).sort((a, b) => a - b);
    const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
    return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round(sorted[sorted.length - 1]!) };
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

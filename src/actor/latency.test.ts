import { describe, expect, it } from 'vitest';
import { LatencyWindow } from './latency.js';

describe('LatencyWindow', () => {
  it('reports zeros before any request', () => {
    expect(new LatencyWindow().percentiles()).toEqual({ p50: 0, p90: 0, p99: 0, max: 0 });
  });

  it('reports percentiles of the samples it holds', () => {
    const window = new LatencyWindow(100);
    for (let ms = 1; ms <= 100; ms++) window.record(ms);
    expect(window.percentiles()).toEqual({ p50: 51, p90: 91, p99: 100, max: 100 });
  });

  it('keeps only the most recent samples', () => {
    const window = new LatencyWindow(4);
    for (const ms of [100, 100, 100, 100, 1, 1, 1, 1]) window.record(ms);
    expect(window.percentiles().max).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { RateWindow } from './rate.js';

describe('RateWindow', () => {
  it('averages the full seconds of its window, and forgets what is older', () => {
    const rate = new RateWindow(5);
    const t0 = 1_000_000;
    rate.add(4, t0);
    rate.add(4, t0 + 1_000);
    rate.add(100, t0 + 1_999);
    expect(rate.perSecond(t0 + 2_000)).toBe((4 + 104) / 4);
    expect(rate.perSecond(t0 + 5_500)).toBe(104 / 4);
    expect(rate.perSecond(t0 + 60_000)).toBe(0);
  });
});

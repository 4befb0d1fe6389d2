import { describe, expect, it } from 'vitest';
import { TriggerStats } from './trigger-stats.js';

describe('TriggerStats', () => {
  it('reports each trigger\'s lag and failures, and forgets a trigger that no longer exists', () => {
    const stats = new TriggerStats();
    stats.record('orders', Date.now() - 50, 'retry');
    stats.record('users', Date.now(), 'delivered');
    const gauges = stats.gauges(() => true);
    expect(gauges['event_failures.orders']).toBe(1);
    expect(gauges['event_failures.users']).toBe(0);
    expect(gauges['event_lag_ms.orders']).toBeGreaterThanOrEqual(50);
    expect(Object.keys(stats.gauges((trigger) => trigger === 'users'))).toEqual(['event_lag_ms.users', 'event_failures.users']);
    expect(Object.keys(stats.gauges(() => true))).toEqual(['event_lag_ms.users', 'event_failures.users']);
  });
});

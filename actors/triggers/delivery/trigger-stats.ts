import type { Outcome } from './invocation.js';

/**
 * Per trigger, for the monitor: how long its last delivered-or-tried event waited in the
 * stream (from JetStream's store time to the webhook's answer), and its failures so far
 * (attempts that will be retried and events given up on alike).
 */
export class TriggerStats {
  readonly #byTrigger = new Map<string, { lagMs: number; failures: number }>();

  record(trigger: string, storedAtMs: number, outcome: Outcome): void {
    const stats = this.#byTrigger.get(trigger) ?? { lagMs: 0, failures: 0 };
    stats.lagMs = Math.max(0, Math.round(Date.now() - storedAtMs));
    if (outcome !== 'delivered') stats.failures++;
    this.#byTrigger.set(trigger, stats);
  }

  /**
   * Heartbeat gauges `event_lag_ms.<trigger>` and `event_failures.<trigger>` (the monitor
   * groups them), of the triggers that still exist: a deleted one's figures are forgotten.
   */
  gauges(exists: (trigger: string) => boolean): Record<string, number> {
    const gauges: Record<string, number> = {};
    for (const [trigger, stats] of this.#byTrigger) {
      if (!exists(trigger)) {
        this.#byTrigger.delete(trigger);
        continue;
      }
      gauges[`event_lag_ms.${trigger}`] = stats.lagMs;
      gauges[`event_failures.${trigger}`] = stats.failures;
    }
    return gauges;
  }
}

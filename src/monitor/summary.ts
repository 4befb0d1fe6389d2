import type { Heartbeat } from './messages.js';

/** Heartbeat gauges kept per trigger, `<prefix><trigger>` (actors/triggers/delivery/trigger-stats.ts). */
export const TRIGGER_GAUGES = { lagMs: 'event_lag_ms.', failures: 'event_failures.' } as const;

export interface ClusterSummary {
  /** Live subscriptions of every subscriptions actor, by how their results are fetched again. */
  subscriptions: { total: number; changeDriven: number; polling: number };
  /** GraphQL requests refused by a rate limit since each schema actor started. */
  rateLimited: number;
  /** The replication slot's lag as its reader (the lease holder) last measured it; null while nobody reads it. */
  slotLagBytes: number | null;
  slotLagSeconds: number | null;
  /** Per trigger: the longest an event lately waited before its webhook answered, and failed attempts. */
  triggers: Map<string, { lagMs: number; failures: number }>;
}

const numberOf = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** The cluster's figures an operator asks first, added up over every instance's latest heartbeat. */
export function summarize(beats: readonly Heartbeat[]): ClusterSummary {
  const summary: ClusterSummary = { subscriptions: { total: 0, changeDriven: 0, polling: 0 }, rateLimited: 0, slotLagBytes: null, slotLagSeconds: null, triggers: new Map() };
  for (const { actor, gauges } of beats) {
    if (actor === 'subscriptions') {
      summary.subscriptions.total += numberOf(gauges.subscriptions);
      summary.subscriptions.changeDriven += numberOf(gauges.subscriptions_change_driven);
      summary.subscriptions.polling += numberOf(gauges.subscriptions_polling);
    } else if (actor === 'schema') {
      summary.rateLimited += numberOf(gauges.rate_limited);
    } else if (actor === 'triggers') {
      if (gauges.reading_slot === true && typeof gauges.slot_lag_bytes === 'number') summary.slotLagBytes = gauges.slot_lag_bytes;
      if (gauges.reading_slot === true && typeof gauges.slot_lag_seconds === 'number') summary.slotLagSeconds = gauges.slot_lag_seconds;
      for (const [key, value] of Object.entries(gauges)) {
        const lag = key.startsWith(TRIGGER_GAUGES.lagMs);
        if (!lag && !key.startsWith(TRIGGER_GAUGES.failures)) continue;
        const trigger = key.slice((lag ? TRIGGER_GAUGES.lagMs : TRIGGER_GAUGES.failures).length);
        const stats = summary.triggers.get(trigger) ?? { lagMs: 0, failures: 0 };
        if (lag) stats.lagMs = Math.max(stats.lagMs, numberOf(value));
        else stats.failures += numberOf(value);
        summary.triggers.set(trigger, stats);
      }
    }
  }
  return summary;
}

/** Whether a gauge is shown in the summary rather than in its instance's GAUGES column. */
export function summarizedGauge(key: string): boolean {
  return key.startsWith(TRIGGER_GAUGES.lagMs) || key.startsWith(TRIGGER_GAUGES.failures);
}

export function renderSummary(summary: ClusterSummary): string {
  const { subscriptions } = summary;
  const lines = [
    `SUBSCRIPTIONS  ${subscriptions.total} (change-driven ${subscriptions.changeDriven}, polling ${subscriptions.polling})`,
    `RATE LIMITED   ${summary.rateLimited}`,
    `SLOT LAG       ${summary.slotLagBytes === null ? '-' : `${summary.slotLagBytes} bytes`}${summary.slotLagSeconds === null ? '' : `, ${summary.slotLagSeconds} s`}`,
  ];
  if (summary.triggers.size > 0) {
    const rows = [...summary.triggers].sort(([a], [b]) => a.localeCompare(b)).map(([trigger, stats]) => [trigger, String(stats.lagMs), String(stats.failures)]);
    const header = ['TRIGGER', 'EVENT LAG ms', 'FAILURES'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
    lines.push('', line(header), ...rows.map(line));
  }
  return `${lines.join('\n')}\n\n`;
}

import type { Bus } from '../bus/bus.js';
import type { Heartbeat, MonitorEvent } from './messages.js';
import { renderSummary, summarize, summarizedGauge } from './summary.js';

/**
 * The `monitor` command: asks every actor instance for its counters, then prints the
 * cluster as a table and a summary of it (subscriptions, rate-limit refusals, slot lag,
 * lag and failures per trigger), refreshed from the heartbeats, with notable events as they come.
 */
export async function runMonitor(bus: Bus, out: NodeJS.WritableStream, options: { once: boolean; refreshMs: number }): Promise<void> {
  const latest = new Map<string, Heartbeat>();
  const remember = (beat: Heartbeat): void => {
    latest.set(`${beat.instance}/${beat.actor}`, beat);
  };
  for (const beat of await bus.gather<Heartbeat>(bus.subjects.monitorPing, {}, 500)) remember(beat);
  out.write(renderCluster([...latest.values()]));
  if (options.once) return;

  bus.listen<Heartbeat>(bus.subjects.heartbeatAll, remember);
  bus.listen<MonitorEvent>(bus.subjects.monitorEventAll, (event) => {
    out.write(`${event.at} ${event.kind} ${event.actor}@${event.instance} ${JSON.stringify(event.detail)}\n`);
  });
  setInterval(() => out.write(renderCluster([...latest.values()])), options.refreshMs);
  await bus.closed();
}

export function renderCluster(beats: Heartbeat[]): string {
  if (beats.length === 0) return 'no actor instance answered: is an engine running on this NATS and prefix?\n';
  const rows = beats
    .sort((a, b) => a.instance.localeCompare(b.instance) || a.actor.localeCompare(b.actor))
    .map((beat) => [
      beat.instance,
      beat.actor,
      String(beat.uptime_s),
      String(beat.handled),
      String(beat.failed),
      `${beat.latency_ms.p50}/${beat.latency_ms.p90}/${beat.latency_ms.p99}`,
      Object.entries(beat.gauges).filter(([key]) => !summarizedGauge(key)).map(([key, value]) => `${key}=${String(value)}`).join(' '),
    ]);
  const header = ['INSTANCE', 'ACTOR', 'UP(s)', 'HANDLED', 'FAILED', 'P50/P90/P99 ms', 'GAUGES'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n\n${renderSummary(summarize(beats))}`;
}

/** An actor instance's counters, as sent on heartbeats and in ping replies (schemas/bus/heartbeat.json). */
export interface Heartbeat {
  actor: string;
  instance: string;
  host: string;
  pid: number;
  started_at: string;
  uptime_s: number;
  handled: number;
  failed: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  gauges: Record<string, number | string | boolean | null>;
}

/** A notable happening on `<p>.monitor.events.<kind>` (schemas/bus/monitor-event.json). */
export interface MonitorEvent {
  kind: string;
  actor: string;
  instance: string;
  at: string;
  detail: Record<string, unknown>;
}

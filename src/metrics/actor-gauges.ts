import type { Gauge } from 'prom-client';

type GaugeValue = number | string | boolean | null;

/** What the actor runtime knows of one actor of this process: its heartbeat's counters and gauges. */
export interface ActorGauges {
  actor: string;
  read(): { handled: number; failed: number; gauges: Record<string, GaugeValue> };
}

export interface ActorGaugeMetrics {
  httpConnections: Gauge;
  websocketConnections: Gauge;
  activeSubscriptions: Gauge;
  subscriptionPollers: Gauge;
  eventWorkers: Gauge;
  postgresConnections: Gauge;
  resourceVersion: Gauge;
  slotLagBytes: Gauge;
  slotLagSeconds: Gauge;
  actorRequests: Gauge;
}

const numberOf = (value: GaugeValue | undefined): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * Sets the gauges from the figures the actors already report on their heartbeats
 * (`context.reportGauges`), read once per scrape: no actor does any work for the metrics
 * between scrapes. Only the actors of the scraped process are read; each instance of a
 * cluster is scraped on its own.
 */
export function sampleActorGauges(actors: readonly ActorGauges[], metrics: ActorGaugeMetrics): void {
  metrics.postgresConnections.reset();
  metrics.actorRequests.reset();
  metrics.subscriptionPollers.reset();
  metrics.activeSubscriptions.reset();
  for (const actor of actors) {
    const { handled, failed, gauges } = actor.read();
    metrics.actorRequests.set({ actor: actor.actor, outcome: 'ok' }, handled - failed);
    metrics.actorRequests.set({ actor: actor.actor, outcome: 'failed' }, failed);
    const set = (gauge: Gauge, key: string, labels?: Record<string, string>): void => {
      const value = numberOf(gauges[key]);
      if (value === undefined) return;
      if (labels === undefined) gauge.set(value);
      else gauge.set(labels, value);
    };
    set(metrics.websocketConnections, 'websockets');
    // The edge counts every TCP connection; an upgraded one is a WebSocket, which Hasura's HTTP figure leaves out.
    const connections = numberOf(gauges.http_connections);
    if (connections !== undefined) metrics.httpConnections.set(connections - (numberOf(gauges.websockets) ?? 0));
    set(metrics.activeSubscriptions, 'subscriptions_change_driven', { mode: 'change-driven' });
    set(metrics.activeSubscriptions, 'subscriptions_polling', { mode: 'polling' });
    set(metrics.subscriptionPollers, 'pollers_change_driven', { mode: 'change-driven' });
    set(metrics.subscriptionPollers, 'pollers_polling', { mode: 'polling' });
    set(metrics.eventWorkers, 'deliveries_in_flight');
    set(metrics.resourceVersion, 'resource_version');
    set(metrics.slotLagBytes, 'slot_lag_bytes');
    set(metrics.slotLagSeconds, 'slot_lag_seconds');
    const total = numberOf(gauges.pg_pool_total);
    const idle = numberOf(gauges.pg_pool_idle);
    if (total !== undefined) {
      if (idle !== undefined) {
        metrics.postgresConnections.set({ actor: actor.actor, state: 'in_use' }, total - idle);
        metrics.postgresConnections.set({ actor: actor.actor, state: 'idle' }, idle);
      } else {
        metrics.postgresConnections.set({ actor: actor.actor, state: 'open' }, total);
      }
    }
    set(metrics.postgresConnections, 'pg_pool_waiting', { actor: actor.actor, state: 'waiting' });
  }
}

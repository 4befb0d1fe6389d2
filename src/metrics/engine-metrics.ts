import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { sampleActorGauges, type ActorGauges, type ActorGaugeMetrics } from './actor-gauges.js';
import type { OperationType } from './operation-type.js';

/** Hasura's buckets for request execution time (seconds), so that its dashboards' thresholds still mean something. */
const EXECUTION_BUCKETS = [0.01, 0.03, 0.1, 0.3, 1, 3, 10];
const WEBHOOK_BUCKETS = [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30];
const QUEUE_BUCKETS = [0.01, 0.1, 1, 10, 60, 600, 3600];

const OPERATION_TYPES: readonly OperationType[] = ['query', 'mutation', 'subscription', 'unknown'];

/**
 * One process's Prometheus metrics, in a registry of its own (not prom-client's global
 * one: several engines run in one test process). Hasura's metric names with `service_`
 * for `hasura_`. Counters on hot paths are bound to their label values once here, so a
 * request costs an increment and a histogram observation, not a label lookup. Gauges are
 * read from the actors of this process when scraped (actor-gauges.ts).
 */
/** How long a scrape waits for the NATS round trip before reporting it as unknown. */
const SCRAPE_FLUSH_TIMEOUT_MS = 1_000;

export class EngineMetrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({ name: 'service_graphql_requests_total', help: 'GraphQL requests received, by operation type and response status (success, failed: the response has errors).', labelNames: ['operation_type', 'response_status'] as const, registers: [this.registry] });
  readonly #executionTime = new Histogram({ name: 'service_graphql_execution_time_seconds', help: 'Execution time of successful GraphQL requests (excluding subscriptions): authorization, parsing, validation, planning and execution.', labelNames: ['operation_type'] as const, buckets: EXECUTION_BUCKETS, registers: [this.registry] });
  readonly #byType = new Map<OperationType, { success: { inc(): void }; failed: { inc(): void }; time: { observe(value: number): void } }>();
  readonly #rateLimited = new Counter({ name: 'service_graphql_rate_limit_refusals_total', help: 'GraphQL requests refused by a role\'s rate limit (API limits).', registers: [this.registry] });
  readonly #planCache = new Counter({ name: 'service_plan_cache_requests_total', help: 'Lookups of the GraphQL plan cache (parsed, validated and compiled documents), by status: hit or miss.', labelNames: ['status'] as const, registers: [this.registry] });
  readonly #planHit = this.#planCache.labels({ status: 'hit' });
  readonly #planMiss = this.#planCache.labels({ status: 'miss' });
  readonly #eventsFetched = new Counter({ name: 'service_event_fetched_total', help: 'Events fetched from the event log for delivery.', registers: [this.registry] });
  readonly #eventsProcessed = new Counter({ name: 'service_event_processed_total', help: 'Events whose delivery finished, by status: success, or failed once retries are used up.', labelNames: ['status', 'trigger_name'] as const, registers: [this.registry] });
  readonly #invocations = new Counter({ name: 'service_event_invocations_total', help: 'Webhook calls of event triggers, by status (success, failed) and trigger; a retry is one more failed call.', labelNames: ['status', 'trigger_name'] as const, registers: [this.registry] });
  readonly #webhookTime = new Histogram({ name: 'service_event_webhook_processing_time_seconds', help: 'Time an event trigger webhook took to answer.', buckets: WEBHOOK_BUCKETS, registers: [this.registry] });
  readonly #queueTime = new Histogram({ name: 'service_event_queue_time_seconds', help: 'Time from an event entering the event log to the start of a delivery attempt.', buckets: QUEUE_BUCKETS, registers: [this.registry] });
  readonly #natsRoundTrip = new Gauge({ name: 'service_nats_round_trip_seconds', help: 'Round trip to the NATS server, measured when scraped.', registers: [this.registry] });
  readonly #actors: ActorGauges[] = [];
  readonly #gauges: ActorGaugeMetrics;

  /** `flush` is a round trip to the NATS server (a PING answered by a PONG). */
  constructor(private readonly flush: () => Promise<void>) {
    for (const type of OPERATION_TYPES) {
      this.#byType.set(type, {
        success: this.#requests.labels({ operation_type: type, response_status: 'success' }),
        failed: this.#requests.labels({ operation_type: type, response_status: 'failed' }),
        time: this.#executionTime.labels({ operation_type: type }),
      });
    }
    const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [this.registry] });
    this.#gauges = {
      httpConnections: gauge('service_http_connections', 'Open HTTP connections of this instance\'s edge, WebSockets excluded.'),
      websocketConnections: gauge('service_websocket_connections', 'Open WebSocket connections of this instance\'s edge.'),
      activeSubscriptions: gauge('service_active_subscriptions', 'Subscriptions this instance\'s subscriptions actor holds, by mode: change-driven (refetched when a table they read changes) or polling.', ['mode']),
      subscriptionPollers: gauge('service_subscription_pollers', 'Pollers (subscriptions sharing one plan) by mode: change-driven (refetched when a table they read changes) or polling.', ['mode']),
      eventWorkers: gauge('service_event_trigger_http_workers', 'Event trigger webhook calls in flight on this instance.'),
      postgresConnections: gauge('service_postgres_connections', 'PostgreSQL pool connections per actor, by state: in_use, idle, waiting (callers waiting for a connection).', ['actor', 'state']),
      resourceVersion: gauge('service_schema_cache_metadata_resource_version', 'Metadata resource version the schema actor serves.'),
      slotLagBytes: gauge('service_replication_slot_lag_bytes', 'WAL bytes the event trigger replication slot has not confirmed; only on the instance reading the slot.'),
      slotLagSeconds: gauge('service_replication_slot_lag_seconds', 'Seconds the event trigger replication slot\'s reader is behind (PostgreSQL\'s replay lag of its walsender; 0 once caught up); only on the instance reading the slot.'),
      actorRequests: gauge('service_actor_requests_handled', 'Bus requests an actor handled since it started, by actor and outcome (ok, failed).', ['actor', 'outcome']),
    };
  }

  /** Counts a GraphQL request; the time is observed for successful queries and mutations only, as Hasura does. */
  recordGraphql(type: OperationType, failed: boolean, seconds: number): void {
    const children = this.#byType.get(type)!;
    if (failed) {
      children.failed.inc();
      return;
    }
    children.success.inc();
    if (type === 'query' || type === 'mutation') children.time.observe(seconds);
  }

  recordRateLimited(): void {
    this.#rateLimited.inc();
  }

  recordPlanCache(hit: boolean): void {
    (hit ? this.#planHit : this.#planMiss).inc();
  }

  recordEventFetched(queueSeconds: number): void {
    this.#eventsFetched.inc();
    this.#queueTime.observe(queueSeconds);
  }

  /** One webhook call's outcome: `settled` when the event needs no further attempt (delivered, or out of retries). */
  recordInvocation(trigger: string, success: boolean, settled: boolean, seconds: number): void {
    const status = success ? 'success' : 'failed';
    this.#invocations.inc({ status, trigger_name: trigger });
    this.#webhookTime.observe(seconds);
    if (settled) this.#eventsProcessed.inc({ status, trigger_name: trigger });
  }

  /** Makes an actor of this process's gauges (its heartbeat's) readable at scrape time. */
  watchActor(gauges: ActorGauges): void {
    this.#actors.push(gauges);
  }

  /** The exposition text, after reading the gauges of every watched actor and the NATS round trip. */
  async scrape(): Promise<string> {
    sampleActorGauges(this.#actors, this.#gauges);
    // Timed here rather than by the client's rtt(), which counts in whole milliseconds: 0 on a LAN.
    const started = performance.now();
    // While NATS reconnects a flush waits for it: the scrape still answers, the round trip as NaN.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), SCRAPE_FLUSH_TIMEOUT_MS)));
    const reached = await Promise.race([this.flush().then(() => true, () => false), late]);
    clearTimeout(timer);
    this.#natsRoundTrip.set(reached ? (performance.now() - started) / 1000 : Number.NaN);
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

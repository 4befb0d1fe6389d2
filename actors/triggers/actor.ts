import type { KV } from '@nats-io/kv';
import type { Actor } from '../../src/actor/actor.js';
import { ensureKv } from '../../src/bus/jetstream.js';
import type { ChangeFeedWanted } from '../../src/bus/messages/subscriptions.js';
import type { InFlightRequest } from '../../src/bus/messages/triggers.js';
import { encodeJson } from '../../src/bus/wire.js';
import { MetadataStore } from '../../src/metadata/store.js';
import { createPool } from '../../src/pg/pool.js';
import { validate } from '../../src/schemas/validator.js';
import { ChangeEvents } from './capture/change-events.js';
import { ChangeFeedPublisher } from './capture/change-feed.js';
import { LEASE_TTL_MS } from './capture/lease.js';
import { CaptureSupervisor } from './capture/supervisor.js';
import { ValueConverter } from './capture/values.js';
import { DeliveryWorker } from './delivery/worker.js';
import { WebhookClient } from './delivery/webhook.js';
import { EventLog } from './log/event-log.js';
import { serveTriggerRequests } from './ops/handlers.js';
import { LogReader } from './ops/reads.js';
import { TriggerSet } from './trigger-set.js';
import { typedLog } from '../../src/log/log-types.js';

/**
 * How long after a `metadata.changed` broadcast the actor reads the metadata, with whatever
 * else changed meanwhile: at thousands of tables, scripts change it every few milliseconds,
 * and a read after each change cost a statement and the engine's time for each.
 */
const METADATA_SETTLE_MS = 50;

/** How often the stored version is compared with the one served, in case a `metadata.changed` broadcast was missed. */
const STALENESS_CHECK_MS = 10_000;
const GAUGE_REFRESH_MS = 2_000;

/**
 * Event triggers: PostgreSQL logical replication -> JetStream -> webhooks (ARCHITECTURE
 * "Events"; interface 2.6, 6; compat-facts 4). Capture runs on the lease holder only;
 * delivery runs on every instance, sharing one durable consumer. JetStream resources
 * are made on first need, so an engine without triggers leaves nothing behind.
 */
export const triggersActor: Actor = {
  name: 'triggers',
  async start(context) {
    const { bus, config, log } = context;
    const pool = createPool(config.databaseUrl!, { max: Math.min(config.pgConnections, 4), applicationName: `service-graphql-triggers-${context.instance}`, jit: config.pgJit });
    const store = new MetadataStore(pool);
    await store.setUp();

    let read = await store.readTriggerViewSince(null);
    let current = read.stored;
    let triggers = new TriggerSet(current.metadata);
    const refresh = async () => {
      const next = await store.readTriggerViewSince(read);
      if (next.stored.resourceVersion < current.resourceVersion) return;
      const changed = next.stored.metadata !== current.metadata;
      read = next;
      current = next.stored;
      // Most operations leave the view as it was (the same object): the set stands.
      if (changed) triggers = new TriggerSet(current.metadata);
      if (triggers.size > 0) delivery.start();
    };

    /**
     * Brings `triggers` up to the stored metadata, by a check that starts after every
     * caller already held its event: the version alone when nothing changed, the whole
     * metadata when it did. Delivery can pull the first events of a trigger created a
     * moment ago before this instance heard `metadata.changed` (capture follows the
     * metadata in the WAL, ahead of the broadcast); taking the name for a deleted trigger
     * then would archive those events for good. Callers of one event-loop turn share a check.
     */
    let storeCheck: Promise<void> | null = null;
    const checkStore = (): Promise<void> =>
      (storeCheck ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        storeCheck = null;
        if ((await store.currentVersion()) > current.resourceVersion) await refresh();
      }));

    const eventLog = new EventLog(bus, config.eventsStreamReplicas, log);
    let kv: Promise<KV> | null = null;
    const leases = () => {
      kv ??= ensureKv(bus.connection, bus.subjects.leasesBucket, { history: 1, ttl: LEASE_TTL_MS, replicas: config.eventsStreamReplicas });
      kv.catch(() => (kv = null));
      return kv;
    };
    const values = new ValueConverter();
    const events = new ChangeEvents({
      triggers: (): TriggerSet => capture.triggers,
      values,
      eventLog,
      subjectOf: (name) => bus.subjects.eventsOf(name),
      onRefused: (detail) => context.announce('triggers.refused', detail),
      batches: config.eventsClusterMaxInFlight === 0,
      log,
    });
    const feed = new ChangeFeedPublisher(bus, context.instance);
    const capture = new CaptureSupervisor({
      pool,
      connectionString: config.databaseUrl!,
      store,
      kv: leases,
      instance: context.instance,
      wanted: () => ({ hasTriggers: triggers.size > 0, feedWanted: feed.wanted(), feedWantedLately: feed.wantedLately(), resourceVersion: current.resourceVersion }),
      events,
      feed,
      values,
      announce: (kind, detail) => context.announce(kind, detail),
      log,
    });
    const webhooks = new WebhookClient(config.eventsHttpPoolSize);
    const delivery = new DeliveryWorker({
      bus,
      eventLog,
      webhooks,
      poolSize: config.eventsHttpPoolSize,
      clusterMaxInFlight: config.eventsClusterMaxInFlight,
      findTrigger: async (name) => {
        if (triggers.byName(name) === undefined) await checkStore();
        return triggers.byName(name);
      },
      announce: (kind, detail) => context.announce(kind, detail),
      log,
      webhookLog: typedLog(log, 'webhook-log', config.enabledLogTypes),
      metrics: context.metrics,
    });

    // Delivery starts with the first trigger; once started it keeps draining (archived events included).
    if (triggers.size > 0) delivery.start();
    capture.start();
    serveTriggerRequests(context, eventLog, new LogReader(bus, eventLog.js, (name) => triggers.byName(name) !== undefined));

    // Changes come in bursts (a migration's operations, one after another): one read follows
    // the first change of a burst by METADATA_SETTLE_MS and covers the rest of it.
    let afterChange: NodeJS.Timeout | null = null;
    const followChange = async () => {
      afterChange = null;
      await refresh();
      await capture.metadataChanged();
    };
    context.listen<{ resource_version: number; instance: string }>(bus.subjects.metadataChanged, (message) => {
      validate('bus/metadata-changed', message);
      afterChange ??= setTimeout(() => void followChange().catch((error: unknown) => log.error({ err: error }, 'metadata re-read after a change failed')), METADATA_SETTLE_MS);
    });
    context.listen<ChangeFeedWanted>(bus.subjects.changesWanted, (message) => {
      validate<ChangeFeedWanted>('bus/change-wanted', message);
      const before = feed.wanted();
      feed.want();
      // The first ask starts reading now rather than at the next round.
      if (!before) void capture.tick();
    });
    const staleness = setInterval(() => void checkStore().catch((error: unknown) => log.warn({ err: error }, 'metadata re-read failed')), STALENESS_CHECK_MS);
    staleness.unref();

    let pending: { pending: number; ack_pending: number } | null = null;
    const gauges = setInterval(() => {
      if (triggers.size === 0 && pending === null) return;
      delivery.pending().then((value) => (pending = value), () => undefined);
    }, GAUGE_REFRESH_MS);
    gauges.unref();
    context.reportGauges(() => ({
      triggers: triggers.size,
      lease_holder: capture.holdsLease,
      reading_slot: capture.reading,
      slot_lag_bytes: capture.lagBytes,
      slot_lag_seconds: capture.lagSeconds,
      events_captured: events.captured,
      events_refused: events.refused,
      events_unstored: capture.unstored,
      stream_pending: pending === null ? null : pending.pending,
      stream_ack_pending: pending === null ? null : pending.ack_pending,
      deliveries_in_flight: delivery.counters.inFlight,
      delivered: delivery.counters.delivered,
      delivery_failed: delivery.counters.failed,
      delivery_retries: delivery.counters.retried,
      events_archived: delivery.counters.archived,
      ...delivery.triggerStats.gauges((name) => capture.triggers.byName(name) !== undefined),
    }));

    // Every instance answers for its own calls (no queue group): redeliver_event's `busy`.
    const inFlight = bus.serve(bus.subjects.triggersInFlight, async (request) => {
      const { event_id } = validate<InFlightRequest>('bus/triggers-in-flight', request.json());
      return encodeJson({ in_flight: delivery.isCalling(event_id) });
    });

    return {
      async stop() {
        inFlight.unsubscribe();
        clearInterval(staleness);
        if (afterChange !== null) clearTimeout(afterChange);
        clearInterval(gauges);
        await capture.stop();
        eventLog.stop();
        await delivery.stop();
        // Acks held for a shared write (send-soon.ts) go out before the bus drains: an ack lost here is a delivery made twice.
        eventLog.sends.flush();
        webhooks.close();
        await pool.end();
      },
    };
  },
};

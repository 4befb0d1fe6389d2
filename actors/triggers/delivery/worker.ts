import { AckPolicy, DeliverPolicy, jetstreamManager, type Consumer, type JsMsg } from '@nats-io/jetstream';
import type { Bus } from '../../../src/bus/bus.js';
import type { Logger } from '../../../src/log/logger.js';
import type { TypedLog } from '../../../src/log/log-types.js';
import type { EngineMetrics } from '../../../src/metrics/engine-metrics.js';
import type { EventLog } from '../log/event-log.js';
import { loggedEvents, type LoggedEvent } from '../log/event-batch.js';
import { EVENT_HEADER, eventHeaders, webhookBody } from '../log/event-message.js';
import type { Trigger } from '../trigger-set.js';
import { InvocationLog, type Outcome } from './invocation.js';
import { HELD_MAX } from '../send-soon.js';
import { TriggerStats } from './trigger-stats.js';
import type { WebhookClient } from './webhook.js';
import { trace } from '@opentelemetry/api';
import { extractTrace, natsHeaderGetter, TRACEPARENT } from '../../../src/tracing/propagation.js';
import { SpanKind, tracedEntry, type SpanOptions, type TraceContext } from '../../../src/tracing/tracer.js';

/** A delivery not acknowledged within this long is handed to another worker (its worker died). */
const ACK_WAIT_MS = 10_000;
/** While a webhook call runs, the message's ack timer is reset this often. */
const WORKING_EVERY_MS = 3_000;
const FETCH_EXPIRES_MS = 2_000;
/** An event whose trigger could not be looked up (the metadata store unreachable) comes back after this long. */
const UNKNOWN_TRIGGER_RETRY_MS = 1_000;

export interface DeliveryCounters {
  delivered: number;
  failed: number;
  retried: number;
  archived: number;
  inFlight: number;
}

/** A message of the event log taken for delivery, acked once every event in it is settled. */
interface Carrier {
  message: JsMsg;
  unsettled: number;
  /** A delivery of it failed unexpectedly: never acked here, it lapses to another delivery. */
  abandoned: boolean;
  /** The traced request whose write caused its events (its traceparent header), read once for them all. */
  cause: TraceContext | undefined;
}

/** One event of a carrier, waiting for a slot of the pool or being delivered. */
interface Delivery {
  carrier: Carrier;
  event: LoggedEvent;
  trigger: Trigger & { webhook: string };
  /** 1 for the first try (compat-facts 4.2 `current_retry` is one less). */
  attempt: number;
}

/**
 * Delivers events from the one durable consumer every instance shares (decision 3). A
 * pulled message holds one event or a batch (event-batch.ts); its events take the pool's
 * slots (`SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE`) as they free, and it is pulled only when
 * none wait. Each event's webhook is called and the attempt recorded; a retry (compat-facts
 * 4.2) is a copy of the event stored in the log, due after the delay, carrying its attempt.
 * The message is acked once each of its events was delivered, failed for good, or left a
 * stored copy to retry it: a worker that dies first leaves it to another, which calls the
 * webhook again for those of its events already called (at least once).
 */
export class DeliveryWorker {
  readonly counters: DeliveryCounters = { delivered: 0, failed: 0, retried: 0, archived: 0, inFlight: 0 };
  readonly triggerStats = new TriggerStats();
  #stopped = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #consumer: Consumer | null = null;
  /** Events waiting for a slot, oldest first. */
  #waiting: Delivery[] = [];
  /** Pulled messages whose trigger is being looked up. */
  #accepting = 0;
  /** Messages not yet settled: one timer keeps all their ack timers reset (a timer per call cost ~2% CPU). */
  readonly #held = new Set<JsMsg>();
  readonly #calling = new Set<Delivery>();
  #working: NodeJS.Timeout | null = null;
  /** Events per pulled message lately, so that a pull asks for about as many events as there are free slots. */
  #eventsPerMessage = 1;
  readonly #invocations: InvocationLog;
  /** Attempts whose invocation record is not yet stored. */
  #recording = 0;
  /**
   * Calls in flight and records not stored, each call making one: beyond this many no call
   * starts, so that JetStream slow to store records slows delivery rather than letting them
   * pile up. Room for a pool's worth besides the HELD_MAX that go out together, so that
   * calls never wait for records to gather.
   */
  readonly #recordingMax: number;

  constructor(
    private readonly deps: {
      bus: Bus;
      eventLog: EventLog;
      webhooks: WebhookClient;
      poolSize: number;
      clusterMaxInFlight: number;
      /** The trigger as current metadata has it; undefined when it was deleted (events archived). */
      findTrigger: (name: string) => Promise<Trigger | undefined>;
      announce: (kind: string, detail: Record<string, unknown>) => void;
      log: Logger;
      /** webhook-log: one line per webhook call. */
      webhookLog: TypedLog;
      metrics: EngineMetrics | undefined;
    },
  ) {
    this.#invocations = new InvocationLog(deps.eventLog);
    this.#recordingMax = deps.poolSize + HELD_MAX;
  }

  /** Whether a webhook call for the event is under way on this instance (Hasura's "locked"). */
  isCalling(eventId: string): boolean {
    for (const delivery of this.#calling) if (delivery.event.id === eventId) return true;
    return false;
  }

  start(): void {
    if (this.#loop !== null) return;
    this.#working = setInterval(() => {
      for (const message of this.#held) message.working();
    }, WORKING_EVERY_MS);
    this.#working.unref();
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#working !== null) clearInterval(this.#working);
    this.#wakeLoop();
    await this.#loop?.catch(() => undefined);
  }

  /** Messages not yet acked: waiting, in flight, or waiting for a retry. */
  async pending(): Promise<{ pending: number; ack_pending: number } | null> {
    if (this.#consumer === null) return null;
    const info = await this.#consumer.info();
    return { pending: info.num_pending, ack_pending: info.num_ack_pending };
  }

  async #ensureConsumer(): Promise<Consumer> {
    const subjects = this.deps.bus.subjects;
    await this.deps.eventLog.ready();
    const jsm = await jetstreamManager(this.deps.bus.connection);
    const config = {
      durable_name: subjects.eventsConsumer,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ACK_WAIT_MS * 1_000_000,
      max_deliver: -1,
      max_ack_pending: this.deps.clusterMaxInFlight > 0 ? this.deps.clusterMaxInFlight : -1,
      filter_subject: subjects.eventsAll,
    };
    try {
      const info = await jsm.consumers.info(subjects.eventsStream, subjects.eventsConsumer);
      if (info.config.max_ack_pending !== config.max_ack_pending) {
        await jsm.consumers.update(subjects.eventsStream, subjects.eventsConsumer, { max_ack_pending: config.max_ack_pending });
      }
    } catch {
      await jsm.consumers.add(subjects.eventsStream, config).catch(async (error: unknown) => {
        // Another instance created it meanwhile.
        await jsm.consumers.info(subjects.eventsStream, subjects.eventsConsumer).catch(() => {
          throw error;
        });
      });
    }
    return this.deps.eventLog.js.consumers.get(subjects.eventsStream, subjects.eventsConsumer);
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      try {
        this.#consumer ??= await this.#ensureConsumer();
        // Events taken and not done: the next pull goes out while a quarter of the pool's
        // worth is still on hand, so that its round trip overlaps their calls; pulling per
        // freed slot would cost a round trip per event at full load.
        // A message whose trigger is still being looked up counts as the events a message
        // brings lately: a lookup that hangs (the metadata store away) holds room, not the loop.
        const onHand = this.counters.inFlight + this.#waiting.length + Math.ceil(this.#accepting * this.#eventsPerMessage);
        const room = this.deps.poolSize - onHand;
        if (room <= 0 || (room < Math.ceil(this.deps.poolSize / 4) && onHand > 0)) {
          await new Promise<void>((resolve) => (this.#wake = resolve));
          continue;
        }
        const messages = await this.#consumer.fetch({ max_messages: Math.max(1, Math.floor(room / this.#eventsPerMessage)), expires: FETCH_EXPIRES_MS });
        // A nak or term on a connection that closed meanwhile throws: the message lapses to another delivery.
        for await (const message of messages) void this.#accept(message).catch(() => undefined);
        failures = 0;
      } catch (error) {
        if (this.#stopped) return;
        failures++;
        if (failures === 1 || failures % 30 === 0) this.deps.log.warn({ err: error }, 'event delivery cannot pull from JetStream; retrying');
        this.#consumer = null;
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * failures, 2_000)));
      }
    }
  }

  #wakeLoop(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  /** Looks up the message's trigger and queues its events, or settles it whole when none can be delivered now. */
  async #accept(message: JsMsg): Promise<void> {
    this.#accepting++;
    try {
      const triggerName = message.subject.slice(this.deps.bus.subjects.eventsOf('').length);
      let events: LoggedEvent[];
      try {
        events = loggedEvents(message.data, message.headers);
      } catch (error) {
        // Nothing the engine stores looks like this: it can never be delivered.
        this.deps.log.error({ err: error, trigger: triggerName, stream_sequence: message.seq }, 'event log message is not an event; dropped from delivery');
        message.term();
        return;
      }
      this.#eventsPerMessage = (this.#eventsPerMessage + events.length) / 2;
      let trigger: Trigger | undefined;
      try {
        trigger = await this.deps.findTrigger(triggerName);
      } catch (error) {
        // Not knowing whether the trigger still exists, neither deliver nor archive: try again soon.
        this.deps.log.warn({ err: error, trigger: triggerName, event_id: events[0]!.id }, 'cannot read the metadata for an event; retried later');
        message.nak(UNKNOWN_TRIGGER_RETRY_MS);
        return;
      }
      if (trigger === undefined) {
        // Deleted trigger: its events stay in the log, archived, and are never delivered.
        message.term();
        this.counters.archived += events.length;
        for (const event of events) this.deps.announce('triggers.archived', { trigger: triggerName, event_id: event.id });
        return;
      }
      if (trigger.webhook === null) {
        this.deps.log.error({ trigger: trigger.name }, 'webhook_from_env names an unset variable; event retried later');
        message.nak(60_000);
        return;
      }
      const dueInMs = Number(message.headers?.get(EVENT_HEADER.due) ?? 0) - Date.now();
      if (dueInMs > 0) {
        message.nak(dueInMs);
        return;
      }
      if (this.#waiting.length >= this.deps.poolSize) {
        // A pull sized for single events brought batches: what a pool's worth cannot start
        // soon goes back to the stream for any instance, rather than wait here.
        message.nak();
        return;
      }
      const attempt = attemptOf(message);
      // The stream's timestamp is when the message was stored: a retry's queue time includes its wait.
      const queuedSeconds = Math.max(0, Date.now() - message.info.timestampNanos / 1e6) / 1000;
      const carrier: Carrier = { message, unsettled: events.length, abandoned: false, cause: extractTrace(message.headers, natsHeaderGetter) };
      const withWebhook = trigger as Trigger & { webhook: string };
      this.#held.add(message);
      for (const event of events) {
        this.deps.metrics?.recordEventFetched(queuedSeconds);
        this.#waiting.push({ carrier, event, trigger: withWebhook, attempt });
      }
      this.#startWaiting();
    } finally {
      this.#accepting--;
      this.#wakeLoop();
    }
  }

  #startWaiting(): void {
    while (!this.#stopped && this.counters.inFlight < this.deps.poolSize && this.counters.inFlight + this.#recording < this.#recordingMax && this.#waiting.length > 0) {
      const delivery = this.#waiting.shift()!;
      this.counters.inFlight++;
      void this.#deliver(delivery)
        .catch((error: unknown) => {
          this.#abandon(delivery.carrier);
          if (!this.#stopped) this.deps.log.error({ err: error, trigger: delivery.trigger.name, event_id: delivery.event.id }, 'event delivery failed; its message is delivered again');
        })
        .finally(() => {
          this.counters.inFlight--;
          this.#startWaiting();
          this.#wakeLoop();
        });
    }
  }

  async #deliver(delivery: Delivery): Promise<void> {
    const { carrier, event, trigger, attempt } = delivery;
    const message = carrier.message;
    const currentRetry = attempt - 1;
    const body = webhookBody(event.body, event.split, trigger.retry.num_retries, currentRetry);
    this.#calling.add(delivery);
    let result;
    try {
      const webhook = trigger.webhook;
      // Each attempt is the root of its own trace, linked to the traced request whose write caused the event.
      result = await tracedEntry(`event delivery ${trigger.name}`, undefined, deliverySpan(trigger.name, event.id, attempt, carrier.cause), (trace) => this.deps.webhooks.post(trigger, webhook, body, trace));
    } finally {
      this.#calling.delete(delivery);
    }
    // compat-facts 4.2: a usable Retry-After forces another try even when retries are used up.
    const outcome: Outcome = result.success ? 'delivered' : currentRetry < trigger.retry.num_retries || result.retryAfter !== null ? 'retry' : 'error';
    const retryInMs = outcome === 'retry' ? (result.retryAfter ?? trigger.retry.interval_sec) * 1000 : null;
    this.deps.metrics?.recordInvocation(trigger.name, result.success, outcome !== 'retry', result.ms / 1000);
    const detail = { trigger: trigger.name, event_id: event.id, attempt, status: result.status, ms: Math.round(result.ms) };
    this.triggerStats.record(trigger.name, message.info.timestampNanos / 1e6, outcome);
    this.deps.webhookLog.info({ ...detail, outcome }, 'webhook');
    // The event is settled as soon as the webhook answered (its retry copy stored): it stays in
    // the event log either way, so settling it never waits for the attempt's record.
    if (outcome === 'delivered') this.counters.delivered++;
    else if (outcome === 'retry') this.counters.retried++;
    else this.counters.failed++;
    const settled = outcome === 'retry' ? this.#storeRetry(delivery, retryInMs!).then(() => this.#settle(carrier)) : Promise.resolve(this.#settle(carrier));
    // The slot frees once the webhook answered (and a retry's copy is stored); the attempt's
    // record is stored meanwhile, and the monitor hears of the outcome once the log shows it.
    // A slot held until the record was stored waited for records to gather (send-soon.ts):
    // a pool smaller than HELD_MAX waited HOLD_MS for every call, 465 events/s with 10 slots.
    this.#recording++;
    const recorded = this.#invocations
      .record(this.deps.bus.subjects.invocationsOf(trigger.name), { trigger, eventId: event.id, body, result, outcome, retryInMs })
      .catch((error: unknown) => this.deps.log.warn({ err: error, ...detail }, 'invocation log record not stored'))
      .finally(() => {
        this.#recording--;
        this.#startWaiting();
      });
    void Promise.all([recorded, settled]).then(
      () => {
        if (outcome === 'delivered') this.deps.eventLog.sends.held(() => this.deps.announce('triggers.delivered', detail));
        else if (outcome === 'retry') this.deps.eventLog.sends.held(() => this.deps.announce('triggers.retry', { ...detail, retry_in_s: retryInMs! / 1000 }));
        else this.deps.eventLog.sends.held(() => this.deps.announce('triggers.failed', { ...detail, response: result.response }));
      },
      // A retry copy not stored: #startWaiting's catch gives the message back.
      () => undefined,
    );
    await settled;
  }

  /** Its ack timer stops being reset: within ACK_WAIT_MS JetStream delivers the message again, its events not yet settled with it. */
  #abandon(carrier: Carrier): void {
    carrier.abandoned = true;
    this.#held.delete(carrier.message);
  }

  /**
   * Stores the copy that makes the next attempt. Its id names the message it came from and
   * the attempt: a copy stored twice (that message delivered again after a lost ack) is
   * dropped by the stream, while a redelivered copy's own retries are new messages.
   */
  #storeRetry(delivery: Delivery, retryInMs: number): Promise<void> {
    const { carrier, event, attempt } = delivery;
    const next = attempt + 1;
    const trace = carrier.message.headers?.get(TRACEPARENT);
    const headers = eventHeaders(event.id, event.split, {
      [EVENT_HEADER.attempt]: String(next),
      [EVENT_HEADER.due]: String(Date.now() + retryInMs),
      ...(trace === undefined || trace === '' ? {} : { [TRACEPARENT]: trace }),
    });
    return this.deps.eventLog.append(carrier.message.subject, event.body, `${event.id}.${carrier.message.seq}.attempt.${next}`, headers, 'held');
  }

  /** One more of the carrier's events is settled; with the last, the message is acked. */
  #settle(carrier: Carrier): void {
    if (--carrier.unsettled > 0 || carrier.abandoned) return;
    this.#held.delete(carrier.message);
    this.deps.eventLog.sends.held(() => carrier.message.ack());
  }
}

/**
 * The attempt a copy made for a retry carries, else the first. Not JetStream's delivery
 * count: a message handed back unstarted, or delivered again after its worker died
 * mid-call, made no attempt with a record (compat-facts 4.2: `current_retry` counts tries).
 */
function attemptOf(message: JsMsg): number {
  const carried = Number(message.headers?.get(EVENT_HEADER.attempt) ?? '');
  return Number.isSafeInteger(carried) && carried > 0 ? carried : 1;
}

function deliverySpan(trigger: string, eventId: string, attempt: number, cause: TraceContext | undefined): SpanOptions {
  const causeSpan = cause === undefined ? undefined : trace.getSpanContext(cause);
  return {
    kind: SpanKind.CLIENT,
    attributes: { 'service.trigger.name': trigger, 'service.event.id': eventId, 'service.event.attempt': attempt },
    ...(causeSpan === undefined ? {} : { links: [{ context: causeSpan }] }),
  };
}

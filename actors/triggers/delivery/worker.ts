import { AckPolicy, DeliverPolicy, jetstreamManager, type Consumer, type JsMsg } from '@nats-io/jetstream';
import type { Bus } from '../../../src/bus/bus.js';
import type { Logger } from '../../../src/log/logger.js';
import type { TypedLog } from '../../../src/log/log-types.js';
import type { EngineMetrics } from '../../../src/metrics/engine-metrics.js';
import type { EventLog } from '../log/event-log.js';
import { EVENT_HEADER, webhookBody } from '../log/event-message.js';
import type { Trigger } from '../trigger-set.js';
import { InvocationLog, type Outcome } from './invocation.js';
import { TriggerStats } from './trigger-stats.js';
import type { WebhookClient } from './webhook.js';
import { trace } from '@opentelemetry/api';
import { extractTrace, natsHeaderGetter } from '../../../src/tracing/propagation.js';
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

/**
 * Delivers events from the one durable consumer every instance shares (decision 3):
 * pulls only as many messages as it has free slots (`SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE`),
 * calls the webhook, records the attempt, then acks (success, or terminal failure) or
 * naks with the retry delay (compat-facts 4.2). JetStream's delivery count is the
 * attempt number; the consumer's max_ack_pending is the optional cluster-wide cap.
 */
export class DeliveryWorker {
  readonly counters: DeliveryCounters = { delivered: 0, failed: 0, retried: 0, archived: 0, inFlight: 0 };
  readonly triggerStats = new TriggerStats();
  #stopped = false;
  #slotFreed: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #consumer: Consumer | null = null;
  /** Messages whose webhook call is under way: one timer keeps all their ack timers reset (a timer per call cost ~2% CPU). */
  readonly #calling = new Set<JsMsg>();
  #working: NodeJS.Timeout | null = null;
  readonly #invocations: InvocationLog;

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
  }

  /** Whether a webhook call for the event is under way on this instance (Hasura's "locked"). */
  isCalling(eventId: string): boolean {
    for (const message of this.#calling) if (message.headers?.get(EVENT_HEADER.id) === eventId) return true;
    return false;
  }

  start(): void {
    if (this.#loop !== null) return;
    this.#working = setInterval(() => {
      for (const message of this.#calling) message.working();
    }, WORKING_EVERY_MS);
    this.#working.unref();
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#working !== null) clearInterval(this.#working);
    this.#slotFreed?.();
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
        const free = this.deps.poolSize - this.counters.inFlight;
        // Pull in batches: a pull per freed slot costs a round trip per event at full load.
        if (free <= 0 || (free < Math.ceil(this.deps.poolSize / 4) && this.counters.inFlight > 0)) {
          await new Promise<void>((resolve) => (this.#slotFreed = resolve));
          continue;
        }
        const messages = await this.#consumer.fetch({ max_messages: free, expires: FETCH_EXPIRES_MS });
        for await (const message of messages) {
          this.counters.inFlight++;
          void this.#deliver(message).finally(() => {
            this.counters.inFlight--;
            const wake = this.#slotFreed;
            this.#slotFreed = null;
            wake?.();
          });
        }
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

  async #deliver(message: JsMsg): Promise<void> {
    const triggerName = message.subject.slice(this.deps.bus.subjects.eventsOf('').length);
    const eventId = message.headers?.get(EVENT_HEADER.id) ?? '';
    let trigger: Trigger | undefined;
    try {
      trigger = await this.deps.findTrigger(triggerName);
    } catch (error) {
      // Not knowing whether the trigger still exists, neither deliver nor archive: try again soon.
      this.deps.log.warn({ err: error, trigger: triggerName, event_id: eventId }, 'cannot read the metadata for an event; retried later');
      message.nak(UNKNOWN_TRIGGER_RETRY_MS);
      return;
    }
    if (trigger === undefined) {
      // Deleted trigger: its events stay in the log, archived, and are never delivered.
      message.term();
      this.counters.archived++;
      this.deps.announce('triggers.archived', { trigger: triggerName, event_id: eventId });
      return;
    }
    const attempt = message.info.deliveryCount;
    const currentRetry = attempt - 1;
    // The stream's timestamp is when the event was stored: a retry's queue time includes its wait.
    this.deps.metrics?.recordEventFetched(Math.max(0, Date.now() - message.info.timestampNanos / 1e6) / 1000);
    if (trigger.webhook === null) {
      this.deps.log.error({ trigger: trigger.name }, 'webhook_from_env names an unset variable; event retried later');
      message.nak(60_000);
      return;
    }
    // Every stored event carries where its data ends (event-message.ts eventHeaders).
    const body = webhookBody(message.data, Number(message.headers!.get(EVENT_HEADER.split)), trigger.retry.num_retries, currentRetry);
    this.#calling.add(message);
    let result;
    try {
      const webhook = trigger.webhook;
      // Each attempt is the root of its own trace, linked to the traced request whose write caused the event (its traceparent header).
      const cause = extractTrace(message.headers, natsHeaderGetter);
      result = await tracedEntry(`event delivery ${trigger.name}`, undefined, deliverySpan(trigger.name, eventId, attempt, cause), (trace) => this.deps.webhooks.post(trigger, webhook, body, trace));
    } finally {
      this.#calling.delete(message);
    }
    // compat-facts 4.2: a usable Retry-After forces another try even when retries are used up.
    const outcome: Outcome = result.success ? 'delivered' : currentRetry < trigger.retry.num_retries || result.retryAfter !== null ? 'retry' : 'error';
    const retryInMs = outcome === 'retry' ? (result.retryAfter ?? trigger.retry.interval_sec) * 1000 : null;
    this.deps.metrics?.recordInvocation(trigger.name, result.success, outcome !== 'retry', result.ms / 1000);
    const detail = { trigger: trigger.name, event_id: eventId, attempt, status: result.status, ms: Math.round(result.ms) };
    this.triggerStats.record(trigger.name, message.info.timestampNanos / 1e6, outcome);
    this.deps.webhookLog.info({ ...detail, outcome }, 'webhook');
    // The event is settled as soon as the webhook answered: it stays in the event log either
    // way, so acking it never waits for the attempt's record (a JetStream round trip).
    if (outcome === 'delivered') {
      this.deps.eventLog.sends.held(() => message.ack());
      this.counters.delivered++;
    } else if (outcome === 'retry') {
      this.deps.eventLog.sends.held(() => message.nak(retryInMs!));
      this.counters.retried++;
    } else {
      this.deps.eventLog.sends.held(() => message.term());
      this.counters.failed++;
    }
    // The record is stored meanwhile; the slot stays taken until it is (backpressure when
    // JetStream is slow), and the monitor hears of the outcome once the log shows it.
    try {
      await this.#invocations.record(this.deps.bus.subjects.invocationsOf(trigger.name), { trigger, eventId, body, result, outcome, retryInMs });
    } catch (error) {
      this.deps.log.warn({ err: error, ...detail }, 'invocation log record not stored');
    }
    if (outcome === 'delivered') this.deps.eventLog.sends.held(() => this.deps.announce('triggers.delivered', detail));
    else if (outcome === 'retry') this.deps.eventLog.sends.held(() => this.deps.announce('triggers.retry', { ...detail, retry_in_s: retryInMs! / 1000 }));
    else this.deps.eventLog.sends.held(() => this.deps.announce('triggers.failed', { ...detail, response: result.response }));
  }
}

function deliverySpan(trigger: string, eventId: string, attempt: number, cause: TraceContext | undefined): SpanOptions {
  const causeSpan = cause === undefined ? undefined : trace.getSpanContext(cause);
  return {
    kind: SpanKind.CLIENT,
    attributes: { 'service.trigger.name': trigger, 'service.event.id': eventId, 'service.event.attempt': attempt },
    ...(causeSpan === undefined ? {} : { links: [{ context: causeSpan }] }),
  };
}

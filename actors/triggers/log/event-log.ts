import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { Bus } from '../../../src/bus/bus.js';
import { ensureStream } from '../../../src/bus/jetstream.js';
import { HEADER_ROOM_BYTES } from '../../../src/bus/wire.js';
import type { Logger } from '../../../src/log/logger.js';
import { BatchedSends, type SendTiming } from '../send-soon.js';
import { StreamPublisher } from './stream-publisher.js';

/** Events and invocation records are kept a week (Hasura keeps them until cleaned up). */
const RETENTION_NS = 7 * 24 * 3600 * 1e9;
/** Copies of one event published within this window are dropped by the stream (Nats-Msg-Id). */
const DUPLICATE_WINDOW_NS = 10 * 60 * 1e9;
const PUBLISH_TIMEOUT_MS = 5_000;
/** JetStream's deduplication header. */
const MSG_ID_HEADER = 'Nats-Msg-Id';

export class EventTooLargeError extends Error {
  override readonly name = 'EventTooLargeError';
}

export class StoppedError extends Error {
  override readonly name = 'StoppedError';
}

/**
 * The JetStream side of event triggers: the event log `<P>_EVENTS` and the invocation
 * log `<P>_INVOCATIONS`, created on first need (an engine without triggers leaves no
 * trace in JetStream), and appends that keep trying until JetStream has stored the
 * message (NATS restarting is a pause, not a loss).
 */
export class EventLog {
  readonly js: JetStreamClient;
  /** The actor's sends on the bus connection that can wait a moment: appends, acks, monitor events. */
  readonly sends = new BatchedSends();
  readonly #publisher: StreamPublisher;
  #ready: Promise<void> | null = null;
  /** Both streams known to exist: an append then publishes in the caller's turn, inside a drain of `sends` when called from one. */
  #streamsMade = false;
  #stopped = false;

  constructor(
    private readonly bus: Bus,
    private readonly replicas: number,
    private readonly log: Logger,
  ) {
    this.js = jetstream(bus.connection);
    this.#publisher = new StreamPublisher(bus.connection, this.sends);
  }

  /** Creates both streams (idempotent); retried by the next caller after a failure. */
  ready(): Promise<void> {
    if (this.#ready === null) {
      const subjects = this.bus.subjects;
      const common = { max_age: RETENTION_NS, num_replicas: this.replicas, duplicate_window: DUPLICATE_WINDOW_NS };
      this.#ready = (async () => {
        await ensureStream(this.bus.connection, { name: subjects.eventsStream, subjects: [subjects.eventsAll], ...common });
        await ensureStream(this.bus.connection, { name: subjects.invocationsStream, subjects: [subjects.invocationsAll], ...common });
        this.#streamsMade = true;
      })();
      this.#ready.catch(() => (this.#ready = null));
    }
    return this.#ready;
  }

  /** Largest body an event or record may have. */
  get maxBody(): number {
    return this.bus.maxPayload - HEADER_ROOM_BYTES;
  }

  /**
   * Appends one message and resolves once JetStream acknowledged it (a duplicate counts).
   * Failures are retried with the same message id until `stop()`. Without an id (invocation
   * records, which carry their own) a retry after a lost acknowledgement may store a copy.
   * A `held` append is one nothing waits on soon (send-soon.ts).
   */
  async append(subject: string, body: Uint8Array, msgId: string | null, headers?: MsgHdrs, timing: SendTiming = 'soon'): Promise<void> {
    if (body.length > this.maxBody) throw new EventTooLargeError(`${body.length} bytes is more than the ${this.maxBody} bytes NATS accepts`);
    for (let attempt = 0; ; attempt++) {
      if (this.#stopped) throw new StoppedError('event log stopped');
      try {
        if (!this.#streamsMade) await this.ready();
        if (msgId !== null) (headers ??= natsHeaders()).set(MSG_ID_HEADER, msgId);
        await this.#publisher.publish(subject, body, headers, PUBLISH_TIMEOUT_MS, timing);
        return;
      } catch (error) {
        if (attempt === 0 || attempt % 20 === 0) this.log.warn({ err: error, subject, attempt }, 'JetStream did not store an event yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 2_000)));
      }
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#publisher.close();
  }
}

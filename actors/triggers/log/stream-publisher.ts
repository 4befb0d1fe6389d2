import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { BatchedSends, SendTiming } from '../send-soon.js';

/** How often pending publishes are checked against their deadline. */
const SWEEP_MS = 250;

export class PublishError extends Error {
  override readonly name = 'PublishError';
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
  deadline: number;
}

/**
 * JetStream publishes that resolve on the stream's acknowledgement, like `js.publish`, at a
 * fraction of its cost: one inbox subscription for every acknowledgement and one timer
 * for every deadline. `js.publish` makes a request per message, and nats.js makes a
 * request build two Errors up front (for their stack traces) and a timer: with a capture
 * and an invocation record per event that was ~8% of the engine's CPU and much of its
 * garbage at 1,300 events/s (profile of test/bench/triggers.bench.ts).
 */
export class StreamPublisher {
  readonly #pending = new Map<string, Pending>();
  readonly #inbox: string;
  readonly #subscription: Subscription;
  readonly #sweeper: NodeJS.Timeout;
  #next = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly sends: BatchedSends,
  ) {
    this.#inbox = createInbox();
    this.#subscription = nc.subscribe(`${this.#inbox}.*`, { callback: (error, msg) => (error === null ? this.#acknowledged(msg) : undefined) });
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_MS);
    this.#sweeper.unref();
  }

  /**
   * Resolves once the stream stored the message (a copy dropped by its Nats-Msg-Id counts);
   * rejects on a refusal or after `timeoutMs`. Sent in this turn, or `held` (send-soon.ts).
   */
  publish(subject: string, body: Uint8Array, headers: MsgHdrs | undefined, timeoutMs: number, timing: SendTiming): Promise<void> {
    const token = (this.#next++).toString(36);
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(token, { resolve, reject, deadline: Date.now() + timeoutMs });
      const send = () => {
        try {
          this.nc.publish(subject, body, { reply: `${this.#inbox}.${token}`, headers });
        } catch (error) {
          this.#pending.delete(token);
          reject(error as Error);
        }
      };
      if (timing === 'held') this.sends.held(send);
      else this.sends.soon(send);
    });
  }

  close(): void {
    clearInterval(this.#sweeper);
    this.#subscription.unsubscribe();
    for (const pending of this.#pending.values()) pending.reject(new PublishError('publisher closed'));
    this.#pending.clear();
  }

  #acknowledged(msg: Msg): void {
    const token = msg.subject.slice(this.#inbox.length + 1);
    const pending = this.#pending.get(token);
    if (pending === undefined) return; // already timed out: the caller retries with the same message id
    this.#pending.delete(token);
    // No stream listens on the subject (not created yet, or deleted): NATS answers 503.
    if (msg.data.length === 0 && msg.headers?.code === 503) return pending.reject(new PublishError('no stream answers on this subject'));
    try {
      const ack = msg.json<{ error?: { description?: string } }>();
      if (ack.error !== undefined) return pending.reject(new PublishError(ack.error.description ?? 'refused by JetStream'));
    } catch {
      return pending.reject(new PublishError('JetStream answered with something that is not a publish acknowledgement'));
    }
    pending.resolve();
  }

  #sweep(): void {
    const now = Date.now();
    // Every publish has the same timeout, so the map (in insertion order) is in deadline order.
    for (const [token, pending] of this.#pending) {
      if (pending.deadline > now) break;
      this.#pending.delete(token);
      pending.reject(new PublishError('JetStream did not acknowledge in time'));
    }
  }
}

/**
 * Sends to NATS that share one socket write: each runs in this turn's check phase
 * (setImmediate), together with every other send queued in the same turn. nats.js writes
 * its socket once per microtask checkpoint, and each webhook response or WAL chunk arrives
 * in a callback of its own, so acks, publishes and monitor events sent straight away cost a
 * write(2) each: ~13% of the engine's CPU at 1,500 events/s (profile of
 * test/bench/triggers.bench.ts). Queued, one turn's sends share one write. The delay is at
 * most the rest of the current event-loop turn. One per event log, so that one actor's
 * sends never wait on, or run in the drain of, another's; a drain already scheduled when its
 * actor stops still runs, and a send on the closed connection fails quietly.
 */
export class BatchedSends {
  #queue: (() => void)[] = [];

  /** Runs `send` with every other send queued in this turn, in the order they were queued. */
  soon(send: () => void): void {
    this.#queue.push(send);
    if (this.#queue.length === 1) setImmediate(this.#drain);
  }

  readonly #drain = (): void => {
    const sends = this.#queue;
    this.#queue = [];
    for (const send of sends) {
      try {
        send();
      } catch {
        // A send fails only on a closed connection; its caller's timeout or redelivery covers it.
      }
    }
  };
}

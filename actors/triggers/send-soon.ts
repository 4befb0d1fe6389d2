/**
 * How long a send that nothing waits on (an ack, an invocation record, a monitor event)
 * may wait for a socket write it can share. Events arriving one at a time would otherwise
 * cost a write(2) each for these, and each write wakes the NATS server, whose answer wakes
 * the engine: at 100 to 1,000 single-row transactions a second, writes to NATS were 16-40%
 * of the engine's busy time (profile of test/bench/triggers.bench.ts).
 */
export const HOLD_MS = 20;

/**
 * Held sends that go out in this turn however long they could still wait: a process that
 * only delivers (capture on another instance) has no `soon` sends to carry them, and
 * records waiting to be stored hold room of the pool (delivery/worker.ts).
 */
export const HELD_MAX = 64;

/** Whether a send goes out in this turn (`soon`) or may wait for a write it can share (`held`). */
export type SendTiming = 'soon' | 'held';

/**
 * Sends to NATS that share one socket write. A `soon` send runs in this turn's check phase
 * (setImmediate), together with every other send queued in the same turn: nats.js writes
 * its socket once per microtask checkpoint, and each webhook response or WAL chunk arrives
 * in a callback of its own, so acks, publishes and monitor events sent straight away cost a
 * write(2) each: ~13% of the engine's CPU at 1,500 events/s. A `held` send goes out with the
 * next `soon` drain, or with other held ones after HOLD_MS or once HELD_MAX wait. Sends
 * queued while a drain runs run in it. One per event log, so that one actor's sends never
 * wait on, or run in the drain of, another's; a drain already scheduled when its actor
 * stops still runs, and a send on the closed connection fails quietly.
 */
export class BatchedSends {
  #queue: (() => void)[] = [];
  #held: (() => void)[] = [];
  #holdTimer: NodeJS.Timeout | null = null;
  #draining = false;

  /** Runs `send` with every other send queued in this turn, in the order they were queued. */
  soon(send: () => void): void {
    this.#queue.push(send);
    if (this.#queue.length === 1 && !this.#draining) setImmediate(this.#drain);
  }

  /** Runs `send` with the next `soon` sends, within HOLD_MS or once HELD_MAX are held; held sends keep their order. */
  held(send: () => void): void {
    this.#held.push(send);
    if (this.#draining) return;
    if (this.#held.length === 1) this.#holdTimer = setTimeout(this.#drain, HOLD_MS);
    else if (this.#held.length === HELD_MAX) setImmediate(this.#drain);
  }

  /** Runs every queued and held send now: an actor stopping hands them to the connection before it drains. */
  flush(): void {
    this.#drain();
  }

  readonly #drain = (): void => {
    if (this.#holdTimer !== null) {
      clearTimeout(this.#holdTimer);
      this.#holdTimer = null;
    }
    this.#draining = true;
    try {
      while (this.#queue.length > 0 || this.#held.length > 0) {
        const sends = this.#queue.concat(this.#held);
        this.#queue = [];
        this.#held = [];
        for (const send of sends) {
          try {
            send();
          } catch {
            // A send fails only on a closed connection; its caller's timeout or redelivery covers it.
          }
        }
      }
    } finally {
      this.#draining = false;
    }
  };
}

import { errors } from '../../../src/errors/errors.js';
import { Cancellation } from '../../../src/request/cancellation.js';

/** One running request: its cancellation, cancelled when the request is; `end` when it is answered. */
export interface Running {
  cancellation: Cancellation;
  end(): void;
}

/**
 * The GraphQL requests this instance is running, by the edge's cancel key, so that a
 * cancel broadcast (their client went away) stops the one it names wherever it runs.
 */
export class InFlightRequests {
  readonly #running = new Map<string, Cancellation>();

  begin(cancelKey: string): Running {
    const cancellation = new Cancellation();
    this.#running.set(cancelKey, cancellation);
    return {
      cancellation,
      end: () => {
        // Only its own entry: a key is the edge's and unique, but a stale entry must never outlive its request.
        if (this.#running.get(cancelKey) === cancellation) this.#running.delete(cancelKey);
      },
    };
  }

  /** Stops the request if it runs here; a request of another instance is not ours to stop. */
  cancel(cancelKey: string): void {
    const cancellation = this.#running.get(cancelKey);
    if (cancellation === undefined) return;
    this.#running.delete(cancelKey);
    cancellation.cancel(errors.requestAbandoned('$'));
  }

  get size(): number {
    return this.#running.size;
  }
}

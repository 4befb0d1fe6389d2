import { errors } from '../../../src/errors/errors.js';

/** One running request: its signal aborts when it is cancelled; `end` when it is answered. */
export interface Running {
  signal: AbortSignal;
  end(): void;
}

/**
 * The GraphQL requests this instance is running, by the edge's cancel key, so that a
 * cancel broadcast (their client went away) stops the one it names wherever it runs.
 */
export class InFlightRequests {
  readonly #running = new Map<string, AbortController>();

  begin(cancelKey: string): Running {
    const controller = new AbortController();
    this.#running.set(cancelKey, controller);
    return {
      signal: controller.signal,
      end: () => {
        // Only its own entry: a key is the edge's and unique, but a stale entry must never outlive its request.
        if (this.#running.get(cancelKey) === controller) this.#running.delete(cancelKey);
      },
    };
  }

  /** Stops the request if it runs here; a request of another instance is not ours to stop. */
  cancel(cancelKey: string): void {
    const controller = this.#running.get(cancelKey);
    if (controller === undefined) return;
    this.#running.delete(cancelKey);
    controller.abort(errors.requestAbandoned('$'));
  }

  get size(): number {
    return this.#running.size;
  }
}

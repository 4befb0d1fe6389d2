import { errors } from '../../../src/errors/errors.js';

/**
 * The GraphQL requests this instance is running, by request id, so that a cancel
 * broadcast (their client went away) stops the one it names wherever it runs.
 */
export class InFlightRequests {
  readonly #running = new Map<string, AbortController>();

  /** Registers a request; its signal aborts when the request is cancelled. Call `end` when it is answered. */
  begin(requestId: string): AbortSignal {
    const controller = new AbortController();
    this.#running.set(requestId, controller);
    return controller.signal;
  }

  end(requestId: string): void {
    this.#running.delete(requestId);
  }

  /** Stops the request if it runs here; a request of another instance is not ours to stop. */
  cancel(requestId: string): void {
    const controller = this.#running.get(requestId);
    if (controller === undefined) return;
    this.#running.delete(requestId);
    controller.abort(errors.requestAbandoned('$'));
  }

  get size(): number {
    return this.#running.size;
  }
}

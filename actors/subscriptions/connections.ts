import type { Subscription } from './model.js';

/** One socket's subscriptions, and the starts still being planned. */
interface Connection {
  readonly subscriptions: Map<string, Subscription>;
  pending: number;
  closed: boolean;
}

/**
 * The subscriptions of this instance by socket. A socket that closes while one of its
 * subscriptions is being planned stays known (closed) until that plan is settled, so the
 * late subscription is dropped rather than kept for a socket that is gone.
 */
export class Connections {
  readonly #connections = new Map<string, Connection>();

  get size(): number {
    return this.#connections.size;
  }

  get subscriptions(): number {
    let count = 0;
    for (const connection of this.#connections.values()) count += connection.subscriptions.size;
    return count;
  }

  count(connection: string): number {
    const found = this.#connections.get(connection);
    return (found?.subscriptions.size ?? 0) + (found?.pending ?? 0);
  }

  /** A start is being planned on `connection`; `settled` must follow. */
  opening(connection: string): string {
    let found = this.#connections.get(connection);
    if (found === undefined) this.#connections.set(connection, (found = { subscriptions: new Map(), pending: 0, closed: false }));
    found.pending++;
    return connection;
  }

  settled(connection: string): void {
    const found = this.#connections.get(connection);
    if (found === undefined) return;
    found.pending--;
    if (found.pending === 0 && (found.closed || found.subscriptions.size === 0)) this.#connections.delete(connection);
  }

  /** Adds a planned subscription; false when its socket closed meanwhile. */
  add(connection: string, subscription: Subscription): boolean {
    const found = this.#connections.get(connection);
    if (found === undefined || found.closed) return false;
    found.subscriptions.set(subscription.id, subscription);
    return true;
  }

  find(connection: string, id: string): Subscription | undefined {
    return this.#connections.get(connection)?.subscriptions.get(id);
  }

  remove(subscription: Subscription): void {
    const found = this.#connections.get(subscription.connection);
    if (found?.subscriptions.get(subscription.id) !== subscription) return;
    found.subscriptions.delete(subscription.id);
    if (found.subscriptions.size === 0 && found.pending === 0) this.#connections.delete(subscription.connection);
  }

  /** The socket closed: its subscriptions, which end. */
  close(connection: string): Subscription[] {
    const found = this.#connections.get(connection);
    if (found === undefined) return [];
    const ended = [...found.subscriptions.values()];
    found.subscriptions.clear();
    found.closed = true;
    if (found.pending === 0) this.#connections.delete(connection);
    return ended;
  }

  all(): Subscription[] {
    return [...this.#connections.values()].flatMap((connection) => [...connection.subscriptions.values()]);
  }
}

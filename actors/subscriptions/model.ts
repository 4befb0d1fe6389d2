import type { Session } from '../../src/session/session.js';

/**
 * The subscriptions of one instance (Hasura's multiplexing): a subscription belongs to a
 * cohort, the subscribers whose statement and values are the same and so share one
 * result; cohorts with the same statement belong to a poller, which fetches up to
 * `batch_size` of them with one SQL statement. A stream's cohort is its one subscriber,
 * since each keeps its own cursor.
 */
export interface Subscription {
  readonly connection: string;
  readonly id: string;
  readonly session: Session;
  readonly query: string;
  readonly variables: Record<string, unknown> | null;
  readonly operationName: string | null;
  cohort: Cohort | null;
  /** The payload last sent to this subscriber: it never gets the same one twice in a row. */
  lastSent: string | null;
}

export interface Cohort {
  /** Unique within the instance: the statement's rows name their cohort by it. */
  readonly id: string;
  /** Its key in its poller: the values' JSON (plus the subscription, for a stream). */
  readonly key: string;
  readonly poller: Poller;
  /** The statement's values, as PostgreSQL text; a stream's cursor is replaced as it advances. */
  values: (string | null)[];
  readonly subscribers: Set<Subscription>;
  /** The last result fetched; null before the first. */
  last: string | null;
}

export interface Poller {
  /** The cohort statement's text: pollers are shared by it. */
  readonly sql: string;
  /** The tables the change feed watches for it; null: polled. */
  readonly tables: readonly string[] | null;
  /** A stream's cursor: the index of its value. */
  readonly cursor: number | null;
  readonly cohorts: Map<string, Cohort>;
}

export type PollerMode = 'change-driven' | 'polling';

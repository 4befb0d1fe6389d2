import type { Session } from '../../session/session.js';

/**
 * The messages of subscriptions (schemas/bus/subscription-*.json, change-*.json): the edge
 * of an instance speaks the WebSocket protocols and hands each subscription to the
 * subscriptions actor of its own instance, which asks the schema actor for its plan,
 * fetches it for its cohorts and hands results back to that edge for the sockets.
 */

/** `<p>.graphql.subscription_plan`: one subscription operation of a session, to plan. */
export interface SubscriptionPlanRequest {
  session: Session;
  query: string;
  variables: Record<string, unknown> | null;
  operationName: string | null;
}

/**
 * How to fetch one subscription: `sql` is one cohort's statement, which reads its values
 * as `("_subs"."vars"->>i)` (i from 0) and answers `data` (and, for a stream, the next
 * `cursor`); `values` are this subscriber's, as PostgreSQL text. Subscribers with the same
 * statement share a poller, and with the same values a cohort. `tables` are what the
 * statement reads, null when the change feed cannot tell (functions, views): then it is
 * polled. Refusals are the GraphQL error body, `{"errors":[...]}`.
 */
export type SubscriptionPlanReply =
  | { ok: false; errors: string }
  | {
      ok: true;
      resource_version: number;
      sql: string;
      values: (string | null)[];
      tables: string[] | null;
      /** A stream's: the index of the cursor among `values`. */
      cursor: number | null;
    };

/** `<p>.subscriptions.<instance>.start`: a subscription opened on a socket of that instance's edge. */
export interface SubscriptionStart {
  connection: string;
  id: string;
  session: Session;
  query: string;
  variables: Record<string, unknown> | null;
  operationName: string | null;
}

/** Accepted (results follow as deliveries), or refused with the GraphQL error body. */
export type SubscriptionStartReply = { ok: true } | { ok: false; errors: string };

/** `<p>.subscriptions.<instance>.stop`: the client ended one subscription. */
export interface SubscriptionStop {
  connection: string;
  id: string;
}

/** `<p>.subscriptions.<instance>.close`: a socket closed; its subscriptions end. */
export interface ConnectionClosed {
  connection: string;
}

/**
 * `<p>.edge.<instance>.deliver`: one result for every subscription of `targets`
 * (connection, subscription id). `data`: `payload` is the execution result's JSON text,
 * `{"data":...}`, as PostgreSQL built it. `error`: `payload` is `{"errors":[...]}` and the
 * subscriptions end.
 */
export interface Delivery {
  kind: 'data' | 'error';
  targets: [string, string][];
  payload: string;
}

/**
 * `<p>.changes.tables`: the tables (relation keys) one committed transaction changed, in
 * commit order; `tables` empty is the reader's heartbeat. `epoch` names one run of the
 * reader; `seq` counts its notices, so that a gap (a lost notice) is seen.
 */
export interface ChangeNotice {
  epoch: string;
  seq: number;
  lsn: string;
  tables: string[];
}

/** `<p>.changes.wanted`: an instance holds subscriptions that follow the change feed. */
export interface ChangeFeedWanted {
  instance: string;
}

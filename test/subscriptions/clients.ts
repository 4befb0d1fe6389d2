import { createClient, type Client } from 'graphql-ws';
import SubscriptionsTransportWs from 'subscriptions-transport-ws';
import WebSocket from 'ws';

const { SubscriptionClient } = SubscriptionsTransportWs;

/** A GraphQL result as a client receives it. */
export interface Received {
  data?: unknown;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** What a subscription saw: its results in order, and how it ended. */
export interface Watch {
  results: Received[];
  error: unknown;
  completed: boolean;
  /** Resolves with the results once `count` have arrived (or the subscription ended). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  stop(): void;
}

function watch(start: (sink: { next(value: Received): void; error(error: unknown): void; complete(): void }) => () => void): Watch {
  const results: Received[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((waiter) => waiter());
  const state: Watch = {
    results,
    error: undefined,
    completed: false,
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`waited ${timeoutMs} ms for ${count} results, got ${JSON.stringify(results)}; error ${String(state.error)}`)), timeoutMs);
        const check = () => {
          if (results.length >= count || state.completed || state.error !== undefined) {
            clearTimeout(timer);
            resolve(results);
          } else waiters.push(check);
        };
        check();
      });
    },
    stop: () => undefined,
  };
  state.stop = start({
    next: (value) => {
      results.push(value);
      wake();
    },
    error: (error) => {
      state.error = error;
      wake();
    },
    complete: () => {
      state.completed = true;
      wake();
    },
  });
  return state;
}

/** A client of the graphql-ws library (subprotocol graphql-transport-ws). */
export function modernClient(url: string, headers: Record<string, string>): { client: Client; subscribe(query: string, variables?: Record<string, unknown>): Watch; close(): Promise<void> } {
  const client = createClient({ url: url.replace(/^http/, 'ws') + '/v1/graphql', webSocketImpl: WebSocket, connectionParams: { headers }, retryAttempts: 0, lazy: true });
  return {
    client,
    subscribe: (query, variables) => watch((sink) => client.subscribe({ query, ...(variables === undefined ? {} : { variables }) }, sink as never)),
    close: () => client.dispose() as Promise<void>,
  };
}

/** A client of subscriptions-transport-ws (subprotocol graphql-ws, Apollo's legacy protocol). */
export function legacyClient(url: string, headers: Record<string, string>): { subscribe(query: string, variables?: Record<string, unknown>): Watch; close(): void; connected: Promise<unknown> } {
  let connected!: (error: unknown) => void;
  const ready = new Promise<unknown>((resolve) => (connected = resolve));
  const client = new SubscriptionClient(url.replace(/^http/, 'ws') + '/v1/graphql', { reconnect: false, connectionParams: { headers }, connectionCallback: (error: unknown) => connected(error ?? null) }, WebSocket);
  return {
    connected: ready,
    subscribe: (query, variables) =>
      watch((sink) => {
        const subscription = client.request({ query, ...(variables === undefined ? {} : { variables }) }).subscribe(sink as never);
        return () => subscription.unsubscribe();
      }),
    close: () => client.close(),
  };
}

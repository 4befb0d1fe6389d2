import { Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { Bus } from '../../bus/bus.js';
import type { SubscriptionStart, SubscriptionStartReply } from '../../bus/messages/subscriptions.js';
import { SUBSCRIPTIONS_VERBS } from '../../bus/subjects.js';
import { decodeText } from '../../bus/wire.js';
import { graphqlErrorBody } from '../../errors/bodies.js';
import { cancelRequest } from '../cancel-on-close.js';
import { documentTextTooDeep, MAX_DOCUMENT_DEPTH } from '../../graphql/nesting.js';
import { jsonValueTooDeep, MAX_JSON_DEPTH } from '../../json/nesting.js';
import { errors } from '../../errors/errors.js';
import { ServiceError } from '../../errors/service-error.js';
import type { Logger } from '../../log/logger.js';
import type { Session } from '../../session/session.js';

/** A subscription's `payload`: a GraphQL request. */
export interface OperationPayload {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** Where the results of one operation of the socket go, in its protocol's frames. */
export interface ResultSink {
  /** One result: the execution result's JSON text, `{"data":...}`. */
  data(result: string): void;
  /** The subscription ends with this execution result, `{"data":null,"errors":[...]}`. */
  end(result: string): void;
}

export type StartOutcome =
  /** Results follow as deliveries, to the sink. */
  | { kind: 'subscribed' }
  /** A query or mutation: its one result. */
  | { kind: 'answered'; result: string }
  /** Refused before execution: the GraphQL errors, as JSON text of the array. */
  | { kind: 'refused'; errors: string };

export interface SocketSessionDeps {
  bus: Bus;
  instance: string;
  connection: string;
  /** The upgrade request's headers (lower-case names). */
  handshakeHeaders: Record<string, string>;
  /** The client's socket address, for rate limits by IP. */
  clientAddress: string;
  timeoutMs: number;
  log: Logger;
}

/**
 * What both WebSocket protocols share for one socket (the edge only translates: the
 * auth actor decides the session, the schema actor answers queries and mutations, the
 * subscriptions actor of this instance holds the subscriptions): the session from
 * `connection_init`'s `payload.headers` over the upgrade's headers (Hasura's order), each
 * operation routed by its type, and the deliveries for the socket's subscriptions.
 */
export class SocketSession {
  session: Session | null = null;
  #headers: Record<string, string>;
  readonly #deps: SocketSessionDeps;
  readonly #sinks = new Map<string, ResultSink>();
  /** The queries and mutations being answered: operation id -> cancel key, to cancel them when the client stops waiting. */
  readonly #asked = new Map<string, string>();
  #closed = false;
  #initialised: ((session: Session) => void) | null = null;

  constructor(deps: SocketSessionDeps) {
    this.#deps = deps;
    this.#headers = deps.handshakeHeaders;
  }

  get connection(): string {
    return this.#deps.connection;
  }

  /** Resolves the session from the init payload's headers; throws the auth actor's ServiceError. */
  async init(payload: unknown): Promise<Session> {
    if (jsonValueTooDeep(payload)) throw errors.jsonTooDeep('$', MAX_JSON_DEPTH);
    const given = typeof payload === 'object' && payload !== null ? (payload as { headers?: unknown }).headers : undefined;
    const headers: Record<string, string> = { ...this.#deps.handshakeHeaders };
    if (typeof given === 'object' && given !== null && !Array.isArray(given)) {
      for (const [name, value] of Object.entries(given)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
    }
    const { bus } = this.#deps;
    this.session = await bus.request<Session>(bus.subjects.authResolve, { headers }, { requestId: Bus.newRequestId(), timeoutMs: this.#deps.timeoutMs });
    this.#headers = headers;
    this.#initialised?.(this.session);
    return this.session;
  }

  /** Calls `listener` with the session each time `connection_init` succeeds. */
  whenInitialised(listener: (session: Session) => void): void {
    this.#initialised = listener;
  }

  /** Whether an operation of this id is running (a subscription, or one being started). */
  has(id: string): boolean {
    return this.#sinks.has(id);
  }

  get operations(): string[] {
    return [...this.#sinks.keys()];
  }

  /** Starts an operation: a query or mutation is answered once, a subscription goes to the subscriptions actor. */
  async start(id: string, payload: OperationPayload, sink: ResultSink): Promise<StartOutcome> {
    const session = this.session;
    if (session === null) return refused(errors.validationFailed('$', 'start received before the connection is initialised'));
    // The payload travels on as JSON: JSON.stringify of a value thousands deep would throw.
    if (jsonValueTooDeep(payload)) return refused(errors.jsonTooDeep('$', MAX_JSON_DEPTH));
    const operation = operationOf(payload);
    if (operation instanceof ServiceError) return refused(operation);
    const { bus } = this.#deps;
    const options = { requestId: Bus.newRequestId(), timeoutMs: this.#deps.timeoutMs };
    if (operation !== 'subscription') {
      const body = JSON.stringify({ query: payload.query, variables: payload.variables ?? null, operationName: payload.operationName ?? null });
      const cancelKey = Bus.newRequestId();
      this.#asked.set(id, cancelKey);
      try {
        const reply = await bus.ask(bus.subjects.graphql, { headers: this.#headers, body, client_address: this.#deps.clientAddress, cancel_key: cancelKey }, options);
        return { kind: 'answered', result: decodeText(reply.body) };
      } catch (error) {
        cancelRequest(bus, cancelKey);
        throw error;
      } finally {
        this.#asked.delete(id);
      }
    }
    this.#sinks.set(id, sink);
    const message: SubscriptionStart = { connection: this.connection, id, session, query: payload.query, variables: payload.variables ?? null, operationName: payload.operationName ?? null };
    let reply: SubscriptionStartReply;
    try {
      reply = await bus.request<SubscriptionStartReply>(bus.subjects.subscriptions(this.#deps.instance, SUBSCRIPTIONS_VERBS.start), message, options);
    } catch (error) {
      this.#sinks.delete(id);
      if (error instanceof ServiceError) return refused(error);
      throw error;
    }
    if (reply.ok) return { kind: 'subscribed' };
    this.#sinks.delete(id);
    return { kind: 'refused', errors: errorsArray(reply.errors) };
  }

  /** The client ended an operation. */
  stop(id: string): void {
    const asked = this.#asked.get(id);
    if (asked !== undefined) cancelRequest(this.#deps.bus, asked);
    if (!this.#sinks.delete(id)) return;
    const { bus } = this.#deps;
    bus.ask(bus.subjects.subscriptions(this.#deps.instance, SUBSCRIPTIONS_VERBS.stop), { connection: this.connection, id }, { requestId: Bus.newRequestId(), timeoutMs: this.#deps.timeoutMs }).catch((error: unknown) => {
      this.#deps.log.warn({ err: error }, 'a subscription stop did not reach the subscriptions actor');
    });
  }

  /** A result for subscription `id` of this socket; a final one ends it. */
  deliver(id: string, kind: 'data' | 'error', payload: string): void {
    const sink = this.#sinks.get(id);
    if (sink === undefined) return;
    if (kind === 'data') return sink.data(payload);
    this.#sinks.delete(id);
    // The subscriptions actor's `{"errors":[...]}` as an execution result.
    sink.end(`{"data":null,${payload.slice(1)}`);
  }

  /** The socket closed: its subscriptions end. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sinks.clear();
    for (const cancelKey of this.#asked.values()) cancelRequest(this.#deps.bus, cancelKey);
    const { bus } = this.#deps;
    bus.ask(bus.subjects.subscriptions(this.#deps.instance, SUBSCRIPTIONS_VERBS.close), { connection: this.connection }, { requestId: Bus.newRequestId(), timeoutMs: this.#deps.timeoutMs }).catch((error: unknown) => {
      this.#deps.log.warn({ err: error }, 'a socket close did not reach the subscriptions actor');
    });
  }
}

function refused(error: ServiceError): StartOutcome {
  return { kind: 'refused', errors: errorsArray(decodeText(graphqlErrorBody([error]))) };
}

/** The array of a `{"errors":[...]}` body, as JSON text. */
function errorsArray(body: string): string {
  return JSON.stringify((JSON.parse(body) as { errors: unknown[] }).errors);
}

/** The type of the operation the payload asks to run, or why it cannot be read (the schema actor validates the rest). */
function operationOf(payload: OperationPayload): OperationDefinitionNode['operation'] | ServiceError {
  if (typeof payload?.query !== 'string') return errors.parseFailed('$', 'key "query" not found');
  if (documentTextTooDeep(payload.query)) return errors.documentTooDeep('$.query', 'brackets', MAX_DOCUMENT_DEPTH);
  let document: DocumentNode;
  try {
    document = parse(payload.query);
  } catch {
    return errors.invalidGraphqlQuery('$.query');
  }
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const name = payload.operationName ?? null;
  const operation = name === null ? (operations.length === 1 ? operations[0] : undefined) : operations.find((candidate) => candidate.name?.value === name);
  if (operation !== undefined) return operation.operation;
  return name === null ? errors.operationNameRequired('$') : errors.noSuchOperation('$', name);
}

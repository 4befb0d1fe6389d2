import { nuid, type Msg, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { errors } from '../errors/errors.js';
import { ServiceError } from '../errors/service-error.js';
import { extractTrace, natsHeaderGetter } from '../tracing/propagation.js';
import { SpanKind, closeSpan, openSpan, type TraceContext } from '../tracing/tracer.js';
import type { Reply } from './requester.js';
import { HEADER, HEADER_ROOM_BYTES, chunksOf, decodeJson, encodeJson, frozen, headersWith, maxPayloadOf } from './wire.js';

/** A request as a handler sees it: its id (for logs), its payload and a JSON view of it. */
export interface IncomingRequest {
  readonly subject: string;
  readonly requestId: string;
  readonly data: Uint8Array;
  /** The handler's span, parent of what it asks and runs; undefined when the request is not traced. */
  readonly trace?: TraceContext | undefined;
  json<T>(): T;
}

/**
 * A reply given as a JSON value: encoded only when it crosses NATS. A requester of the
 * same process gets the value itself, frozen (wire.ts `frozen`).
 */
export class JsonReply {
  constructor(readonly value: unknown) {}
}

/**
 * What a request handler answers: bytes, sent as they are (chunked when too large),
 * optionally with a few facts about them for the requester's logs (the role, say); or a
 * JSON value.
 */
export type HandlerReply = Uint8Array | { body: Uint8Array; meta: Record<string, string> } | JsonReply;
export type RequestHandler = (request: IncomingRequest) => Promise<HandlerReply>;
export type DoneCallback = (ms: number, failed: boolean) => void;

/** Something served or listened to, that can be stopped. */
export interface Served {
  unsubscribe(): void;
}

/**
 * Runs request handlers: for messages from NATS (replying on the message's reply subject,
 * in chunks when the reply is larger than max_payload) and for requests of this very
 * process (returning the reply directly). A handler that throws answers with an error
 * and stays in service.
 */
export class Responder {
  readonly #nc: NatsConnection;
  readonly #log: Logger;

  constructor(nc: NatsConnection, log: Logger) {
    this.#nc = nc;
    this.#log = log;
  }

  /** Answers a NATS message; never throws. */
  async answerMessage(msg: Msg, handler: RequestHandler, onDone?: DoneCallback): Promise<void> {
    const requestId = msg.headers?.get(HEADER.requestId) || nuid.next();
    const outcome = await this.#run(new NatsRequest(msg.subject, requestId, msg.data), handler, onDone, false, extractTrace(msg.headers, natsHeaderGetter));
    if (msg.reply === undefined) return;
    if (outcome instanceof ServiceError) {
      this.#nc.publish(msg.reply, encodeJson(outcome.toJSON()), { headers: headersWith({ [HEADER.error]: '1' }) });
      return;
    }
    this.#publishReply(msg.reply, outcome.body, outcome.meta);
  }

  /**
   * Answers a request of this process without a round trip through the server. The
   * message object is handed over frozen, as the reply value is: encoded only if the
   * handler asks for bytes, and never changed by either side. A failure rejects with the
   * error a requester over NATS would get.
   */
  answerLocally(subject: string, requestId: string, message: unknown, handler: RequestHandler, onDone?: DoneCallback, trace?: TraceContext): Promise<Reply> {
    return this.#run(localIncoming(subject, requestId, message), handler, onDone, true, trace) as Promise<Reply>;
  }

  /**
   * Runs a handler and turns what it answers into a reply, and what it throws into the
   * ServiceError its requester gets: returned for a NATS requester, thrown for a local one.
   * A reaction on the handler's promise rather than an async function awaiting it: each
   * local request passes here twice (the edge's, the auth actor's).
   */
  #run(request: NatsRequest | LocalRequest, handler: RequestHandler, onDone: DoneCallback | undefined, local: boolean, parent: TraceContext | undefined): Promise<Reply | ServiceError> {
    const started = performance.now();
    // Only requests that arrive traced are: the caller decided whether this work belongs to a trace.
    const span = parent === undefined ? undefined : openSpan(`handle ${request.subject}`, parent, { kind: SpanKind.SERVER, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': request.subject, 'service.bus.local': local } });
    request.trace = span?.context;
    // The requester's error: returned to a NATS requester, thrown at a local one.
    const failed = (error: unknown): ServiceError => {
      closeSpan(span, error);
      onDone?.(performance.now() - started, true);
      const failure = error instanceof ServiceError ? error : this.#unexpected(error, request);
      if (local) throw failure;
      return failure;
    };
    let replied: Promise<HandlerReply>;
    try {
      replied = handler(request);
    } catch (error) {
      replied = Promise.reject(error);
    }
    return replied.then(
      (reply) => {
        let outcome: Reply;
        try {
          outcome = reply instanceof Uint8Array ? { body: reply, meta: {} } : reply instanceof JsonReply ? (local ? new LocalValueReply(frozen(reply.value)) : { body: encodeJson(reply.value), meta: {} }) : reply;
        } catch (error) {
          return failed(error);
        }
        closeSpan(span);
        onDone?.(performance.now() - started, false);
        return outcome;
      },
      failed,
    );
  }

  /** A handler's own failure, not one a requester caused: logged here, told to the requester as `unexpected`. */
  #unexpected(error: unknown, request: IncomingRequest): ServiceError {
    this.#log.error({ err: error, subject: request.subject, requestId: request.requestId }, 'request handler failed');
    return errors.unexpected('$');
  }

  #publishReply(reply: string, body: Uint8Array, meta: Record<string, string>): void {
    const metaHeaders = Object.fromEntries(Object.entries(meta).map(([key, value]) => [`${HEADER.metaPrefix}${key}`, value]));
    const room = maxPayloadOf(this.#nc) - HEADER_ROOM_BYTES;
    if (body.length <= room) {
      this.#nc.publish(reply, body, Object.keys(metaHeaders).length > 0 ? { headers: headersWith(metaHeaders) } : undefined);
      return;
    }
    const pieces = chunksOf(body, room);
    pieces.forEach((piece, index) => {
      const h = headersWith(index === 0 ? { ...metaHeaders, [HEADER.chunks]: String(pieces.length) } : {});
      h.set(HEADER.chunk, String(index));
      this.#nc.publish(reply, piece, { headers: h });
    });
  }
}

// Classes rather than object literals with getters and arrow functions: these are made for
// every request, and a literal's accessors and closures are allocated anew each time.

/** A value handed over in-process, its bytes made only if somebody asks for them. */
class LocalValueReply implements Reply {
  readonly meta: Record<string, string> = {};
  #body: Uint8Array | undefined;

  constructor(readonly value: unknown) {}

  get body(): Uint8Array {
    return (this.#body ??= encodeJson(this.value));
  }
}

/** A request as bytes: from NATS, or a byte request of this process. */
class NatsRequest implements IncomingRequest {
  trace: TraceContext | undefined;

  constructor(
    readonly subject: string,
    readonly requestId: string,
    readonly data: Uint8Array,
  ) {}

  json<T>(): T {
    return decodeJson<T>(this.data);
  }
}

/** A local request: the message is a value, encoded only if the handler asks for bytes. */
class LocalRequest implements IncomingRequest {
  #data: Uint8Array | undefined;
  trace: TraceContext | undefined;

  constructor(
    readonly subject: string,
    readonly requestId: string,
    readonly message: unknown,
  ) {}

  get data(): Uint8Array {
    return (this.#data ??= encodeJson(this.message));
  }

  json<T>(): T {
    return this.message as T;
  }
}

/** A local request: the message is a value (or already bytes, for byte requests). */
function localIncoming(subject: string, requestId: string, message: unknown): NatsRequest | LocalRequest {
  if (message instanceof Uint8Array) return new NatsRequest(subject, requestId, message);
  return new LocalRequest(subject, requestId, frozen(message));
}

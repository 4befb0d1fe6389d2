import { connect, nuid, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { errors } from '../errors/errors.js';
import { ServiceError } from '../errors/service-error.js';
import { Requester, type Reply } from './requester.js';
import { subjectsFor, type Subjects } from './subjects.js';
import { HEADER, HEADER_ROOM_BYTES, chunksOf, decodeJson, encodeJson, headersWith } from './wire.js';

/** A request as a handler sees it: its id (for logs), its payload and a JSON view of it. */
export interface IncomingRequest {
  readonly subject: string;
  readonly requestId: string;
  readonly data: Uint8Array;
  json<T>(): T;
}

/**
 * What a request handler answers: bytes, sent as they are (chunked when too large),
 * optionally with a few facts about them for the requester's logs (the role, say).
 */
export type HandlerReply = Uint8Array | { body: Uint8Array; meta: Record<string, string> };
export type RequestHandler = (request: IncomingRequest) => Promise<HandlerReply>;

export interface BusOptions {
  servers: string;
  prefix: string;
  name: string;
  log: Logger;
}

/**
 * The process's one NATS connection and everything the engine does with it: requests
 * with reassembled chunked replies, queue-group serving with error replies, broadcasts.
 * The connection reconnects forever after a NATS restart; subscriptions survive that.
 */
export class Bus {
  readonly subjects: Subjects;
  readonly #nc: NatsConnection;
  readonly #requester: Requester;
  readonly #log: Logger;

  private constructor(nc: NatsConnection, prefix: string, log: Logger) {
    this.#nc = nc;
    this.subjects = subjectsFor(prefix);
    this.#requester = new Requester(nc);
    this.#log = log;
  }

  static async connect(options: BusOptions): Promise<Bus> {
    const nc = await connect({
      servers: options.servers.split(',').map((server) => server.trim()),
      name: options.name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    });
    const bus = new Bus(nc, options.prefix, options.log);
    bus.#watchStatus();
    return bus;
  }

  get connection(): NatsConnection {
    return this.#nc;
  }

  /** The largest message the server accepts, from its INFO. */
  get maxPayload(): number {
    return this.#nc.info?.max_payload ?? 1024 * 1024;
  }

  static newRequestId(): string {
    return nuid.next();
  }

  async request<T>(subject: string, message: unknown, options: { requestId: string; timeoutMs: number }): Promise<T> {
    const reply = await this.requestBytes(subject, encodeJson(message), options);
    return decodeJson<T>(reply.body);
  }

  requestBytes(subject: string, payload: Uint8Array, options: { requestId: string; timeoutMs: number }): Promise<Reply> {
    return this.#requester.request(subject, payload, options);
  }

  /** Asks every instance listening on `subject` and returns what arrived within the window. */
  async gather<T>(subject: string, message: unknown, windowMs: number): Promise<T[]> {
    const replies = await this.#requester.gather(subject, encodeJson(message), windowMs);
    return replies.map((bytes) => decodeJson<T>(bytes));
  }

  /**
   * Serves requests on `subject`. With a queue group each request reaches one instance;
   * without, every instance answers (monitor ping). A handler that throws answers with
   * an error reply and the subscription keeps serving.
   */
  serve(subject: string, handler: RequestHandler, options: { queue?: string; onDone?: (ms: number, failed: boolean) => void } = {}): Subscription {
    return this.#nc.subscribe(subject, {
      ...(options.queue === undefined ? {} : { queue: options.queue }),
      callback: (error, msg) => {
        if (error !== null) {
          this.#log.error({ err: error, subject }, 'subscription error');
          return;
        }
        void this.#answer(msg, handler, options.onDone);
      },
    });
  }

  publish(subject: string, message: unknown): void {
    this.#nc.publish(subject, encodeJson(message));
  }

  /** Receives broadcasts on `subject` (every instance gets each message). */
  listen<T>(subject: string, handler: (message: T, subject: string) => void | Promise<void>): Subscription {
    return this.#nc.subscribe(subject, {
      callback: (error, msg) => {
        if (error !== null) return;
        let message: T;
        try {
          message = decodeJson<T>(msg.data);
        } catch (parseError) {
          this.#log.warn({ err: parseError, subject: msg.subject }, 'ignored a broadcast that is not JSON');
          return;
        }
        Promise.resolve(handler(message, msg.subject)).catch((handlerError: unknown) =>
          this.#log.error({ err: handlerError, subject: msg.subject }, 'broadcast handler failed'),
        );
      },
    });
  }

  /** Waits until everything published so far has reached the server. */
  flush(): Promise<void> {
    return this.#nc.flush();
  }

  async close(): Promise<void> {
    this.#requester.close();
    if (!this.#nc.isClosed()) await this.#nc.drain().catch(() => this.#nc.close());
  }

  closed(): Promise<void | Error> {
    return this.#nc.closed();
  }

  async #answer(msg: Msg, handler: RequestHandler, onDone?: (ms: number, failed: boolean) => void): Promise<void> {
    const started = performance.now();
    const requestId = msg.headers?.get(HEADER.requestId) || nuid.next();
    const request: IncomingRequest = {
      subject: msg.subject,
      requestId,
      data: msg.data,
      json: <T>() => decodeJson<T>(msg.data),
    };
    let failed = false;
    try {
      const reply = await handler(request);
      if (reply instanceof Uint8Array) this.#reply(msg, reply, {});
      else this.#reply(msg, reply.body, reply.meta);
    } catch (error) {
      failed = true;
      const serviceError = error instanceof ServiceError ? error : errors.unexpected('$');
      if (!(error instanceof ServiceError)) this.#log.error({ err: error, subject: msg.subject, requestId }, 'request handler failed');
      this.#replyError(msg, serviceError);
    } finally {
      onDone?.(performance.now() - started, failed);
    }
  }

  #reply(msg: Msg, body: Uint8Array, meta: Record<string, string>): void {
    if (msg.reply === undefined) return;
    const metaHeaders = Object.fromEntries(Object.entries(meta).map(([key, value]) => [`${HEADER.metaPrefix}${key}`, value]));
    const room = this.maxPayload - HEADER_ROOM_BYTES;
    if (body.length <= room) {
      this.#nc.publish(msg.reply, body, Object.keys(metaHeaders).length > 0 ? { headers: headersWith(metaHeaders) } : undefined);
      return;
    }
    const pieces = chunksOf(body, room);
    pieces.forEach((piece, index) => {
      const h = headersWith(index === 0 ? { ...metaHeaders, [HEADER.chunks]: String(pieces.length) } : {});
      h.set(HEADER.chunk, String(index));
      this.#nc.publish(msg.reply!, piece, { headers: h });
    });
  }

  #replyError(msg: Msg, error: ServiceError): void {
    if (msg.reply === undefined) return;
    this.#nc.publish(msg.reply, encodeJson(error.toJSON()), { headers: headersWith({ [HEADER.error]: '1' }) });
  }

  #watchStatus(): void {
    void (async () => {
      for await (const status of this.#nc.status()) {
        if (status.type === 'disconnect') this.#log.warn({ server: status.server }, 'NATS connection lost; reconnecting');
        else if (status.type === 'reconnect') this.#log.info({ server: status.server }, 'NATS connection restored');
        else if (status.type === 'error') this.#log.error({ err: status.error }, 'NATS error');
      }
    })();
  }
}

import { connect, nuid, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { errors } from '../errors/errors.js';
import { Requester, type Reply } from './requester.js';
import { Responder, type DoneCallback, type RequestHandler, type Served } from './responder.js';
import { subjectsFor, type Subjects } from './subjects.js';
import { SpanKind, closeSpan, openSpan, type TraceContext } from '../tracing/tracer.js';
import { decodeJson, encodeJson, maxPayloadOf } from './wire.js';

export { JsonReply, type HandlerReply, type IncomingRequest, type RequestHandler, type Served } from './responder.js';

export interface BusOptions {
  servers: string;
  prefix: string;
  name: string;
  log: Logger;
  /**
   * Whether a request for a subject this process serves itself is answered in-process
   * (the same handler, the same bytes) instead of through the NATS server.
   */
  localDelivery?: boolean;
}

export interface AskOptions {
  requestId: string;
  timeoutMs: number;
  /** The trace the request belongs to: the hop gets a span and the handler continues the trace. */
  trace?: TraceContext | undefined;
}

interface LocalServer {
  handler: RequestHandler;
  onDone?: DoneCallback;
}

/**
 * The process's one NATS connection and everything the engine does with it: requests
 * with reassembled chunked replies, queue-group serving with error replies, broadcasts.
 * The connection reconnects forever after a NATS restart; subscriptions survive that.
 *
 * Local delivery: when this process runs an actor that serves a request subject, its
 * requests on that subject skip the two hops through the NATS server. Each process then
 * answers its own HTTP requests end to end, and NATS still carries every request for an
 * actor the process does not run, every broadcast and all monitoring.
 */
export class Bus {
  readonly subjects: Subjects;
  readonly #nc: NatsConnection;
  readonly #requester: Requester;
  readonly #responder: Responder;
  readonly #log: Logger;
  readonly #localDelivery: boolean;
  readonly #local = new Map<string, LocalServer[]>();
  #nextLocal = 0;

  private constructor(nc: NatsConnection, options: BusOptions) {
    this.#nc = nc;
    this.subjects = subjectsFor(options.prefix);
    this.#requester = new Requester(nc);
    this.#responder = new Responder(nc, options.log);
    this.#log = options.log;
    this.#localDelivery = options.localDelivery ?? false;
  }

  static async connect(options: BusOptions): Promise<Bus> {
    const nc = await connect({
      servers: options.servers.split(',').map((server) => server.trim()),
      name: options.name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    });
    const bus = new Bus(nc, options);
    bus.#watchStatus();
    return bus;
  }

  get connection(): NatsConnection {
    return this.#nc;
  }

  /** The largest message the server accepts, from its INFO. */
  get maxPayload(): number {
    return maxPayloadOf(this.#nc);
  }

  static newRequestId(): string {
    return nuid.next();
  }

  /** Sends a JSON message and decodes the JSON reply (or takes the value a local handler replied). */
  async request<T>(subject: string, message: unknown, options: AskOptions): Promise<T> {
    const reply = await this.ask(subject, message, options);
    return ('value' in reply ? reply.value : decodeJson<T>(reply.body)) as T;
  }

  /**
   * Sends a message (a value, or bytes as they are) and returns the reply's bytes. A value
   * is encoded as JSON only when it has to cross NATS.
   */
  ask(subject: string, message: unknown, options: AskOptions): Promise<Reply> {
    if (options.trace === undefined) return this.#ask(subject, message, options);
    // A traced request: one client span for the hop, its context sent on as `traceparent`.
    const hop = openSpan(`bus ${subject}`, options.trace, { kind: SpanKind.CLIENT, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject } });
    const asked = this.#ask(subject, message, { ...options, trace: hop?.context });
    asked.then(() => closeSpan(hop), (error: unknown) => closeSpan(hop, error));
    return asked;
  }

  #ask(subject: string, message: unknown, options: AskOptions): Promise<Reply> {
    const servers = this.#localDelivery ? this.#local.get(subject) : undefined;
    if (servers !== undefined && servers.length > 0) {
      const server = servers[this.#nextLocal++ % servers.length]!;
      return withinTimeout(this.#responder.answerLocally(subject, options.requestId, message, server.handler, server.onDone, options.trace), subject, options.timeoutMs);
    }
    const payload = message instanceof Uint8Array ? message : encodeJson(message);
    return this.#requester.request(subject, payload, options);
  }

  /** Asks every instance listening on `subject` and returns what arrived within the window. */
  async gather<T>(subject: string, message: unknown, windowMs: number): Promise<T[]> {
    const replies = await this.#requester.gather(subject, encodeJson(message), windowMs);
    return replies.map((bytes) => decodeJson<T>(bytes));
  }

  /**
   * Serves requests on `subject`. With a queue group each request reaches one instance
   * (and requests of this process may be answered locally); without, every instance
   * answers (monitor ping).
   */
  serve(subject: string, handler: RequestHandler, options: { queue?: string; onDone?: DoneCallback } = {}): Served {
    const subscription = this.#nc.subscribe(subject, {
      ...(options.queue === undefined ? {} : { queue: options.queue }),
      callback: (error, msg) => {
        if (error !== null) {
          this.#log.error({ err: error, subject }, 'subscription error');
          return;
        }
        void this.#responder.answerMessage(msg, handler, options.onDone);
      },
    });
    if (options.queue === undefined) return subscription;
    const local: LocalServer = options.onDone === undefined ? { handler } : { handler, onDone: options.onDone };
    this.#local.set(subject, [...(this.#local.get(subject) ?? []), local]);
    return {
      unsubscribe: () => {
        subscription.unsubscribe();
        this.#local.set(subject, (this.#local.get(subject) ?? []).filter((candidate) => candidate !== local));
      },
    };
  }

  publish(subject: string, message: unknown): void {
    this.#nc.publish(subject, encodeJson(message));
  }

  /** Receives broadcasts on `subject` (every instance gets each message). */
  listen<T>(subject: string, handler: (message: T, subject: string) => void | Promise<void>): Served {
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
        // Through a promise even when the handler throws at once: a throw here would stop the connection's reader.
        Promise.resolve()
          .then(() => handler(message, msg.subject))
          .catch((handlerError: unknown) => this.#log.error({ err: handlerError, subject: msg.subject }, 'broadcast handler failed'));
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

/**
 * A local answer is bound by the same timeout as one over NATS: the caller is told at
 * the same moment either way (the handler, left running, is the actor's to stop).
 */
function withinTimeout(answer: Promise<Reply>, subject: string, timeoutMs: number): Promise<Reply> {
  // One promise settled by whichever comes first, rather than a race of two and a finally: this runs for every local request.
  return new Promise<Reply>((resolve, reject) => {
    const timer = setTimeout(() => reject(errors.busTimeout('$', subject, timeoutMs)), timeoutMs);
    answer.then(
      (reply) => {
        clearTimeout(timer);
        resolve(reply);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

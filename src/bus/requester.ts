import { createInbox, nuid, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { errors } from '../errors/errors.js';
import { ServiceError, type ServiceErrorJson } from '../errors/service-error.js';
import { injectTrace } from '../tracing/propagation.js';
import type { TraceContext } from '../tracing/tracer.js';
import { HEADER, concatChunks, decodeJson, headersWith } from './wire.js';

/** A successful reply: the responder's bytes, reassembled if they came in chunks. */
export interface Reply {
  body: Uint8Array;
  meta: Record<string, string>;
  /** The reply as a value, when a handler of this process gave one (responder.ts JsonReply). */
  value?: unknown;
}

interface PendingReply {
  subject: string;
  meta: Record<string, string>;
  pieces: Uint8Array[];
  expected: number;
  received: number;
  timer: NodeJS.Timeout;
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

interface PendingGather {
  replies: Uint8Array[];
}

/**
 * Request/reply over one wildcard inbox subscription per connection (as nats.js's own
 * request mux does), extended with chunked replies: a result larger than the server's
 * max_payload arrives as numbered messages and is reassembled here, never truncated.
 */
export class Requester {
  readonly #nc: NatsConnection;
  readonly #prefix = createInbox();
  readonly #pending = new Map<string, PendingReply>();
  readonly #gathers = new Map<string, PendingGather>();
  readonly #subscription: Subscription;

  constructor(nc: NatsConnection) {
    this.#nc = nc;
    this.#subscription = nc.subscribe(`${this.#prefix}.*`, {
      callback: (error, msg) => {
        if (error === null) this.#onReply(msg);
      },
    });
  }

  request(subject: string, payload: Uint8Array, options: { requestId: string; timeoutMs: number; trace?: TraceContext | undefined }): Promise<Reply> {
    const token = nuid.next();
    const headers: Record<string, string> = { [HEADER.requestId]: options.requestId };
    injectTrace(options.trace, headers);
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(token);
        reject(errors.busTimeout('$', subject, options.timeoutMs));
      }, options.timeoutMs);
      this.#pending.set(token, { subject, meta: {}, pieces: [], expected: 1, received: 0, timer, resolve, reject });
      try {
        this.#nc.publish(subject, payload, { reply: `${this.#prefix}.${token}`, headers: headersWith(headers) });
      } catch (error) {
        clearTimeout(timer);
        this.#pending.delete(token);
        reject(error);
      }
    });
  }

  /** Publishes once and collects every reply that arrives within `windowMs` (monitor ping). */
  async gather(subject: string, payload: Uint8Array, windowMs: number): Promise<Uint8Array[]> {
    const token = nuid.next();
    const pending: PendingGather = { replies: [] };
    this.#gathers.set(token, pending);
    this.#nc.publish(subject, payload, { reply: `${this.#prefix}.${token}` });
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    this.#gathers.delete(token);
    return pending.replies;
  }

  close(): void {
    this.#subscription.unsubscribe();
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(errors.noResponders('$', pending.subject));
    }
    this.#pending.clear();
  }

  #onReply(msg: Msg): void {
    const token = msg.subject.slice(this.#prefix.length + 1);
    const gather = this.#gathers.get(token);
    if (gather !== undefined) {
      if (!msg.headers?.hasError) gather.replies.push(msg.data);
      return;
    }
    const pending = this.#pending.get(token);
    if (pending === undefined) return;
    const h = msg.headers;
    // NATS answers 503 on the reply subject when no subscriber listens (no_responders).
    if (h?.hasError && h.code === 503) return this.#settle(token, pending, errors.noResponders('$', pending.subject));
    if (h?.has(HEADER.error)) return this.#settle(token, pending, ServiceError.fromJSON(decodeJson<ServiceErrorJson>(msg.data)));
    const chunk = h?.has(HEADER.chunk) ? Number(h.get(HEADER.chunk)) : 0;
    if (h?.has(HEADER.chunks)) pending.expected = Number(h.get(HEADER.chunks));
    for (const key of h?.keys() ?? []) {
      if (key.startsWith(HEADER.metaPrefix)) pending.meta[key.slice(HEADER.metaPrefix.length)] = h!.get(key);
    }
    pending.pieces[chunk] = msg.data;
    pending.received++;
    if (pending.received >= pending.expected) this.#settle(token, pending, { body: concatChunks(pending.pieces), meta: pending.meta });
  }

  #settle(token: string, pending: PendingReply, outcome: Reply | Error): void {
    clearTimeout(pending.timer);
    this.#pending.delete(token);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }
}

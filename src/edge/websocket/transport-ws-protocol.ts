import { buildSchema, GraphQLError, parse, type ExecutionArgs, type GraphQLFormattedError } from 'graphql';
import { makeServer, type ExecutionResult } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { Logger } from '../../log/logger.js';
import type { ResultSink, SocketSession } from './socket-session.js';
import { isRefusal, socketSender } from './socket-sender.js';

export interface TransportWsOptions {
  keepAliveMs: number;
  connectionInitTimeoutMs: number;
  maxBufferedBytes: number;
  log: Logger;
}

/**
 * The `graphql-transport-ws` protocol, spoken by the `graphql-ws` library's server
 * (makeServer): its close codes are the protocol's (4400 bad message, 4401 subscribe
 * before the ack, 4403 refused init, 4408 init timeout, 4409 duplicate id, 4429 second
 * init). Operations are not executed here: each goes to SocketSession, and results are
 * yielded as the text PostgreSQL built, spliced into the `next` frame by `send` rather
 * than parsed and encoded again (Node 20 has no JSON.rawJSON).
 */
export function speakTransportWs(socket: WebSocket, session: SocketSession, options: TransportWsOptions): void {
  const send = socketSender(socket, options.maxBufferedBytes);
  const raws = new Map<string, string>();
  const server = makeServer<Record<string, unknown> | undefined, undefined>({
    connectionInitWaitTimeout: options.connectionInitTimeoutMs,
    onConnect: async (ctx) => {
      try {
        await session.init(ctx.connectionParams);
        return true;
      } catch {
        return false;
      }
    },
    onSubscribe: async (_ctx, id, payload) => {
      const stream = new ResultStream();
      const outcome = await session.start(id, payload, stream);
      if (outcome.kind === 'refused') return graphqlErrors(outcome.errors);
      if (outcome.kind === 'answered') {
        if (isRefusal(outcome.result)) return graphqlErrors(JSON.stringify((JSON.parse(outcome.result) as { errors: unknown[] }).errors));
        stream.data(outcome.result);
        return { schema: PLACEHOLDER_SCHEMA, document: ONE_RESULT, contextValue: stream };
      }
      return { schema: PLACEHOLDER_SCHEMA, document: RESULTS, contextValue: stream };
    },
    execute: (args: ExecutionArgs) => (args.contextValue as ResultStream).next().then((item) => item.value as ExecutionResult),
    subscribe: (args: ExecutionArgs) => args.contextValue as ResultStream,
    onNext: (_ctx, _id, _payload, _args, result) => {
      const raw = (result as RawResult)[RAW];
      if (raw === undefined) return undefined;
      const token = String(++nextToken);
      raws.set(token, raw);
      return { [PLACEHOLDER_KEY]: token } as never;
    },
    onComplete: (_ctx, id) => session.stop(id),
  });

  const closed = server.opened(
    {
      protocol: socket.protocol,
      send: (data) => {
        const placeholder = PLACEHOLDER.exec(data);
        if (placeholder === null) return send(data);
        const raw = raws.get(placeholder[1]!);
        raws.delete(placeholder[1]!);
        send(`${data.slice(0, placeholder.index)}"payload":${raw}}`);
      },
      close: (code, reason) => socket.close(code, reason),
      onMessage: (handle) =>
        socket.on('message', (data) => {
          const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
          // A client's complete ends its subscription before any later message is handled
          // (makeServer completes it asynchronously, after later subscribes may have run).
          const completed = completedId(text);
          if (completed !== null) session.stop(completed);
          handle(text).catch((error: unknown) => {
            options.log.error({ err: error }, 'a graphql-transport-ws message failed');
            socket.close(4500, 'Internal server error');
          });
        }),
    },
    undefined,
  );
  const keepAlive = setInterval(() => send('{"type":"ping","payload":{"message":"keepalive"}}'), options.keepAliveMs);
  socket.once('close', (code, reason) => {
    clearInterval(keepAlive);
    session.close();
    void closed(code, reason.toString('utf8'));
  });
}

/** Ends every running operation with `error`, then the socket with 4403 (credentials expired). */
export function expireTransportWs(socket: WebSocket, session: SocketSession, error: GraphQLFormattedError): void {
  for (const id of session.operations) socket.send(JSON.stringify({ id, type: 'error', payload: [error] }));
  socket.close(4403, 'Forbidden');
}

const RAW = Symbol('raw result');
type RawResult = { [RAW]?: string };
let nextToken = 0;
const PLACEHOLDER_KEY = '__raw';
const PLACEHOLDER = /"payload":\{"__raw":"(\d+)"\}\}$/;

/** What makeServer needs to choose subscribe or execute: the operation type; the schema is never used. */
const PLACEHOLDER_SCHEMA = buildSchema('type Query { _: Boolean } type Subscription { _: Boolean }');
const RESULTS = parse('subscription { _ }');
const ONE_RESULT = parse('query { _ }');

/** The id of a `complete` message, or null for any other text. */
function completedId(text: string): string | null {
  if (!text.includes('"complete"')) return null;
  try {
    const message = JSON.parse(text) as { type?: unknown; id?: unknown };
    return message.type === 'complete' && typeof message.id === 'string' ? message.id : null;
  } catch {
    return null;
  }
}

function graphqlErrors(errorsJson: string): GraphQLError[] {
  return (JSON.parse(errorsJson) as GraphQLFormattedError[]).map((error) => new GraphQLError(error.message, { extensions: error.extensions ?? {} }));
}

/**
 * The results of one operation as makeServer iterates them: each yielded once, in order;
 * `return()` (the client's `complete`) ends it at once, even while it waits.
 */
class ResultStream implements AsyncGenerator<ExecutionResult>, ResultSink {
  #items: { raw: string; last: boolean }[] = [];
  #waiting: ((result: IteratorResult<ExecutionResult>) => void) | null = null;
  #done = false;

  data(result: string): void {
    this.#push(result, false);
  }

  end(result: string): void {
    this.#push(result, true);
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const item = this.#items.shift();
    if (item !== undefined) {
      if (item.last) this.#done = true;
      return Promise.resolve({ value: { [RAW]: item.raw } as ExecutionResult, done: false });
    }
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.#done = true;
    this.#items = [];
    this.#waiting?.({ value: undefined, done: true });
    this.#waiting = null;
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(): Promise<IteratorResult<ExecutionResult>> {
    return this.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  #push(raw: string, last: boolean): void {
    if (this.#done) return;
    const waiting = this.#waiting;
    if (waiting === null) {
      this.#items.push({ raw, last });
      return;
    }
    this.#waiting = null;
    if (last) this.#done = true;
    waiting({ value: { [RAW]: raw } as ExecutionResult, done: false });
  }
}

import type { WebSocket } from 'ws';
import { ServiceError } from '../../errors/service-error.js';
import type { Logger } from '../../log/logger.js';
import type { OperationPayload, ResultSink, SocketSession } from './socket-session.js';
import { isRefusal, socketSender } from './socket-sender.js';

/** Close codes and texts of Hasura's Apollo transport (compat: Hasura's WebSocket/Protocol.hs). */
const INIT_FAILED = 4400;
const TERMINATED = 1000;

export interface LegacyOptions {
  keepAliveMs: number;
  maxBufferedBytes: number;
  log: Logger;
}

/**
 * The Apollo `subscriptions-transport-ws` protocol (subprotocol `graphql-ws`, and what a
 * client that names none gets), frame for frame as Hasura speaks it: `ka` at once, every
 * keep-alive interval and after the ack; a failed init is `connection_error` then close
 * 4400; a malformed frame is `connection_error` and the socket stays open; a start that
 * cannot run is an `error` then `complete`, and the socket stays open; `stop` is not
 * answered. Messages are handled one after the other, in order (a client may send its
 * starts before the ack arrives).
 */
export function speakLegacy(socket: WebSocket, session: SocketSession, options: LegacyOptions): void {
  const send = socketSender(socket, options.maxBufferedBytes);
  const frame = (type: string, id: string, payload: string) => `{"type":"${type}","id":${JSON.stringify(id)},"payload":${payload}}`;
  let state: { kind: 'new' } | { kind: 'ready' } | { kind: 'failed'; reason: string } = { kind: 'new' };
  const keepAlive = setInterval(() => send('{"type":"ka"}'), options.keepAliveMs);
  send('{"type":"ka"}');

  const startFailed = (id: string, message: string) => {
    send(frame('error', id, JSON.stringify({ message, extensions: { path: '$', code: 'start-failed' } })));
    send(`{"type":"complete","id":${JSON.stringify(id)}}`);
  };
  const sinkFor = (id: string): ResultSink => ({
    data: (result) => send(frame('data', id, result)),
    end: (result) => {
      send(frame('data', id, result));
      send(`{"type":"complete","id":${JSON.stringify(id)}}`);
    },
  });

  const start = async (id: string, payload: OperationPayload) => {
    if (session.has(id)) return startFailed(id, `an operation already exists with this id: ${id}`);
    if (state.kind === 'failed') return startFailed(id, `cannot start as connection_init failed with: ${state.reason}`);
    if (state.kind !== 'ready') return startFailed(id, 'start received before the connection is initialised');
    const outcome = await session.start(id, payload, sinkFor(id));
    if (outcome.kind === 'subscribed') return;
    if (outcome.kind === 'answered' && !isRefusal(outcome.result)) {
      send(frame('data', id, outcome.result));
    } else if (outcome.kind === 'answered') {
      send(frame('error', id, outcome.result));
    } else {
      send(frame('error', id, `{"errors":${outcome.errors}}`));
    }
    send(`{"type":"complete","id":${JSON.stringify(id)}}`);
  };

  const handle = async (text: string) => {
    let message: { type?: unknown; id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
      if (typeof message !== 'object' || message === null || typeof message.type !== 'string') throw new Error('expected an object with a "type"');
    } catch (error) {
      return send(JSON.stringify({ type: 'connection_error', payload: `parsing ClientMessage failed: ${(error as Error).message}` }));
    }
    switch (message.type) {
      case 'connection_init':
        try {
          await session.init(message.payload);
          state = { kind: 'ready' };
          send('{"type":"connection_ack"}');
          send('{"type":"ka"}');
        } catch (error) {
          const reason = error instanceof ServiceError ? error.message : 'authentication failed';
          state = { kind: 'failed', reason };
          send(JSON.stringify({ type: 'connection_error', payload: reason }));
          socket.close(INIT_FAILED, closeReason(`4400: Connection initialization failed: ${reason}`));
        }
        return;
      case 'start':
        if (typeof message.id !== 'string' || typeof message.payload !== 'object' || message.payload === null) {
          return send(JSON.stringify({ type: 'connection_error', payload: 'parsing ClientMessage failed: a start needs a string "id" and an object "payload"' }));
        }
        return start(message.id, message.payload as OperationPayload);
      case 'stop':
        if (typeof message.id !== 'string') return send(JSON.stringify({ type: 'connection_error', payload: 'parsing ClientMessage failed: a stop needs a string "id"' }));
        return session.stop(message.id);
      case 'connection_terminate':
        return socket.close(TERMINATED, 'GQL_CONNECTION_TERMINATE received');
      default:
        return send(JSON.stringify({ type: 'connection_error', payload: `parsing ClientMessage failed: unexpected type for ClientMessage: ${message.type}` }));
    }
  };

  let queue: Promise<void> = Promise.resolve();
  socket.on('message', (data) => {
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
    queue = queue.then(() => handle(text)).catch((error: unknown) => options.log.error({ err: error }, 'a WebSocket message failed'));
  });
  socket.once('close', () => {
    clearInterval(keepAlive);
    session.close();
  });
}

/** A close reason fits 123 bytes (RFC 6455). */
export function closeReason(text: string): string {
  const bytes = Buffer.from(text);
  return bytes.length <= 123 ? text : bytes.subarray(0, 120).toString('utf8').replace(/\uFFFD*$/, '') + '...';
}

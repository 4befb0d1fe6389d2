import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { JsonReply, type Bus } from '../../bus/bus.js';
import type { Delivery } from '../../bus/messages/subscriptions.js';
import type { Config } from '../../config/load.js';
import type { Logger } from '../../log/logger.js';
import { typedLog } from '../../log/log-types.js';
import { errors } from '../../errors/errors.js';
import { validate } from '../../schemas/validator.js';
import { flattenHeaders } from '../body.js';
import { createCors } from '../cors.js';
import { closeReason, speakLegacy } from './legacy-protocol.js';
import { SocketSession } from './socket-session.js';
import { expireTransportWs, speakTransportWs } from './transport-ws-protocol.js';

const MODERN = 'graphql-transport-ws';
const LEGACY = 'graphql-ws';
/** Hasura's note (WebSocket onConn) when it drops a handshake's Cookie header. */
const COOKIE_NOT_READ =
  'Cookie is not read when CORS is disabled, because it is a potential security issue. If you are already handling CORS before the engine and enforcing CORS on websocket connections, then you can use the flag --ws-read-cookie or SERVICE_GRAPHQL_WS_READ_COOKIE to force read cookie when CORS is disabled.';
/** setTimeout's longest delay; a later expiry is checked again then. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export interface WebSocketEdgeDeps {
  bus: Bus;
  config: Config;
  log: Logger;
  instance: string;
  serve(subject: string, handler: Parameters<Bus['serve']>[1]): void;
}

/** Hasura's GraphQL routes; older clients open their subscriptions on the legacy one. */
const WEBSOCKET_PATHS: readonly string[] = ['/v1/graphql', '/v1alpha1/graphql'];

/**
 * WebSockets on `/v1/graphql` and `/v1alpha1/graphql`: `graphql-transport-ws` when the
 * client asks for it, else the legacy Apollo protocol (Hasura's default, also with no
 * subprotocol named; none is echoed then, as strict clients require). Results for this
 * instance's sockets arrive on `<p>.edge.<instance>.deliver` from the subscriptions actor of
 * the same instance.
 */
export function attachWebSockets(server: Server, deps: WebSocketEdgeDeps): { sockets: () => number; close(): void } {
  const { bus, config, log } = deps;
  const sessions = new Map<string, SocketSession>();
  let nextConnection = 0;
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has(MODERN) ? MODERN : protocols.has(LEGACY) ? LEGACY : false),
  });
  const graphqlEnabled = config.enabledApis.includes('graphql');
  const websocketLog = typedLog(log, 'websocket-log', config.enabledLogTypes);
  const cors = createCors(config);

  server.on('upgrade', (request: IncomingMessage, stream: Duplex, head: Buffer) => {
    const path = (request.url ?? '/').split('?')[0];
    if (!graphqlEnabled || path === undefined || !WEBSOCKET_PATHS.includes(path)) {
      stream.end(`HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nWebSockets are served on ${WEBSOCKET_PATHS.join(' and ')} only`);
      return;
    }
    const origin = cors.websocket(request);
    if (origin.refused) {
      // Hasura's rejection body: one GraphQL error object (WebSocket onConn, encodeGQLErr).
      const error = errors.corsOriginDenied('$');
      const body = JSON.stringify({ message: error.message, extensions: { path: error.path, code: error.code } });
      stream.end(`HTTP/1.1 ${error.status} Forbidden\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    if (!origin.readCookie) log.info({ origin: request.headers.origin }, COOKIE_NOT_READ);
    wss.handleUpgrade(request, stream, head, (socket) => open(socket, request, origin.readCookie));
  });

  const open = (socket: WebSocket, request: IncomingMessage, readCookie: boolean) => {
    const connection = `c${++nextConnection}`;
    const handshakeHeaders = flattenHeaders(request);
    for (const name of ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol', 'upgrade', 'connection']) delete handshakeHeaders[name];
    if (!readCookie) delete handshakeHeaders.cookie;
    const session = new SocketSession({ bus, instance: deps.instance, connection, handshakeHeaders, clientAddress: request.socket.remoteAddress ?? '', timeoutMs: config.busTimeoutMs, log });
    sessions.set(connection, session);
    websocketLog.info({ event: 'accepted', connection, protocol: socket.protocol, path: (request.url ?? '/').split('?')[0] }, 'websocket');
    socket.once('close', (code: number) => {
      sessions.delete(connection);
      websocketLog.info({ event: 'closed', connection, protocol: socket.protocol, code }, 'websocket');
    });
    const common = { keepAliveMs: config.websocketKeepalive * 1000, maxBufferedBytes: config.websocketMaxBufferedBytes, log };
    const modern = socket.protocol === MODERN;
    if (modern) speakTransportWs(socket, session, { ...common, connectionInitTimeoutMs: config.websocketConnectionInitTimeout * 1000 });
    else speakLegacy(socket, session, common);
    watchExpiry(socket, session, modern);
  };

  deps.serve(bus.subjects.edgeDeliver(deps.instance), async (request) => {
    const delivery = validate<Delivery>('bus/subscription-delivery', request.json());
    for (const [connection, id] of delivery.targets) sessions.get(connection)?.deliver(id, delivery.kind, delivery.payload);
    return new JsonReply({});
  });

  return {
    sockets: () => sessions.size,
    close() {
      for (const socket of wss.clients) socket.close(1001, 'the server is going away');
      wss.close();
    },
  };
}

/**
 * Ends the socket when its credentials expire (a JWT's `exp`, an auth webhook's expiry),
 * an error first: `connection_error` then close 4400 (legacy), an `error` for each running
 * operation then close 4403 (graphql-transport-ws).
 */
function watchExpiry(socket: WebSocket, session: SocketSession, modern: boolean): void {
  let timer: NodeJS.Timeout | null = null;
  const message = 'Could not verify JWT: JWTExpired';
  const check = (expiresAt: number) => {
    const left = expiresAt - Date.now();
    if (left > 0) {
      timer = setTimeout(() => check(expiresAt), Math.min(left, LONGEST_TIMER_MS));
      return;
    }
    if (socket.readyState !== socket.OPEN) return;
    if (modern) return expireTransportWs(socket, session, { message, extensions: { path: '$', code: 'invalid-jwt' } });
    socket.send(JSON.stringify({ type: 'connection_error', payload: message }));
    socket.close(4400, closeReason(`4400: ${message}`));
  };
  session.whenInitialised((resolved) => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (resolved.expires_at !== undefined) check(resolved.expires_at);
  });
  socket.once('close', () => {
    if (timer !== null) clearTimeout(timer);
  });
}

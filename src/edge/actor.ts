import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Actor } from '../actor/actor.js';
import { HEADER_ROOM_BYTES } from '../bus/wire.js';
import { createMonitorStreams } from './monitor-stream.js';
import { createEdgeHandler } from './routes.js';
import { attachWebSockets } from './websocket/server.js';

/** Where the edge listens, once started (port 0 in the config picks a free port). */
export interface EdgeAddress {
  host: string;
  port: number;
}

/**
 * The HTTP edge as an actor, so that it heartbeats its request counters like any other:
 * HTTP routes, and WebSockets on /v1/graphql (websocket/). `onListening` tells the
 * process where it listens.
 */
export function edgeActor(onListening: (address: EdgeAddress) => void): Actor {
  return {
    name: 'edge',
    async start(context) {
      const { bus, config, log } = context;
      const bodyLimit = Math.min(config.maxRequestBodyBytes, bus.maxPayload - HEADER_ROOM_BYTES - 16 * 1024);
      const monitorStreams = createMonitorStreams(bus);
      const handle = createEdgeHandler({ bus, config, log, bodyLimit, metrics: context.metrics, monitorStreams });
      const counters = { requests: 0, errors: 0, in_flight: 0 };
      const server: Server = createServer((request, response) => {
        counters.requests++;
        counters.in_flight++;
        // One reaction for both outcomes rather than a then, a catch and a finally: this runs for every request.
        handle(request, response).then(
          (status) => {
            counters.in_flight--;
            if (status >= 400) counters.errors++;
          },
          (error: unknown) => {
            counters.in_flight--;
            counters.errors++;
            log.error({ err: error }, 'request failed outside its route');
            if (!response.headersSent) response.writeHead(500).end();
          },
        );
      });
      server.keepAliveTimeout = 65_000;
      let connections = 0;
      server.on('connection', (socket) => {
        connections++;
        socket.once('close', () => connections--);
      });
      const websockets = attachWebSockets(server, { bus, config, log, instance: context.instance, serve: (subject, handler) => context.serve(subject, handler) });
      context.reportGauges(() => ({ http_requests: counters.requests, http_errors: counters.errors, http_in_flight: counters.in_flight, http_connections: connections, websockets: websockets.sockets(), monitor_streams: monitorStreams.open() }));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.serverPort, config.serverHost, () => resolve());
      });
      const address = server.address() as AddressInfo;
      log.info({ host: address.address, port: address.port, bodyLimit }, 'HTTP edge listening');
      onListening({ host: address.address, port: address.port });
      return {
        stop: () =>
          new Promise<void>((resolve) => {
            websockets.close();
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      };
    },
  };
}

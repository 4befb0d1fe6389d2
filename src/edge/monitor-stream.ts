import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Bus } from '../bus/bus.js';
import type { Served } from '../bus/responder.js';
import type { Heartbeat, MonitorEvent } from '../monitor/messages.js';
import type { Sent } from './respond.js';

/** A comment line this often keeps proxies and the browser from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** How long the stream's first batch waits for every instance to answer the ping. */
const PING_WINDOW_MS = 500;

/** The open streams, as the edge's `monitor_streams` gauge reports them. */
export interface MonitorStreams {
  open(): number;
  /** Relays the cluster's heartbeats and monitor events to one client, until it goes away. */
  serve(request: IncomingMessage, response: ServerResponse): Sent;
}

/**
 * `GET /v1/monitor/stream` as server-sent events: what the `monitor` command reads
 * (`heartbeat` events, first the answers to a ping, then each heartbeat as it comes, and
 * `monitor` events for notable happenings). The caller has been checked to be admin.
 */
export function createMonitorStreams(bus: Bus): MonitorStreams {
  let open = 0;
  return {
    open: () => open,
    serve(request, response) {
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      response.flushHeaders();
      const send = (event: string, data: unknown): void => {
        if (!response.writableEnded) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      open++;
      const subscriptions: Served[] = [
        bus.listen<Heartbeat>(bus.subjects.heartbeatAll, (beat) => send('heartbeat', beat)),
        bus.listen<MonitorEvent>(bus.subjects.monitorEventAll, (event) => send('monitor', event)),
      ];
      const keepalive = setInterval(() => response.write(': keep-alive\n\n'), KEEPALIVE_MS);
      let closed = false;
      const close = (): void => {
        if (closed) return;
        closed = true;
        open--;
        clearInterval(keepalive);
        for (const subscription of subscriptions) subscription.unsubscribe();
      };
      request.socket.once('close', close);
      response.once('close', close);
      void bus
        .gather<Heartbeat>(bus.subjects.monitorPing, {}, PING_WINDOW_MS)
        .then((beats) => {
          for (const beat of beats) send('heartbeat', beat);
        })
        .catch(() => undefined);
      return { status: 200 };
    },
  };
}

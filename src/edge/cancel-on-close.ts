import type { ServerResponse } from 'node:http';
import type { Bus } from '../bus/bus.js';
import type { RequestCancel } from '../bus/messages/requests.js';

/** Tells whoever runs the request that nobody waits for it any more, so its statement stops at once. */
export function cancelRequest(bus: Bus, cancelKey: string): void {
  const message: RequestCancel = { cancel_key: cancelKey };
  try {
    bus.publish(bus.subjects.requestCancel, message);
  } catch {
    // NATS is closed: the request's own deadline stops it instead.
  }
}

/** When the client goes away before its answer is written, the request is cancelled. */
export function cancelOnClose(response: ServerResponse, bus: Bus, cancelKey: string): void {
  response.once('close', () => {
    if (!response.writableFinished) cancelRequest(bus, cancelKey);
  });
}

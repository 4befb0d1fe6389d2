import type { Heartbeat, MonitorEvent } from '../../../monitor/messages';
import { credentialHeaders, type Credentials } from './credentials';
import { splitServerSentEvents } from './server-sent-events';

export type MonitorMessage = { event: 'heartbeat'; data: Heartbeat } | { event: 'monitor'; data: MonitorEvent };

/**
 * Reads GET /v1/monitor/stream (server-sent events) with fetch, since EventSource cannot
 * send the admin secret header. Calls `onMessage` per event until `signal` aborts.
 */
export async function readMonitorStream(credentials: Credentials, signal: AbortSignal, onMessage: (message: MonitorMessage) => void): Promise<void> {
  const response = await fetch('/v1/monitor/stream', { headers: credentialHeaders(credentials, false), signal });
  if (!response.ok || response.body === null) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new Error(body.error ?? `HTTP ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const { events, rest } = splitServerSentEvents(buffer + value);
    buffer = rest;
    for (const { event, data } of events) {
      if (event === 'heartbeat' || event === 'monitor') onMessage({ event, data: JSON.parse(data) } as MonitorMessage);
    }
  }
}

import type { Heartbeat, MonitorEvent } from '../../../monitor/messages';
import { credentialHeaders, type Credentials } from './credentials';

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
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if ((event === 'heartbeat' || event === 'monitor') && data !== undefined) onMessage({ event, data: JSON.parse(data) } as MonitorMessage);
    }
  }
}

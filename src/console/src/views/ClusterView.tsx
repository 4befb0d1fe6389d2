import { useEffect, useState } from 'react';
import type { Heartbeat, MonitorEvent } from '../../../monitor/messages';
import { summarize, summarizedGauge } from '../../../monitor/summary';
import type { EngineClient } from '../api/client';
import { readMonitorStream } from '../api/monitor-stream';
import { Status } from '../components/Status';
import { DataTable } from '../components/DataTable';

/** Notable events kept on screen. */
const RECENT_EVENTS = 20;

/** The live cluster, as the `monitor` command prints it: every actor instance's latest heartbeat, the summary, and events as they come. */
export function ClusterView({ client }: { client: EngineClient }) {
  const [beats, setBeats] = useState<Map<string, Heartbeat>>(new Map());
  const [events, setEvents] = useState<MonitorEvent[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    const abort = new AbortController();
    readMonitorStream(client.credentials, abort.signal, (message) => {
      if (message.event === 'heartbeat') setBeats((previous) => new Map(previous).set(`${message.data.instance}/${message.data.actor}`, message.data));
      else setEvents((previous) => [message.data, ...previous].slice(0, RECENT_EVENTS));
    }).catch((failure: unknown) => {
      if (!abort.signal.aborted) setError(failure instanceof Error ? failure.message : String(failure));
    });
    return () => abort.abort();
  }, [client]);
  const rows = [...beats.values()].sort((a, b) => a.instance.localeCompare(b.instance) || a.actor.localeCompare(b.actor));
  const instances = new Set(rows.map((beat) => beat.instance));
  const summary = summarize(rows);
  return (
    <section aria-labelledby="cluster-title">
      <h1 id="cluster-title">Cluster</h1>
      <Status error={error} />
      <p aria-live="polite">
        <strong>{instances.size}</strong> engine instance{instances.size === 1 ? '' : 's'}, {rows.length} actor instances. Live from the heartbeats.
      </p>
      <dl className="summary">
        <dt>Subscriptions</dt>
        <dd>
          {summary.subscriptions.total} (change-driven {summary.subscriptions.changeDriven}, polling {summary.subscriptions.polling})
        </dd>
        <dt>Rate limited</dt>
        <dd>{summary.rateLimited}</dd>
        <dt>Slot lag</dt>
        <dd>{summary.slotLagBytes === null ? '–' : `${summary.slotLagBytes} bytes${summary.slotLagSeconds === null ? '' : `, ${summary.slotLagSeconds} s`}`}</dd>
        {[...summary.triggers].map(([trigger, stats]) => (
          <div key={trigger}>
            <dt>Trigger {trigger}</dt>
            <dd>
              event lag {stats.lagMs} ms, {stats.failures} failures
            </dd>
          </div>
        ))}
      </dl>
      <DataTable columns={['Instance', 'Host / pid', 'Actor', 'Up (s)', 'Handled', 'Failed', 'p50/p90/p99 ms', 'Gauges']} label="Actor instances">
          {rows.map((beat) => (
            <tr key={`${beat.instance}/${beat.actor}`}>
              <td>
                <code>{beat.instance}</code>
              </td>
              <td>
                {beat.host} / {beat.pid}
              </td>
              <td>{beat.actor}</td>
              <td>{beat.uptime_s}</td>
              <td>{beat.handled}</td>
              <td>{beat.failed}</td>
              <td>
                {beat.latency_ms.p50}/{beat.latency_ms.p90}/{beat.latency_ms.p99}
              </td>
              <td className="gauges">
                {Object.entries(beat.gauges)
                  .filter(([key]) => !summarizedGauge(key))
                  .map(([key, value]) => `${key}=${String(value)}`)
                  .join(' ')}
              </td>
            </tr>
          ))}
        </DataTable>
      <h2>Recent events</h2>
      {events.length === 0 ? (
        <p>None since this page opened.</p>
      ) : (
        <ul className="plain">
          {events.map((event, index) => (
            <li key={index}>
              <code>{event.at}</code> {event.kind} {event.actor}@{event.instance} <code>{JSON.stringify(event.detail)}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

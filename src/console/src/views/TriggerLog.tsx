import { useState } from 'react';
import type { EngineClient } from '../api/client';
import { attempt, Status, type Outcome } from '../components/Status';
import { useAsync } from '../components/useAsync';
import { DataTable } from '../components/DataTable';

interface EventRow {
  id: string;
  delivered: boolean;
  error: boolean;
  tries: number;
  created_at: string;
}

interface InvocationRow {
  id: string;
  event_id: string;
  status: number | null;
  response: Record<string, unknown>;
  created_at: string;
}

/** A trigger's recent events (with redeliver) and webhook invocations, newest first. */
export function TriggerLog({ client, trigger }: { client: EngineClient; trigger: string }) {
  const state = useAsync(
    async () => ({
      events: await client.query<EventRow[]>('get_event_logs', { trigger_name: trigger, limit: 20 }),
      invocations: await client.query<InvocationRow[]>('get_event_invocation_logs', { trigger_name: trigger, limit: 20 }),
    }),
    [client, trigger],
  );
  const [outcome, setOutcome] = useState<Outcome>({});
  return (
    <section aria-labelledby="log-title" className="panel">
      <div className="row">
        <h2 id="log-title">Events of {trigger}</h2>
        <button type="button" className="secondary" onClick={state.reload}>
          Refresh
        </button>
      </div>
      <Status loading={state.value === undefined && state.loading} error={state.error ?? outcome.error} message={outcome.message} />
      <DataTable columns={['Event', 'Created', 'Status', 'Tries', 'Action']} label="Recent events">
          {(state.value?.events ?? []).map((event) => (
            <tr key={event.id}>
              <td>
                <code>{event.id}</code>
              </td>
              <td>{event.created_at}</td>
              <td>{event.delivered ? 'delivered' : event.error ? 'failed' : 'pending'}</td>
              <td>{event.tries}</td>
              <td>
                <button type="button" className="secondary" aria-label={`Redeliver event ${event.id}`} onClick={() => void attempt(() => client.query('redeliver_event', { event_id: event.id }), setOutcome, `Redelivering ${event.id}`).then(state.reload)}>
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      <h3>Invocations</h3>
      <DataTable columns={['Event', 'At', 'HTTP status', 'Response']} label="Invocations">
          {(state.value?.invocations ?? []).map((invocation) => (
            <tr key={invocation.id}>
              <td>
                <code>{invocation.event_id}</code>
              </td>
              <td>{invocation.created_at}</td>
              <td className={invocation.status !== null && invocation.status < 300 ? 'good' : 'bad'}>{invocation.status ?? 'no answer'}</td>
              <td>
                <code className="clip">{JSON.stringify(invocation.response)}</code>
              </td>
            </tr>
          ))}
        </DataTable>
      {state.value?.invocations.length === 0 && <p>No invocations yet.</p>}
    </section>
  );
}

import { useState } from 'react';
import type { EngineClient } from '../api/client';
import { tableKey, tablesOf, type Metadata, type QualifiedName } from '../api/metadata';
import { attempt, Status, type Outcome } from '../components/Status';
import { useAsync } from '../components/useAsync';
import { TriggerLog } from './TriggerLog';
import { DataTable } from '../components/DataTable';

const OPERATIONS = ['insert', 'update', 'delete'] as const;

/** Event triggers: list, add, remove; a selected trigger shows its recent events and invocations. */
export function EventsView({ client }: { client: EngineClient }) {
  const state = useAsync(() => client.query<Metadata>('export_metadata', {}), [client]);
  const [outcome, setOutcome] = useState<Outcome>({});
  const [selected, setSelected] = useState<string>();
  const tables = state.value === undefined ? [] : tablesOf(state.value);
  const triggers = tables.flatMap((table) => (table.event_triggers ?? []).map((trigger) => ({ ...trigger, table: table.table })));
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Event triggers</h1>
      <Status loading={state.value === undefined && state.loading} error={state.error ?? outcome.error} message={outcome.message} />
      <DataTable columns={['Name', 'Table', 'Operations', 'Webhook', 'Actions']}>
          {triggers.map((trigger) => (
            <tr key={trigger.name} className={selected === trigger.name ? 'selected' : undefined}>
              <td>{trigger.name}</td>
              <td>{tableKey(trigger.table)}</td>
              <td>{OPERATIONS.filter((operation) => trigger.definition[operation] !== undefined).join(', ')}</td>
              <td>{trigger.webhook ?? `env ${trigger.webhook_from_env ?? ''}`}</td>
              <td className="row">
                <button type="button" aria-label={`Show events of ${trigger.name}`} onClick={() => setSelected(trigger.name)}>
                  Events
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Remove trigger ${trigger.name}`}
                  onClick={() => void attempt(() => client.query('delete_event_trigger', { name: trigger.name }), setOutcome, `Removed ${trigger.name}`).then(state.reload)}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      {state.value !== undefined && triggers.length === 0 && <p>No event triggers yet.</p>}
      <AddTrigger client={client} tables={tables.map((table) => table.table)} onAdded={state.reload} report={setOutcome} />
      {selected !== undefined && <TriggerLog key={selected} client={client} trigger={selected} />}
    </section>
  );
}

function AddTrigger({ client, tables, onAdded, report }: { client: EngineClient; tables: QualifiedName[]; onAdded: () => void; report: (outcome: Outcome) => void }) {
  const [name, setName] = useState('');
  const [table, setTable] = useState('');
  const [webhook, setWebhook] = useState('');
  const [operations, setOperations] = useState<string[]>(['insert']);
  const chosen = tables.find((candidate) => tableKey(candidate) === table) ?? tables[0];
  return (
    <form
      className="panel"
      aria-labelledby="add-trigger-title"
      onSubmit={(event) => {
        event.preventDefault();
        if (chosen === undefined) return;
        const args = { name: name.trim(), table: chosen, webhook: webhook.trim(), ...Object.fromEntries(operations.map((operation) => [operation, { columns: '*' }])) };
        void attempt(() => client.query('create_event_trigger', args), report, `Added trigger ${args.name}`).then((ok) => ok && onAdded());
      }}
    >
      <h2 id="add-trigger-title">Add an event trigger</h2>
      <div className="fields">
        <label htmlFor="trigger-name">Name</label>
        <input id="trigger-name" required value={name} onChange={(event) => setName(event.target.value)} />
        <label htmlFor="trigger-table">Table</label>
        <select id="trigger-table" value={chosen === undefined ? '' : tableKey(chosen)} onChange={(event) => setTable(event.target.value)}>
          {tables.map((candidate) => (
            <option key={tableKey(candidate)}>{tableKey(candidate)}</option>
          ))}
        </select>
        <label htmlFor="trigger-webhook">Webhook URL</label>
        <input id="trigger-webhook" type="url" required value={webhook} onChange={(event) => setWebhook(event.target.value)} />
      </div>
      <fieldset>
        <legend>Operations</legend>
        {OPERATIONS.map((operation) => (
          <label key={operation} className="check">
            <input type="checkbox" checked={operations.includes(operation)} onChange={(event) => setOperations(event.target.checked ? [...operations, operation] : operations.filter((other) => other !== operation))} />
            {operation}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={tables.length === 0 || operations.length === 0}>
        Add trigger
      </button>
    </form>
  );
}

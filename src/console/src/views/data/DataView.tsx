import { useState } from 'react';
import type { EngineClient } from '../../api/client';
import { tableKey, tablesOf, type Metadata, type QualifiedName } from '../../api/metadata';
import { Link } from '../../components/router';
import { attempt, Status, type Outcome } from '../../components/Status';
import { useAsync } from '../../components/useAsync';
import { listTables } from './catalog';
import { TableView } from './TableView';
import { DataTable } from '../../components/DataTable';

/** The database's tables and views, tracked or not; `rest` (`/<schema>/<table>`) opens one. */
export function DataView({ client, rest }: { client: EngineClient; rest: string }) {
  const [, schema, name] = rest.split('/').map(decodeURIComponent);
  if (schema !== undefined && name !== undefined) return <TableView client={client} table={{ schema, name }} />;
  return <TableList client={client} />;
}

function TableList({ client }: { client: EngineClient }) {
  const state = useAsync(async () => ({ tables: await listTables(client), metadata: await client.query<Metadata>('export_metadata', {}) }), [client]);
  const [outcome, setOutcome] = useState<Outcome>({});
  const tracked = new Set(state.value === undefined ? [] : tablesOf(state.value.metadata).map((entry) => tableKey(entry.table)));
  const track = ({ schema, name }: QualifiedName, on: boolean): void => {
    const table = { schema, name };
    const action = on ? client.query('track_table', table) : client.query('untrack_table', { table, cascade: true });
    void attempt(() => action, setOutcome, `${on ? 'Tracked' : 'Untracked'} ${tableKey(table)}`).then(state.reload);
  };
  return (
    <section aria-labelledby="data-title">
      <h1 id="data-title">Data</h1>
      <p className="hint">Tables and views of the database. Tracked ones are in the GraphQL schema; open one for its relationships and permissions.</p>
      <Status loading={state.value === undefined && state.loading} error={state.error ?? outcome.error} message={outcome.message} />
      <DataTable columns={['Schema', 'Name', 'Kind', 'Status', 'Action']}>
          {(state.value?.tables ?? []).map((table) => {
            const key = tableKey(table);
            const isTracked = tracked.has(key);
            return (
              <tr key={key}>
                <td>{table.schema}</td>
                <td>{isTracked ? <Link to={`/data/${encodeURIComponent(table.schema)}/${encodeURIComponent(table.name)}`}>{table.name}</Link> : table.name}</td>
                <td>{table.kind}</td>
                <td>{isTracked ? 'tracked' : 'not tracked'}</td>
                <td>
                  <button type="button" className={isTracked ? 'secondary' : ''} aria-label={`${isTracked ? 'Untrack' : 'Track'} ${key}`} onClick={() => track(table, !isTracked)}>
                    {isTracked ? 'Untrack' : 'Track'}
                  </button>
                </td>
              </tr>
            );
          })}
        </DataTable>
      {state.value?.tables.length === 0 && <p>The database has no tables or views outside the system schemas.</p>}
    </section>
  );
}

import type { EngineClient } from '../api/client';
import { functionsOf, tableKey, tablesOf, type Metadata } from '../api/metadata';
import { Status, useOutcome } from '../components/Status';
import { useAsync } from '../components/useAsync';
import { ComputedFieldForm } from './ComputedFieldForm';
import { DataTable } from '../components/DataTable';

/** The database's functions, tracked or not, and the computed fields of every table. */
export function FunctionsView({ client }: { client: EngineClient }) {
  const state = useAsync(
    async () => ({
      metadata: await client.query<Metadata>('export_metadata', {}),
      functions: await client.sql(
        "select n.nspname as schema, p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ('pg_catalog', 'information_schema', 'service_catalog') and n.nspname not like 'pg\\_%' and p.prokind = 'f' order by 1, 2",
      ),
    }),
    [client],
  );
  const { outcome, run } = useOutcome(state.reload);
  const tracked = new Set(state.value === undefined ? [] : functionsOf(state.value.metadata).map((fn) => tableKey(fn.function)));
  const tables = state.value === undefined ? [] : tablesOf(state.value.metadata);
  const computed = tables.flatMap((table) => (table.computed_fields ?? []).map((field) => ({ ...field, table: table.table })));
  return (
    <section aria-labelledby="functions-title">
      <h1 id="functions-title">Functions and computed fields</h1>
      <Status loading={state.value === undefined && state.loading} error={state.error ?? outcome.error} message={outcome.message} />
      <h2>Functions</h2>
      <DataTable columns={['Function', 'Status', 'Action']}>
          {(state.value?.functions ?? []).map((row) => {
            const fn = { schema: row.schema ?? '', name: row.name ?? '' };
            const key = tableKey(fn);
            const isTracked = tracked.has(key);
            return (
              <tr key={key}>
                <td>{key}</td>
                <td>{isTracked ? 'tracked' : 'not tracked'}</td>
                <td>
                  <button
                    type="button"
                    className={isTracked ? 'secondary' : ''}
                    aria-label={`${isTracked ? 'Untrack' : 'Track'} function ${key}`}
                    onClick={() => run(() => client.query(isTracked ? 'untrack_function' : 'track_function', fn), `${isTracked ? 'Untracked' : 'Tracked'} ${key}`)}
                  >
                    {isTracked ? 'Untrack' : 'Track'}
                  </button>
                </td>
              </tr>
            );
          })}
        </DataTable>
      {state.value?.functions.length === 0 && <p>The database has no functions outside the system schemas.</p>}
      <h2>Computed fields</h2>
      <DataTable columns={['Table', 'Field', 'Function', 'Action']}>
          {computed.map((field) => (
            <tr key={`${tableKey(field.table)}.${field.name}`}>
              <td>{tableKey(field.table)}</td>
              <td>{field.name}</td>
              <td>{tableKey(field.definition.function)}</td>
              <td>
                <button type="button" className="danger" aria-label={`Remove computed field ${field.name}`} onClick={() => run(() => client.query('drop_computed_field', { table: field.table, name: field.name, cascade: true }), `Removed ${field.name}`)}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      {state.value !== undefined && computed.length === 0 && <p>No computed fields yet.</p>}
      <ComputedFieldForm tables={tables.map((table) => table.table)} functions={(state.value?.functions ?? []).map((row) => ({ schema: row.schema ?? '', name: row.name ?? '' }))} onSubmit={(args, name) => run(() => client.query('add_computed_field', args), `Added ${name}`)} />
    </section>
  );
}

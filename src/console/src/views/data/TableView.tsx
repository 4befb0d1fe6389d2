import type { EngineClient } from '../../api/client';
import { tableKey, tablesOf, type Metadata, type QualifiedName } from '../../api/metadata';
import { Link } from '../../components/router';
import { Status } from '../../components/Status';
import { useAsync } from '../../components/useAsync';
import { foreignKeysOf, listColumns } from './catalog';
import { PermissionMatrix } from './PermissionMatrix';
import { Relationships } from './Relationships';

/** One tracked table: its relationships (with the ones its foreign keys suggest) and its permissions. */
export function TableView({ client, table }: { client: EngineClient; table: QualifiedName }) {
  const state = useAsync(
    async () => ({
      metadata: await client.query<Metadata>('export_metadata', {}),
      columns: await listColumns(client, table),
      foreignKeys: await foreignKeysOf(client, table),
    }),
    [client, table.schema, table.name],
  );
  const entry = state.value === undefined ? undefined : tablesOf(state.value.metadata).find((candidate) => tableKey(candidate.table) === tableKey(table));
  return (
    <section aria-labelledby="table-title">
      <p>
        <Link to="/data">All tables</Link>
      </p>
      <h1 id="table-title">{tableKey(table)}</h1>
      <Status loading={state.value === undefined && state.loading} error={state.error} />
      {state.value !== undefined && entry === undefined && <p role="alert">This table is not tracked.</p>}
      {state.value !== undefined && entry !== undefined && (
        <>
          <p className="hint">Columns: {state.value.columns.join(', ')}</p>
          <Relationships client={client} entry={entry} metadata={state.value.metadata} foreignKeys={state.value.foreignKeys} onChange={state.reload} />
          <PermissionMatrix client={client} entry={entry} metadata={state.value.metadata} columns={state.value.columns} onChange={state.reload} />
        </>
      )}
    </section>
  );
}

import { useState } from 'react';
import type { EngineClient } from '../api/client';
import type { Metadata, RemoteSchema } from '../api/metadata';
import { Status, useOutcome } from '../components/Status';
import { useAsync } from '../components/useAsync';
import { DataTable } from '../components/DataTable';

/** Remote GraphQL servers merged into the schema: list, add, change the URL or timeout, reload, remove. */
export function RemoteSchemasView({ client }: { client: EngineClient }) {
  const state = useAsync(() => client.query<Metadata>('export_metadata', {}), [client]);
  const [editing, setEditing] = useState<RemoteSchema>();
  const { outcome, run } = useOutcome(state.reload);
  const schemas = state.value?.remote_schemas ?? [];
  return (
    <section aria-labelledby="remote-title">
      <h1 id="remote-title">Remote schemas</h1>
      <Status loading={state.value === undefined && state.loading} error={state.error ?? outcome.error} message={outcome.message} />
      <DataTable columns={['Name', 'URL', 'Timeout (s)', 'Actions']}>
          {schemas.map((schema) => (
            <tr key={schema.name}>
              <td>{schema.name}</td>
              <td>{schema.definition.url ?? `env ${schema.definition.url_from_env ?? ''}`}</td>
              <td>{schema.definition.timeout_seconds ?? 60}</td>
              <td className="row">
                <button type="button" className="secondary" aria-label={`Modify ${schema.name}`} onClick={() => setEditing(schema)}>
                  Modify
                </button>
                <button type="button" className="secondary" aria-label={`Reload ${schema.name}`} onClick={() => run(() => client.query('reload_remote_schema', { name: schema.name }), `Reloaded ${schema.name}`)}>
                  Reload
                </button>
                <button type="button" className="danger" aria-label={`Remove ${schema.name}`} onClick={() => run(() => client.query('remove_remote_schema', { name: schema.name }), `Removed ${schema.name}`)}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      {state.value !== undefined && schemas.length === 0 && <p>No remote schemas yet.</p>}
      <RemoteSchemaForm
        key={editing?.name ?? 'new'}
        existing={editing}
        onSubmit={(schema) =>
          run(() => client.query(editing === undefined ? 'add_remote_schema' : 'update_remote_schema', schema), `${editing === undefined ? 'Added' : 'Updated'} ${schema.name}`)
        }
        onCancel={() => setEditing(undefined)}
      />
    </section>
  );
}

function RemoteSchemaForm({ existing, onSubmit, onCancel }: { existing: RemoteSchema | undefined; onSubmit: (schema: RemoteSchema) => void; onCancel: () => void }) {
  const [name, setName] = useState(existing?.name ?? '');
  const [url, setUrl] = useState(existing?.definition.url ?? '');
  const [timeout, setTimeout] = useState(String(existing?.definition.timeout_seconds ?? 60));
  const [forward, setForward] = useState(existing?.definition.forward_client_headers === true);
  return (
    <form
      className="panel"
      aria-labelledby="remote-form-title"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit({ name: name.trim(), definition: { ...existing?.definition, url: url.trim(), timeout_seconds: Number(timeout), forward_client_headers: forward } });
      }}
    >
      <h2 id="remote-form-title">{existing === undefined ? 'Add a remote schema' : `Modify ${existing.name}`}</h2>
      <div className="fields">
        <label htmlFor="remote-name">Name</label>
        <input id="remote-name" required readOnly={existing !== undefined} value={name} onChange={(event) => setName(event.target.value)} />
        <label htmlFor="remote-url">GraphQL server URL</label>
        <input id="remote-url" type="url" required value={url} onChange={(event) => setUrl(event.target.value)} />
        <label htmlFor="remote-timeout">Timeout (seconds)</label>
        <input id="remote-timeout" type="number" min={1} value={timeout} onChange={(event) => setTimeout(event.target.value)} />
      </div>
      <label className="check">
        <input type="checkbox" checked={forward} onChange={(event) => setForward(event.target.checked)} />
        Forward the client's headers
      </label>
      <div className="row">
        <button type="submit">{existing === undefined ? 'Add remote schema' : 'Save'}</button>
        {existing !== undefined && (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

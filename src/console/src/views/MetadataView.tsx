import { useState } from 'react';
import type { EngineClient } from '../api/client';
import type { Metadata } from '../api/metadata';
import { attempt, Status, type Outcome } from '../components/Status';
import { useAsync } from '../components/useAsync';
import { diffMetadata } from './metadata-diff';
import { DataTable } from '../components/DataTable';

interface Inconsistency {
  type: string;
  name?: string;
  reason: string;
  definition?: unknown;
}

/** Export, import (with a preview of what changes), reload, and the inconsistent objects. */
export function MetadataView({ client }: { client: EngineClient }) {
  const inconsistent = useAsync(() => client.query<Inconsistency[] | { inconsistent_objects: Inconsistency[] }>('get_inconsistent_metadata', {}), [client]);
  const [outcome, setOutcome] = useState<Outcome>({});
  const [upload, setUpload] = useState<{ metadata: Metadata; current: Metadata; file: string }>();
  const objects = Array.isArray(inconsistent.value) ? inconsistent.value : (inconsistent.value?.inconsistent_objects ?? []);

  const exportMetadata = (): void =>
    void attempt(
      async () => {
        const metadata = await client.query<Metadata>('export_metadata', {});
        const link = document.createElement('a');
        link.href = URL.createObjectURL(new Blob([JSON.stringify(metadata, null, 2)], { type: 'application/json' }));
        link.download = 'metadata.json';
        link.click();
        URL.revokeObjectURL(link.href);
      },
      setOutcome,
      'Exported the metadata to metadata.json',
    );

  const readFile = (file: File): void =>
    void attempt(
      async () => {
        const metadata = JSON.parse(await file.text()) as Metadata;
        setUpload({ metadata, current: await client.query<Metadata>('export_metadata', {}), file: file.name });
      },
      setOutcome,
      `Read ${file.name}: check the changes below, then replace`,
    );

  const replace = (): void => {
    if (upload === undefined) return;
    void attempt(() => client.query('replace_metadata', upload.metadata), setOutcome, `Replaced the metadata with ${upload.file}`).then((ok) => {
      if (ok) setUpload(undefined);
      inconsistent.reload();
    });
  };

  const diff = upload === undefined ? [] : diffMetadata(upload.current, upload.metadata);
  return (
    <section aria-labelledby="metadata-title">
      <h1 id="metadata-title">Metadata</h1>
      <Status error={outcome.error} message={outcome.message} />
      <div className="panel row">
        <button type="button" onClick={exportMetadata}>
          Export metadata
        </button>
        <label htmlFor="import-file" className="filelabel">
          Import metadata (JSON file)
        </label>
        <input id="import-file" type="file" accept="application/json,.json" onChange={(event) => event.target.files?.[0] && readFile(event.target.files[0])} />
        <button type="button" className="secondary" onClick={() => void attempt(() => client.query('reload_metadata', { reload_remote_schemas: true }), setOutcome, 'Reloaded the metadata and the remote schemas').then(inconsistent.reload)}>
          Reload (with remote schemas)
        </button>
      </div>
      {upload !== undefined && (
        <section aria-labelledby="diff-title" className="panel">
          <h2 id="diff-title">Replacing with {upload.file}</h2>
          {diff.length === 0 ? (
            <p>No difference from the current metadata.</p>
          ) : (
            <ul className="plain diff">
              {diff.map((line) => (
                <li key={`${line.kind}/${line.name}`} className={line.change}>
                  {line.change} {line.kind} <code>{line.name}</code>
                </li>
              ))}
            </ul>
          )}
          <div className="row">
            <button type="button" className="danger" onClick={replace}>
              Replace metadata
            </button>
            <button type="button" className="secondary" onClick={() => setUpload(undefined)}>
              Cancel
            </button>
          </div>
        </section>
      )}
      <section aria-labelledby="inconsistent-title" className="panel">
        <h2 id="inconsistent-title">Inconsistent objects</h2>
        <Status loading={inconsistent.value === undefined && inconsistent.loading} error={inconsistent.error} />
        {inconsistent.value === undefined ? null : objects.length === 0 ? (
          <p>The metadata is consistent.</p>
        ) : (
          <>
            <DataTable columns={['Type', 'Name', 'Reason']}>
                {objects.map((object, index) => (
                  <tr key={index}>
                    <td>{object.type}</td>
                    <td>{object.name ?? JSON.stringify(object.definition)}</td>
                    <td>{object.reason}</td>
                  </tr>
                ))}
              </DataTable>
            <button type="button" className="danger" onClick={() => void attempt(() => client.query('drop_inconsistent_metadata', {}), setOutcome, 'Dropped the inconsistent objects').then(inconsistent.reload)}>
              Drop inconsistent objects
            </button>
          </>
        )}
      </section>
    </section>
  );
}

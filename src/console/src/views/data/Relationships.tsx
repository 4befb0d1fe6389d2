import type { EngineClient } from '../../api/client';
import { tableKey, tablesOf, type Metadata, type TableMetadata } from '../../api/metadata';
import { Status, useOutcome } from '../../components/Status';
import type { ForeignKey } from './catalog';

interface Suggestion {
  name: string;
  kind: 'object' | 'array';
  using: Record<string, unknown>;
  describe: string;
}

/** What the foreign keys offer that the table does not have yet: an object relationship per key from it, an array one per key to it. */
function suggest(entry: TableMetadata, metadata: Metadata, foreignKeys: ForeignKey[]): Suggestion[] {
  const tracked = new Set(tablesOf(metadata).map((table) => tableKey(table.table)));
  const existing = [...(entry.object_relationships ?? []), ...(entry.array_relationships ?? [])];
  const taken = new Set(existing.map((relationship) => relationship.name));
  const used = new Set(existing.map((relationship) => JSON.stringify(relationship.using)));
  const suggestions: Suggestion[] = [];
  for (const key of foreignKeys) {
    if (key.columns.length !== 1) continue;
    const column = key.columns[0]!;
    if (tableKey(key.from) === tableKey(entry.table) && tracked.has(tableKey(key.to))) {
      suggestions.push({ name: key.to.name, kind: 'object', using: { foreign_key_constraint_on: column }, describe: `${column} → ${tableKey(key.to)}.${key.toColumns.join(', ')}` });
    }
    if (tableKey(key.to) === tableKey(entry.table) && tracked.has(tableKey(key.from))) {
      suggestions.push({ name: `${key.from.name}s`, kind: 'array', using: { foreign_key_constraint_on: { table: key.from, column } }, describe: `${tableKey(key.from)}.${column} → ${key.toColumns.join(', ')}` });
    }
  }
  return suggestions.filter((suggestion) => !taken.has(suggestion.name) && !used.has(JSON.stringify(suggestion.using)));
}

export function Relationships({ client, entry, metadata, foreignKeys, onChange }: { client: EngineClient; entry: TableMetadata; metadata: Metadata; foreignKeys: ForeignKey[]; onChange: () => void }) {
  const relationships = [
    ...(entry.object_relationships ?? []).map((relationship) => ({ ...relationship, kind: 'object' })),
    ...(entry.array_relationships ?? []).map((relationship) => ({ ...relationship, kind: 'array' })),
  ];
  const { outcome, run } = useOutcome(onChange);
  const suggestions = suggest(entry, metadata, foreignKeys);
  return (
    <section aria-labelledby="relationships-title" className="panel">
      <h2 id="relationships-title">Relationships</h2>
      <Status error={outcome.error} message={outcome.message} />
      {relationships.length === 0 ? (
        <p>No relationships yet.</p>
      ) : (
        <ul className="plain">
          {relationships.map((relationship) => (
            <li key={relationship.name}>
              <strong>{relationship.name}</strong> ({relationship.kind}) <code>{JSON.stringify(relationship.using)}</code>{' '}
              <button type="button" className="secondary" aria-label={`Remove relationship ${relationship.name}`} onClick={() => run(() => client.query('drop_relationship', { table: entry.table, relationship: relationship.name }), `Removed ${relationship.name}`)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <h3>Suggested from foreign keys</h3>
      {suggestions.length === 0 && <p className="hint">None: no single-column foreign key to or from a tracked table lacks its relationship.</p>}
      {suggestions.map((suggestion) => (
        <p key={suggestion.name}>
          <strong>{suggestion.name}</strong> ({suggestion.kind}): {suggestion.describe}{' '}
          <button
            type="button"
            aria-label={`Add relationship ${suggestion.name}`}
            onClick={() => run(() => client.query(`create_${suggestion.kind}_relationship`, { table: entry.table, name: suggestion.name, using: suggestion.using }), `Added ${suggestion.name}`)}
          >
            Add
          </button>
        </p>
      ))}
    </section>
  );
}

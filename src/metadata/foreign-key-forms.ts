/**
 * The older spellings of `foreign_key_constraint_on` that Hasura v2 still reads, put in
 * the form the metadata stores (and Hasura exports) before the arguments are validated:
 * - `{column: "c"}` or `{columns: "c" | ["c", ...]}` without `table` (the key on this
 *   table's own columns, Hasura's SameTable) becomes `"c"` or `["c", ...]`;
 * - `{table, columns: "c"}` (the other table's key) becomes `{table, column: "c"}`.
 * Anything else is left as written, for the schema to accept or refuse.
 */
export function canonicalForeignKeyOn(on: unknown): unknown {
  if (typeof on !== 'object' || on === null || Array.isArray(on)) return on;
  const { table, column, columns, ...rest } = on as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || (column !== undefined && columns !== undefined)) return on;
  if (table === undefined) {
    if (typeof column === 'string') return column;
    if (typeof columns === 'string') return columns;
    if (Array.isArray(columns)) return columns.length === 1 && typeof columns[0] === 'string' ? columns[0] : columns;
    return on;
  }
  return typeof columns === 'string' ? { table, column: columns } : on;
}

/** A relationship definition (`{using, ...}`) with its foreign key in the stored form. */
export function canonicalRelationship(relationship: unknown): unknown {
  if (!isRecord(relationship) || !isRecord(relationship.using) || !('foreign_key_constraint_on' in relationship.using)) return relationship;
  return { ...relationship, using: { ...relationship.using, foreign_key_constraint_on: canonicalForeignKeyOn(relationship.using.foreign_key_constraint_on) } };
}

/** Every relationship of a metadata object (version 3 `sources[].tables`, or version 2 `tables`) in the stored form. */
export function canonicalRelationshipsIn(metadata: unknown): unknown {
  if (!isRecord(metadata)) return metadata;
  if (Array.isArray(metadata.tables)) return { ...metadata, tables: metadata.tables.map(canonicalTable) };
  if (!Array.isArray(metadata.sources)) return metadata;
  return { ...metadata, sources: metadata.sources.map((source) => (isRecord(source) && Array.isArray(source.tables) ? { ...source, tables: source.tables.map(canonicalTable) } : source)) };
}

function canonicalTable(entry: unknown): unknown {
  if (!isRecord(entry)) return entry;
  const next = { ...entry };
  for (const key of ['object_relationships', 'array_relationships'] as const) {
    if (Array.isArray(entry[key])) next[key] = entry[key].map(canonicalRelationship);
  }
  return next;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

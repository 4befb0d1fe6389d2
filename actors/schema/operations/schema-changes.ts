import type { Metadata, QualifiedName } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import type { PoolClient } from '../../../src/pg/pool.js';

/**
 * What SQL did to the tracked tables, found as Hasura finds it: by comparing the
 * catalog before and after, a table known by its oid and a column by its number, so a
 * renamed table or column is told from a dropped one.
 */
export interface SchemaChanges {
  /** Tracked tables under a new name. */
  tables: Map<string, QualifiedName>;
  /** Per tracked table (its key before), columns under a new name: old name to new. */
  columns: Map<string, Map<string, string>>;
  /** Per tracked table (its key before), the columns dropped. */
  dropped: Map<string, Set<string>>;
  /** Columns whose type changed, by the table's key and the column's name before. */
  retyped: Array<{ tableKey: string; table: QualifiedName; column: string }>;
}

/** The oids of the tracked tables, read before the SQL runs. */
export async function trackedTableOids(client: PoolClient, metadata: Metadata): Promise<Map<number, QualifiedName>> {
  const tables = metadata.sources[0]?.tables.map((entry) => entry.table) ?? [];
  if (tables.length === 0) return new Map();
  const result = await client.query<{ oid: number; schema: string; name: string }>(
    `select c.oid::int as oid, n.nspname as schema, c.relname as name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       join unnest($1::text[], $2::text[]) as t(schema, name) on t.schema = n.nspname and t.name = c.relname`,
    [tables.map((table) => table.schema), tables.map((table) => table.name)],
  );
  return new Map(result.rows.map((row) => [row.oid, { schema: row.schema, name: row.name }]));
}

/** Compares the tracked tables' names, columns and column types before and after the SQL. */
export async function schemaChanges(client: PoolClient, before: Map<number, QualifiedName>, oldCatalog: Catalog, newCatalog: Catalog): Promise<SchemaChanges> {
  const changes: SchemaChanges = { tables: new Map(), columns: new Map(), dropped: new Map(), retyped: [] };
  if (before.size === 0) return changes;
  const result = await client.query<{ oid: number; schema: string; name: string }>(
    `select c.oid::int as oid, n.nspname as schema, c.relname as name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = any($1::oid[])`,
    [[...before.keys()]],
  );
  for (const row of result.rows) {
    const old = before.get(row.oid)!;
    const oldKey = relationKey(old.schema, old.name);
    if (old.schema !== row.schema || old.name !== row.name) changes.tables.set(oldKey, { schema: row.schema, name: row.name });
    const oldRelation = oldCatalog.relations.get(oldKey);
    const newRelation = newCatalog.relations.get(relationKey(row.schema, row.name));
    if (oldRelation === undefined || newRelation === undefined) continue;
    const renamed = new Map<string, string>();
    const dropped = new Set<string>();
    for (const column of oldRelation.columns) {
      const now = newRelation.columns.find((candidate) => candidate.position === column.position);
      if (now === undefined) {
        dropped.add(column.name);
        continue;
      }
      if (now.name !== column.name) renamed.set(column.name, now.name);
      if (now.type !== column.type || now.udtName !== column.udtName || now.typeSchema !== column.typeSchema) {
        changes.retyped.push({ tableKey: oldKey, table: old, column: column.name });
      }
    }
    if (renamed.size > 0) changes.columns.set(oldKey, renamed);
    if (dropped.size > 0) changes.dropped.set(oldKey, dropped);
  }
  return changes;
}

/** Whether the metadata must follow: something was renamed, or a column dropped (its custom name goes with it). */
export function changesMetadata(changes: SchemaChanges): boolean {
  return changes.tables.size > 0 || changes.columns.size > 0 || changes.dropped.size > 0;
}

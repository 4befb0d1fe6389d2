import type { EngineClient } from '../../api/client';
import type { QualifiedName } from '../../api/metadata';

/** A table or view of the database, as information_schema lists it. */
export interface DatabaseTable extends QualifiedName {
  kind: string;
}

export interface ForeignKey {
  from: QualifiedName;
  columns: string[];
  to: QualifiedName;
  toColumns: string[];
}

const USER_SCHEMAS = "table_schema not in ('pg_catalog', 'information_schema', 'service_catalog', 'service_catalog_changes') and table_schema not like 'pg\\_%'";

/** Every table and view of the user's schemas (read through run_sql, as Hasura's console does). */
export async function listTables(client: EngineClient): Promise<DatabaseTable[]> {
  const rows = await client.sql(`select table_schema, table_name, table_type from information_schema.tables where ${USER_SCHEMAS} order by 1, 2`);
  return rows.map((row) => ({ schema: row.table_schema ?? '', name: row.table_name ?? '', kind: row.table_type === 'VIEW' ? 'view' : 'table' }));
}

export async function listColumns(client: EngineClient, table: QualifiedName): Promise<string[]> {
  const rows = await client.sql(
    `select column_name from information_schema.columns where table_schema = ${literal(table.schema)} and table_name = ${literal(table.name)} order by ordinal_position`,
  );
  return rows.map((row) => row.column_name ?? '');
}

/** The foreign keys from or to `table`: where relationships are suggested. */
export async function foreignKeysOf(client: EngineClient, table: QualifiedName): Promise<ForeignKey[]> {
  const rows = await client.sql(`
    select c.conname, fn.nspname as from_schema, fc.relname as from_table, tn.nspname as to_schema, tc.relname as to_table,
      (select json_agg(a.attname order by k.ord) from unnest(c.conkey) with ordinality k(num, ord) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.num) as columns,
      (select json_agg(a.attname order by k.ord) from unnest(c.confkey) with ordinality k(num, ord) join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.num) as to_columns
    from pg_constraint c
      join pg_class fc on fc.oid = c.conrelid join pg_namespace fn on fn.oid = fc.relnamespace
      join pg_class tc on tc.oid = c.confrelid join pg_namespace tn on tn.oid = tc.relnamespace
    where c.contype = 'f' and ((fn.nspname = ${literal(table.schema)} and fc.relname = ${literal(table.name)}) or (tn.nspname = ${literal(table.schema)} and tc.relname = ${literal(table.name)}))
    order by c.conname`);
  return rows.map((row) => ({
    from: { schema: row.from_schema ?? '', name: row.from_table ?? '' },
    columns: JSON.parse(row.columns ?? '[]') as string[],
    to: { schema: row.to_schema ?? '', name: row.to_table ?? '' },
    toColumns: JSON.parse(row.to_columns ?? '[]') as string[],
  }));
}

/** A SQL string literal: the console's catalog reads take names the user clicked, quoted here. */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

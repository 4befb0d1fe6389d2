import type { QualifiedName, TableConfiguration } from './types.js';

/** A table or function as Hasura names it in messages: bare in `public`, else `schema.name`. */
export function displayName(name: QualifiedName): string {
  return name.schema === 'public' ? name.name : `${name.schema}.${name.name}`;
}

/** `displayName` in double quotes, as Hasura's messages quote names. */
export function quoted(name: QualifiedName): string {
  return JSON.stringify(displayName(name));
}

/** Table names in relationship definitions may be bare strings, meaning schema `public`. */
export function toQualified(table: QualifiedName | string): QualifiedName {
  return typeof table === 'string' ? { schema: 'public', name: table } : table;
}

/** The GraphQL name a table's configuration gives a column (`column_config` first, then Hasura's older `custom_column_names`), if any. */
export function customColumnName(configuration: TableConfiguration | undefined, column: string): string | undefined {
  return configuration?.column_config?.[column]?.custom_name ?? configuration?.custom_column_names?.[column];
}

/** The column of a table whose custom GraphQL name is `name`, if any. */
export function columnWithCustomName(configuration: TableConfiguration | undefined, columns: readonly string[], name: string): string | undefined {
  return columns.find((column) => customColumnName(configuration, column) === name);
}

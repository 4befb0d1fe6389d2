import { sameTable, tablePositions } from './table-order.js';
import type { Metadata, QualifiedName, SourceEntry, TableEntry } from './types.js';

// Immutable edits of the metadata object: operations build the next metadata from the
// current one and never change an object another state may still serve.

export { sameTable };

/** Functions are named as tables are: `{schema, name}`. */
export const sameFunction = sameTable;

export function defaultSourceOf(metadata: Metadata): SourceEntry {
  const source = metadata.sources[0];
  if (source === undefined) throw new Error('metadata has no source');
  return source;
}

export function findTable(metadata: Metadata, table: QualifiedName): TableEntry | undefined {
  const tables = defaultSourceOf(metadata).tables;
  const [first] = tablePositions(tables, table);
  return first === undefined ? undefined : tables[first];
}

export function withSource(metadata: Metadata, change: (source: SourceEntry) => SourceEntry): Metadata {
  const [first, ...rest] = metadata.sources;
  if (first === undefined) throw new Error('metadata has no source');
  return { ...metadata, sources: [change(first), ...rest] };
}

export function withTables(metadata: Metadata, change: (tables: TableEntry[]) => TableEntry[]): Metadata {
  return withSource(metadata, (source) => ({ ...source, tables: change(source.tables) }));
}

/** Replaces the entry of `table` with what `change` makes of it. */
export function withTable(metadata: Metadata, table: QualifiedName, change: (entry: TableEntry) => TableEntry): Metadata {
  return withTables(metadata, (tables) => {
    const next = tables.slice();
    for (const index of tablePositions(tables, table)) next[index] = change(tables[index]!);
    return next;
  });
}

import type { QualifiedName, TableEntry } from './types.js';

/** Code-unit order, as the metadata export sorts its names (compat-facts 3.2). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The export order of table entries: by name, then schema. */
export function compareTables(a: QualifiedName, b: QualifiedName): number {
  return compareNames(a.name, b.name) || compareNames(a.schema, b.schema);
}

/**
 * Table lists known to be in export order: the lists normalize.ts returned. Metadata is never
 * changed in place (edit.ts), so such a list stays sorted for as long as it lives.
 */
const sortedLists = new WeakSet<readonly TableEntry[]>();

export function markSorted(tables: readonly TableEntry[]): void {
  sortedLists.add(tables);
}

/**
 * The positions of `table`'s entries (metadata written by other means may name a table
 * twice). In a sorted list they sit together and are found by bisection: operations look
 * their table up in every one of thousands of entries otherwise, each a property read of
 * entries of many shapes.
 */
export function tablePositions(tables: readonly TableEntry[], table: QualifiedName): number[] {
  const positions: number[] = [];
  if (!sortedLists.has(tables)) {
    for (let index = 0; index < tables.length; index++) if (sameTable(tables[index]!.table, table)) positions.push(index);
    return positions;
  }
  let low = 0;
  let high = tables.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareTables(tables[middle]!.table, table) < 0) low = middle + 1;
    else high = middle;
  }
  for (let index = low; index < tables.length && sameTable(tables[index]!.table, table); index++) positions.push(index);
  return positions;
}

/** Names first: of thousands of tables most share the schema, so the name settles it sooner. */
export function sameTable(a: QualifiedName, b: QualifiedName): boolean {
  return a.name === b.name && a.schema === b.schema;
}

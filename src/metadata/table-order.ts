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
  const low = firstAtOrAfter(tables, table, false);
  for (let index = low; index < tables.length && sameTable(tables[index]!.table, table); index++) positions.push(index);
  return positions;
}

/**
 * `tables` with `entry` added where export order puts it (after the entries of the same
 * table, as a stable sort of the list with it at the end would), so that the list stays
 * sorted and the edit stays a span of one entry (changed-span.ts); at the end of a list not
 * known to be sorted.
 */
export function withTableAdded(tables: readonly TableEntry[], entry: TableEntry): TableEntry[] {
  if (!sortedLists.has(tables)) return [...tables, entry];
  const at = firstAtOrAfter(tables, entry.table, true);
  const added = tables.slice(0, at).concat([entry], tables.slice(at));
  markSorted(added);
  return added;
}

/** In a sorted list, the first position whose table sorts after `table` (or at it, unless `after`). */
function firstAtOrAfter(tables: readonly TableEntry[], table: QualifiedName, after: boolean): number {
  let low = 0;
  let high = tables.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const order = compareTables(tables[middle]!.table, table);
    if (order < 0 || (after && order === 0)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Names first: of thousands of tables most share the schema, so the name settles it sooner. */
export function sameTable(a: QualifiedName, b: QualifiedName): boolean {
  return a.name === b.name && a.schema === b.schema;
}

import type { BoolExp, SelectPermission } from '../../../src/metadata/types.js';
import type { TableModel } from './table-model.js';

/**
 * The select permission a role reads a table with: its own, or for an inherited role the
 * combination of its parents' (Hasura's CombinedSelPermInfo): every column some parent
 * may read, the rows any parent may read, the largest of their limits, aggregations when
 * any allows them, the root fields any offers. A scalar computed field is offered only
 * when every parent lists it, since its value is not nulled row by row here.
 */
export function selectGrantOf(table: TableModel, role: string): SelectPermission | undefined {
  const own = table.selectPermissions.get(role);
  if (own !== undefined) return own;
  const parts = table.inheritedSelect.get(role);
  if (parts === undefined) return undefined;
  if (parts.length === 1) return parts[0];
  const limits = parts.flatMap((part) => (part.limit === undefined ? [] : [part.limit]));
  const computed = parts.map((part) => part.computed_fields ?? []);
  const combined: SelectPermission = {
    columns: parts.some((part) => part.columns === '*') ? '*' : [...new Set(parts.flatMap((part) => part.columns as string[]))],
    computed_fields: computed[0]!.filter((name) => computed.every((list) => list.includes(name))),
    filter: rowsOf(parts) ?? {},
    allow_aggregations: parts.some((part) => part.allow_aggregations === true),
  };
  if (limits.length > 0) combined.limit = Math.max(...limits);
  const queryRoots = unionOrAll(parts.map((part) => part.query_root_fields));
  if (queryRoots !== undefined) combined.query_root_fields = queryRoots;
  const subscriptionRoots = unionOrAll(parts.map((part) => part.subscription_root_fields));
  if (subscriptionRoots !== undefined) combined.subscription_root_fields = subscriptionRoots;
  return combined;
}

/**
 * For an inherited role whose parents see different columns on different rows: the rows
 * it may read and, for each column not every such row may show, the rows it shows on.
 * Null when every column shows on every readable row (the combined filter suffices).
 */
export function redactionsOf(table: TableModel, role: string): { filter: BoolExp | null; columns: Map<string, BoolExp> } | null {
  if (table.selectPermissions.has(role)) return null;
  const parts = table.inheritedSelect.get(role);
  if (parts === undefined || parts.length < 2) return null;
  const columns = new Map<string, BoolExp>();
  for (const column of table.columns) {
    const showing = parts.filter((part) => part.columns === '*' || part.columns.includes(column.name));
    if (showing.length === 0 || showing.length === parts.length) continue;
    const rows = rowsOf(showing);
    if (rows !== null) columns.set(column.name, rows);
  }
  return columns.size === 0 ? null : { filter: rowsOf(parts), columns };
}

/** The rows any of the permissions may read; null for all rows. */
function rowsOf(parts: readonly SelectPermission[]): BoolExp | null {
  if (parts.some((part) => isEmpty(part.filter))) return null;
  return parts.length === 1 ? parts[0]!.filter : { _or: parts.map((part) => part.filter) };
}

function unionOrAll(lists: ReadonlyArray<string[] | undefined>): string[] | undefined {
  if (lists.some((list) => list === undefined)) return undefined;
  return [...new Set(lists.flatMap((list) => list!))];
}

function isEmpty(filter: BoolExp | undefined): boolean {
  return filter === undefined || filter === null || Object.keys(filter).length === 0;
}

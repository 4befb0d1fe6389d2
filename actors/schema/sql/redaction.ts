import { quoteIdent } from '../../../src/pg/quote.js';
import type { TableAccess } from '../models/role-access.js';
import { readSource, type CompileContext } from './context.js';
import { columnRef } from './sql-text.js';
import { permissionCondition } from './where.js';

/**
 * What an inherited role reads of a table whose columns show on only some of its rows
 * (TableAccess.redacted): the rows it may read, each such column's value replaced by null
 * on the rows its parents may not see it on (Hasura's per-column CASE). Reading through
 * this rather than nulling values in the output keeps `where`, `order_by`, `distinct_on`
 * and aggregates from telling a hidden value.
 */
export function visibleRows(context: CompileContext, access: TableAccess, source: string): string {
  if (access.redacted === null) return source;
  const inner = context.aliases.fresh();
  const filter = access.redacted.filter === null ? null : permissionCondition(context, access.model, access.redacted.filter, inner);
  return `(select ${redactedColumns(context, access, inner)} from ${source} as ${quoteIdent(inner)}${filter === null ? '' : ` where ${filter}`})`;
}

/** `<table, or its visible rows> as "alias"`: a read of the table's rows by the role. */
export function readVisible(context: CompileContext, access: TableAccess, alias: string): string {
  return `${visibleRows(context, access, readSource(context, access))} as ${quoteIdent(alias)}`;
}

/** The table's columns of the row under `alias`, as the role sees them. */
export function redactedColumns(context: CompileContext, access: TableAccess, alias: string): string {
  return access.model.columns.map((column) => {
    const reference = columnRef(alias, column.name);
    const shownOn = access.redacted?.columns.get(column.name);
    if (shownOn === undefined) return reference;
    return `case when ${permissionCondition(context, access.model, shownOn, alias)} then ${reference} end as ${quoteIdent(column.name)}`;
  }).join(', ');
}

/** The condition the role's rows of a written table meet, on the raw row under `alias`; null when it reads every row. */
export function redactedFilter(context: CompileContext, access: TableAccess, alias: string): string | null {
  const filter = access.redacted?.filter ?? null;
  return filter === null ? null : permissionCondition(context, access.model, filter, alias);
}

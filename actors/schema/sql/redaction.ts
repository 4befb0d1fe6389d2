import type { BoolExp } from '../../../src/metadata/types.js';
import { quoteIdent } from '../../../src/pg/quote.js';
import type { TableAccess } from '../models/role-access.js';
import type { CompileContext } from './context.js';
import { columnRef } from './sql-text.js';

/**
 * What an inherited role reads of a table whose columns show on only some of its rows
 * (TableAccess.redacted): the rows it may read, each such column's value replaced by null
 * on the rows its parents may not see it on (Hasura's per-column CASE). Reading through
 * this rather than nulling values in the output keeps `where`, `order_by`, `distinct_on`
 * and aggregates from telling a hidden value. The conditions are permission filters on
 * the raw row, compiled by `condition` (where.ts, which reads related rows through this).
 */
export type RowCondition = (filter: BoolExp, alias: string) => string;

export function visibleRows(context: CompileContext, access: TableAccess, source: string, condition: RowCondition): string {
  if (access.redacted === null) return source;
  const inner = context.aliases.fresh();
  const filter = access.redacted.filter === null ? '' : ` where ${condition(access.redacted.filter, inner)}`;
  return `(select ${redactedColumns(access, inner, condition)} from ${source} as ${quoteIdent(inner)}${filter})`;
}

/** The table's columns of the raw row under `alias`, as the role sees them. */
export function redactedColumns(access: TableAccess, alias: string, condition: RowCondition): string {
  return access.model.columns.map((column) => {
    const reference = columnRef(alias, column.name);
    const shownOn = access.redacted?.columns.get(column.name);
    return shownOn === undefined ? reference : `case when ${condition(shownOn, alias)} then ${reference} end as ${quoteIdent(column.name)}`;
  }).join(', ');
}

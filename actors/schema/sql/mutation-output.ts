import type { TableAccess } from '../models/role-access.js';
import type { TableModel } from '../models/table-model.js';
import { mutationTypeNames } from '../models/mutation-names.js';
import { invariant } from '../../../src/errors/service-error.js';
import type { CompileContext } from './context.js';
import { collectFields, subSelections, type CollectedField } from './fields.js';
import { rowObject } from './select.js';
import { and, jsonObject, nameLiteral } from './sql-text.js';
import { permissionFilter, redactedView } from './where.js';
import { quoteIdent } from '../../../src/pg/quote.js';

/**
 * The JSON a mutation field answers, built from the rows it wrote: `<t>_mutation_response
 * { affected_rows returning {...} }` or, for the single-row fields, the row object or
 * null. Rows come from a `RowsSource`: a data-modifying CTE of the same statement, or
 * the table itself read back by `ctid` in a later statement of the same transaction
 * (needed when nested inserts wrote related rows the returned relationships must see).
 * Returned rows are filtered by the role's select permission, as every read is.
 */
export interface RowsSource {
  /** FROM item reading the rows under `alias`. */
  from(alias: string): string;
  /** Condition restricting them, or null. */
  where(alias: string): string | null;
  /** ORDER BY keeping input order, or null. */
  order(alias: string): string | null;
}

export function cteRows(cte: string): RowsSource {
  return { from: (alias) => `${quoteName(cte)} as ${quoteName(alias)}`, where: () => null, order: () => null };
}

function quoteName(name: string): string {
  invariant(/^_[a-z0-9_]+$/.test(name), `compiler alias ${name}`);
  return `"${name}"`;
}

/** `<t>_mutation_response`: `affected_rows` is given (it may count nested rows too). */
export function mutationResponse(context: CompileContext, model: TableModel, readable: TableAccess | undefined, rows: RowsSource, affectedRows: string, field: CollectedField): string {
  const typeName = mutationTypeNames.response(model.typeName);
  const pairs = collectFields(context, typeName, subSelections(field), field.path).map((sub): [string, string] => {
    if (sub.name === '__typename') return [sub.responseKey, nameLiteral(typeName)];
    if (sub.name === 'affected_rows') return [sub.responseKey, affectedRows];
    invariant(sub.name === 'returning' && readable !== undefined, `field ${sub.name} of ${typeName} is validated`);
    return [sub.responseKey, returningList(context, readable, rows, sub)];
  });
  return jsonObject(pairs);
}

/** The single-row fields (`insert_<t>_one`, `update_<t>_by_pk`, `delete_<t>_by_pk`): the row, or null. */
export function mutationRow(context: CompileContext, readable: TableAccess, rows: RowsSource, field: CollectedField): string {
  const alias = context.aliases.fresh();
  return `(select ${rowObject(context, readable, alias, field)} ${fromClause(context, readable, rows, alias).from} limit 1)`;
}

function returningList(context: CompileContext, readable: TableAccess, rows: RowsSource, field: CollectedField): string {
  const alias = context.aliases.fresh();
  const { from, rowAlias } = fromClause(context, readable, rows, alias);
  const order = rows.order(rowAlias);
  return `(select coalesce(json_agg(${rowObject(context, readable, alias, field)}${order === null ? '' : ` order by ${order}`}), '[]') ${from})`;
}

/**
 * Reads the written rows the role may read under `alias`. For an inherited role that sees
 * some columns on part of its rows, the rows are read under `rowAlias` and seen under
 * `alias` through a lateral subquery of their redacted columns (redaction.ts).
 */
function fromClause(context: CompileContext, readable: TableAccess, rows: RowsSource, alias: string): { from: string; rowAlias: string } {
  const rowAlias = readable.redacted === null ? alias : context.aliases.fresh();
  const redacted = readable.redacted === null ? null : redactedView(context, readable, rowAlias);
  const conditions: string[] = [];
  const restriction = rows.where(rowAlias);
  if (restriction !== null) conditions.push(restriction);
  const filter = redacted === null ? permissionFilter(context, readable, alias) : redacted.filter;
  if (filter !== null) conditions.push(filter);
  const view = redacted === null ? '' : ` cross join lateral (select ${redacted.columns}) as ${quoteIdent(alias)}`;
  return { from: `from ${rows.from(rowAlias)}${view}${conditions.length === 0 ? '' : ` where ${and(conditions)}`}`, rowAlias };
}

/** Whether every row satisfies `condition` (a permission check on `alias`); true when there are no rows. */
export function allRows(rows: RowsSource, alias: string, condition: string): string {
  const restriction = rows.where(alias);
  return `(select coalesce(bool_and(${condition}), true) from ${rows.from(alias)}${restriction === null ? '' : ` where ${restriction}`})`;
}

/** Counts the rows of the source. */
export function countRows(rows: RowsSource, alias: string): string {
  const restriction = rows.where(alias);
  return `(select count(*) from ${rows.from(alias)}${restriction === null ? '' : ` where ${restriction}`})::int`;
}

import { errors } from '../../../src/errors/errors.js';
import type { TableAccess } from '../models/role-access.js';
import { quoteIdent } from '../../../src/pg/quote.js';
import { readSource, type CompileContext } from './context.js';
import { argumentsOf, type CollectedField } from './fields.js';
import type { Input } from './input.js';
import { cappedCount, rowCount } from './limit.js';
import { compileOrderBy, renderOrderKeys, type OrderKey } from './order-by.js';
import { and, columnRef } from './sql-text.js';
import { compileWhere, permissionFilter, visibleRows } from './where.js';

/**
 * The rows a list or aggregate field reads: its table under an alias, filtered by the
 * join to its parent, the role's permission and `where`, then sorted and cut by
 * `order_by`, `distinct_on`, `limit` (capped by the permission's) and `offset`.
 */
export interface RowSet {
  access: TableAccess;
  alias: string;
  /** What the rows are read from: the table, or a function call returning its rows. */
  source: string;
  conditions: string[];
  orderKeys: OrderKey[];
  distinctOn: string[];
  /** Literals (limit.ts): PostgreSQL plans a small limit as small. */
  limit: number | null;
  offset: number | null;
}

/** `capped` false leaves out the permission's limit, for the caller to apply elsewhere (compileAggregate). */
export function rowSet(context: CompileContext, access: TableAccess, field: CollectedField, join?: (alias: string) => string, source?: string, capped = true): RowSet {
  const { reader } = context;
  const alias = context.aliases.fresh();
  const args = argumentsOf(field);
  const conditions = rowConditions(context, access, alias, args.get('where'), join);

  const orderBy = args.get('order_by');
  let orderKeys = orderBy === undefined ? [] : compileOrderBy(context, access, alias, orderBy);

  const distinctInput = args.get('distinct_on');
  const distinctOn = distinctInput === undefined || reader.isNull(distinctInput)
    ? []
    : reader.items(distinctInput).map((item) => columnRef(alias, access.columnsByField.get(reader.name(item))!.name));
  if (distinctOn.length > 0) {
    // Postgres requires DISTINCT ON expressions to lead the ORDER BY; Hasura refuses otherwise.
    const leading = new Set(orderKeys.slice(0, distinctOn.length).map((key) => key.expression));
    if (orderKeys.length === 0) orderKeys = distinctOn.map((expression) => ({ expression, direction: 'asc', nulls: 'last' }));
    else if (!distinctOn.every((expression) => leading.has(expression))) {
      throw errors.distinctOnMismatch(`${field.path}.args`);
    }
  }

  const limitInput = args.get('limit');
  const requested = limitInput === undefined || reader.isNull(limitInput) ? null : rowCount(reader, limitInput);
  const limit = cappedCount(requested, capped ? access.limit : null);

  const offsetInput = args.get('offset');
  const offset = offsetInput === undefined || reader.isNull(offsetInput) ? null : rowCount(reader, offsetInput);

  return { access, alias, source: visibleRows(context, access, source ?? readSource(context, access)), conditions, orderKeys, distinctOn, limit, offset };
}

/** What every read of a field's rows starts from: the join to its parent row, the role's permission and `where`. */
export function rowConditions(context: CompileContext, access: TableAccess, alias: string, where: Input | undefined, join?: (alias: string) => string): string[] {
  const conditions: string[] = [];
  if (join !== undefined) conditions.push(join(alias));
  const filter = permissionFilter(context, access, alias);
  if (filter !== null) conditions.push(filter);
  if (where !== undefined) {
    const condition = compileWhere(context, access, alias, where);
    if (condition !== 'true') conditions.push(condition);
  }
  return conditions;
}

/**
 * The FROM clause reading the rows. Without a limit, offset or distinct_on the table is
 * read directly; otherwise through a subquery that cuts the rows first, so that nested
 * selections are only evaluated for the rows returned.
 */
export function renderRows(rows: RowSet): string {
  const table = `${rows.source} as ${quoteIdent(rows.alias)}`;
  const where = rows.conditions.length === 0 ? '' : ` where ${and(rows.conditions)}`;
  if (rows.limit === null && rows.offset === null && rows.distinctOn.length === 0) return `from ${table}${where}`;
  const distinct = rows.distinctOn.length === 0 ? '' : `distinct on (${rows.distinctOn.join(', ')}) `;
  const order = rows.orderKeys.length === 0 ? '' : ` order by ${renderOrderKeys(rows.orderKeys)}`;
  const limit = rows.limit === null ? '' : ` limit ${rows.limit}`;
  const offset = rows.offset === null ? '' : ` offset ${rows.offset}`;
  return `from (select ${distinct}* from ${table}${where}${order}${limit}${offset}) as ${quoteIdent(rows.alias)}`;
}

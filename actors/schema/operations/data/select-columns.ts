import { errors } from '../../../../src/errors/errors.js';
import type { BoolExp } from '../../../../src/metadata/types.js';
import type { TableAccess } from '../../models/role-access.js';
import type { CompileContext } from '../../sql/context.js';
import { permissionInput } from '../../sql/input.js';
import { tableAccessOf } from '../../sql/context.js';
import { joinCondition } from '../../sql/relationships.js';
import { and, columnRef, jsonObject } from '../../sql/sql-text.js';
import { spatialOutput } from '../../sql/output-value.js';
import { compileSqlNamedWhere, permissionFilter, readVisible } from '../../sql/where.js';
import { notAllowed, permittedColumn, type DataAccess } from './access.js';
import { orderByClause, type OrderByArg } from './order-by.js';

/**
 * `select`'s `columns` (RQL/Types `SelCol`): `"*"` for every column the role may read, a
 * column name, or a relationship `{name, alias, columns, where, order_by, limit, offset}` whose
 * rows are read under the role's permission on the related table, as GraphQL reads them.
 */
export type SelectColumn = string | RelationshipSelect;

export interface RelationshipSelect {
  name: string;
  /** The key of the relationship in each row, instead of its name. */
  alias?: string;
  columns: SelectColumn[];
  where?: BoolExp;
  order_by?: OrderByArg;
  limit?: number;
  offset?: number;
}

/**
 * The rows of a table the role reads: the permission's filter, the request's `where`.
 * The `where` names only what the role may read, as GraphQL's; like a permission's filter
 * (Hasura's DML parses both alike) it may write `{column: value}` for `_eq` and use
 * `X-Service-*` session variables as values.
 */
export function rowConditions(context: CompileContext, table: TableAccess, alias: string, where: BoolExp | undefined, path: string): string[] {
  const conditions: string[] = [];
  const filter = permissionFilter(context, table, alias);
  if (filter !== null) conditions.push(filter);
  if (where !== undefined) {
    const condition = compileSqlNamedWhere(context, table, alias, permissionInput(where, path));
    if (condition !== 'true') conditions.push(condition);
  }
  return conditions;
}

/** LIMIT and OFFSET as literals (integers checked non-negative here, ARCHITECTURE decision 5), capped by the permission's limit. */
export function limitClause(table: TableAccess, limit: number | undefined, offset: number | undefined, path: string): string {
  if (limit !== undefined && limit < 0) throw errors.notSupported(`${path}.limit`, 'unexpected negative value');
  if (offset !== undefined && offset < 0) throw errors.notSupported(`${path}.offset`, 'unexpected negative value');
  const capped = limit === undefined ? table.limit : table.limit === null ? limit : Math.min(limit, table.limit);
  return `${capped === null ? '' : ` limit ${capped}`}${offset === undefined ? '' : ` offset ${offset}`}`;
}

/** The JSON object of one row under `alias`, with the requested columns in the order asked. */
export function rowObject(context: CompileContext, access: DataAccess, table: TableAccess, alias: string, columns: readonly SelectColumn[], path: string): string {
  const byName = new Map(table.columns.map((column) => [column.name, column]));
  const pairs = new Map<string, string>();
  columns.forEach((item, index) => {
    const itemPath = `${path}[${index}]`;
    if (item === '*') {
      for (const column of table.columns) if (!pairs.has(column.name)) pairs.set(column.name, spatialOutput(column.type, columnRef(alias, column.name)));
    } else if (typeof item === 'string') {
      const column = permittedColumn(access, byName, 'select', item, itemPath);
      if (!pairs.has(column.name)) pairs.set(column.name, spatialOutput(column.type, columnRef(alias, column.name)));
    } else {
      pairs.set(item.alias ?? item.name, relationshipValue(context, access, table, alias, item, itemPath));
    }
  });
  return jsonObject([...pairs]);
}

function relationshipValue(context: CompileContext, access: DataAccess, table: TableAccess, alias: string, select: RelationshipSelect, path: string): string {
  const relationship = table.model.relationships.find((candidate) => candidate.name === select.name);
  if (relationship === undefined) throw errors.notExists(`${path}.name`, `relationship ${JSON.stringify(select.name)} not found on table ${JSON.stringify(table.model.typeName)}`);
  if (!context.access.tables.has(relationship.target)) notAllowed(access, 'select', access.model.tables.get(relationship.target)!, path);
  const target = tableAccessOf(context, relationship.target);
  const child = context.aliases.fresh();
  const conditions = [joinCondition(relationship, alias, child), ...rowConditions(context, target, child, select.where, `${path}.where`)];
  const object = rowObject(context, access, target, child, select.columns, `${path}.columns`);
  const from = `from ${readVisible(context, target, child)} where ${and(conditions)}`;
  if (relationship.kind === 'object') return `(select ${object} ${from} limit 1)`;
  const order = orderByClause(context, access, target, child, select.order_by, `${path}.order_by`);
  const rows = context.aliases.fresh();
  return `(select coalesce(json_agg("${rows}"."j"), '[]') from (select ${object} as "j" ${from}${order}${limitClause(target, select.limit, select.offset, path)}) as "${rows}")`;
}

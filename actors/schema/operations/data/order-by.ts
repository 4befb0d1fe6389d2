import { errors } from '../../../../src/errors/errors.js';
import type { TableAccess } from '../../models/role-access.js';
import { tableAccessOf, type CompileContext } from '../../sql/context.js';
import { joinCondition } from '../../sql/relationships.js';
import { and, columnRef } from '../../sql/sql-text.js';
import { permissionFilter, readVisible } from '../../sql/where.js';
import { notAllowed, permittedColumn, type DataAccess } from './access.js';

/**
 * Hasura's v1 `order_by` (RQL/Types `OrderByExp`): one item or a list, each a string
 * `"+col"`, `"-col"` or `"col"` (ascending), or `{column, type: "asc"|"desc", nulls:
 * "first"|"last"}`. A column may be reached through object relationships
 * (`"author.name"`), whose rows are read under the role's permission as any other read.
 * Without `nulls`, PostgreSQL's default applies (nulls last ascending, first descending),
 * as in Hasura.
 */
export type OrderByItem = string | { column: string; type?: 'asc' | 'desc'; nulls?: 'first' | 'last' };
export type OrderByArg = OrderByItem | OrderByItem[];

export function orderByClause(context: CompileContext, access: DataAccess, table: TableAccess, alias: string, arg: OrderByArg | undefined, path: string): string {
  if (arg === undefined) return '';
  const items = Array.isArray(arg) ? arg.map((item, index) => ({ item, path: `${path}[${index}]` })) : [{ item: arg, path }];
  if (items.length === 0) return '';
  const keys = items.map(({ item, path: itemPath }) => {
    const { name, direction, nulls } = orderKey(item);
    const value = orderValue(context, access, table, alias, name.split('.'), typeof item === 'string' ? itemPath : `${itemPath}.column`);
    return `${value} ${direction}${nulls === undefined ? '' : ` nulls ${nulls}`}`;
  });
  return ` order by ${keys.join(', ')}`;
}

/** The value a column path orders by: the column itself, or through object relationships a scalar subquery. */
function orderValue(context: CompileContext, access: DataAccess, table: TableAccess, alias: string, names: string[], path: string): string {
  const [name, ...rest] = names as [string, ...string[]];
  if (rest.length === 0) {
    const columns = new Map(table.columns.map((column) => [column.name, column]));
    return columnRef(alias, permittedColumn(access, columns, 'select', name, path).name);
  }
  const relationship = table.model.relationships.find((candidate) => candidate.name === name);
  if (relationship === undefined || relationship.kind !== 'object') throw errors.notExists(path, `no object relationship ${JSON.stringify(name)} on table ${JSON.stringify(table.model.typeName)}`);
  if (!context.access.tables.has(relationship.target)) notAllowed(access, 'select', access.model.tables.get(relationship.target)!, path);
  const target = tableAccessOf(context, relationship.target);
  const child = context.aliases.fresh();
  const filter = permissionFilter(context, target, child);
  const conditions = [joinCondition(relationship, alias, child), ...(filter === null ? [] : [filter])];
  const value = orderValue(context, access, target, child, rest, path);
  return `(select ${value} from ${readVisible(context, target, child)} where ${and(conditions)} limit 1)`;
}

function orderKey(item: OrderByItem): { name: string; direction: 'asc' | 'desc'; nulls?: 'first' | 'last' } {
  if (typeof item !== 'string') return { name: item.column, direction: item.type ?? 'asc', ...(item.nulls === undefined ? {} : { nulls: item.nulls }) };
  if (item.startsWith('-')) return { name: item.slice(1), direction: 'desc' };
  return { name: item.startsWith('+') ? item.slice(1) : item, direction: 'asc' };
}

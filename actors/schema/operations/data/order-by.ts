import type { TableAccess } from '../../models/role-access.js';
import { columnRef } from '../../sql/sql-text.js';
import { permittedColumn, type DataAccess } from './access.js';

/**
 * Hasura's v1 `order_by` (RQL/Types `OrderByExp`): one item or a list, each a string
 * `"+col"`, `"-col"` or `"col"` (ascending), or `{column, type: "asc"|"desc", nulls:
 * "first"|"last"}`. Without `nulls`, PostgreSQL's default applies (nulls last ascending,
 * first descending), as in Hasura.
 */
export type OrderByItem = string | { column: string; type?: 'asc' | 'desc'; nulls?: 'first' | 'last' };
export type OrderByArg = OrderByItem | OrderByItem[];

export function orderByClause(access: DataAccess, table: TableAccess, alias: string, arg: OrderByArg | undefined, path: string): string {
  if (arg === undefined) return '';
  const items = Array.isArray(arg) ? arg.map((item, index) => ({ item, path: `${path}[${index}]` })) : [{ item: arg, path }];
  if (items.length === 0) return '';
  const columns = new Map(table.columns.map((column) => [column.name, column]));
  const keys = items.map(({ item, path: itemPath }) => {
    const { name, direction, nulls } = orderKey(item);
    const column = permittedColumn(access, columns, 'select', name, typeof item === 'string' ? itemPath : `${itemPath}.column`);
    return `${columnRef(alias, column.name)} ${direction}${nulls === undefined ? '' : ` nulls ${nulls}`}`;
  });
  return ` order by ${keys.join(', ')}`;
}

function orderKey(item: OrderByItem): { name: string; direction: 'asc' | 'desc'; nulls?: 'first' | 'last' } {
  if (typeof item !== 'string') return { name: item.column, direction: item.type ?? 'asc', ...(item.nulls === undefined ? {} : { nulls: item.nulls }) };
  if (item.startsWith('-')) return { name: item.slice(1), direction: 'desc' };
  return { name: item.startsWith('+') ? item.slice(1) : item, direction: 'asc' };
}

import { errors } from '../../../src/errors/errors.js';
import { invariant } from '../../../src/errors/service-error.js';
import { quoteIdent } from '../../../src/pg/quote.js';
import { relayNames } from '../models/relay-access.js';
import type { TableAccess } from '../models/role-access.js';
import { readSource, type CompileContext } from './context.js';
import { cursorCondition, cursorExpression, cursorKeys } from './cursor.js';
import { argumentsOf, collectFields, subSelections, type CollectedField } from './fields.js';
import type { Input } from './input.js';
import { rowCount } from './limit.js';
import { compileOrderBy, renderOrderKeys, type OrderKey } from './order-by.js';
import { and, columnRef, jsonObject, nameLiteral, or } from './sql-text.js';
import { rowObject } from './select.js';
import { rowConditions } from './row-set.js';
import { visibleRows } from './where.js';

/**
 * `<t>_connection(where, order_by, distinct_on, first, last, after, before)` (Relay's
 * connections spec, as Hasura serves it): the rows the role may read, filtered by `where`,
 * sorted by `order_by` then the primary key (so that every row has a place a cursor can
 * name), cut by the cursors, then the first or last `first`/`last` of them (capped by the
 * permission's limit), as `{edges {cursor node} pageInfo}`. One page reads one more row
 * than it shows, which says whether more follow; `after` and `before` say whether rows
 * lie on their other side.
 */
const RANK = '__relay_rank';

/** How a connection's rows attach to the row selecting them (an array relationship). */
type Join = (alias: string) => string;

/** `source` reads the rows from elsewhere than the table: a function call returning them. */
export function compileConnection(context: CompileContext, access: TableAccess, field: CollectedField, join?: Join, source?: string): string {
  const args = argumentsOf(field);
  const present = (name: string): Input | undefined => {
    const input = args.get(name);
    return input === undefined || context.reader.isNull(input) ? undefined : input;
  };
  if (present('first') !== undefined && present('last') !== undefined) throw errors.firstAndLast(field.path);
  if (present('after') !== undefined && present('before') !== undefined) throw errors.afterAndBefore(field.path);
  const first = count(context, present('first'));
  const last = count(context, present('last'));
  const backward = last !== null;
  const requested = first ?? last;
  const pageSize = requested !== null && access.limit !== null ? Math.min(requested, access.limit) : (requested ?? access.limit);

  const alias = context.aliases.fresh();
  const filtered = filteredRows(context, access, alias, field, args, join, source);
  const ordered = filtered.orderKeys;
  const cursorInput = present('after') ?? present('before');
  const keys = cursorKeys(access, alias, ordered);
  if (cursorInput !== undefined && keys === null) throw errors.cursorOnRelatedOrder(field.path);
  const side = present('after') !== undefined ? 'after' : 'before';
  const placed = cursorInput === undefined ? null : cursorCondition(context, keys!, alias, context.reader.name(cursorInput), side, field.path);

  const pageKeys = backward ? ordered.map(reverse) : ordered;
  const page = `select ${quoteIdent(alias)}.*, row_number() over (order by ${renderOrderKeys(pageKeys)}) as ${quoteIdent(RANK)}`
    + ` from (${filtered.sql}) as ${quoteIdent(alias)}${placed === null ? '' : ` where ${placed}`}`
    + ` order by ${renderOrderKeys(pageKeys)}${pageSize === null ? '' : ` limit ${pageSize + 1}`}`;
  const shown = pageSize === null ? '' : ` filter (where ${columnRef(alias, RANK)} <= ${pageSize})`;
  // Made only when selected: its parameters must be the statement's.
  let cursorSql: string | undefined;
  const cursor = (): string => (cursorSql ??= keys === null ? 'null' : cursorExpression(context, keys, alias));
  // Rows on the cursor's other side: does a page lie before `after`, or after `before`?
  const beyondCursor = placed === null ? 'false' : `exists (select 1 from (${filtered.sql}) as ${quoteIdent(alias)} where not (${placed}))`;
  const more = pageSize === null ? 'false' : `count(*) > ${pageSize}`;
  const flags = {
    hasNextPage: or([backward ? 'false' : more, side === 'before' ? beyondCursor : 'false'].filter((part) => part !== 'false')),
    hasPreviousPage: or([backward ? more : 'false', side === 'after' ? beyondCursor : 'false'].filter((part) => part !== 'false')),
  };

  const connectionType = relayNames.connection(access.model.typeName);
  const pairs = collectFields(context, connectionType, subSelections(field), field.path).map((sub): [string, string] => {
    if (sub.name === '__typename') return [sub.responseKey, nameLiteral(connectionType)];
    if (sub.name === 'edges') return [sub.responseKey, `coalesce(json_agg(${edgeObject(context, access, alias, sub, cursor)} order by ${renderOrderKeys(ordered)})${shown}, '[]')`];
    invariant(sub.name === 'pageInfo', `field ${sub.name} of ${connectionType} is validated`);
    return [sub.responseKey, pageInfoObject(context, sub, {
      startCursor: () => `(array_agg(${cursor()} order by ${renderOrderKeys(ordered)})${shown})[1]`,
      endCursor: () => `(array_agg(${cursor()} order by ${renderOrderKeys(ordered.map(reverse))})${shown})[1]`,
      hasNextPage: () => flags.hasNextPage,
      hasPreviousPage: () => flags.hasPreviousPage,
    })];
  });
  return `(select ${jsonObject(pairs)} from (${page}) as ${quoteIdent(alias)})`;
}

function edgeObject(context: CompileContext, access: TableAccess, alias: string, field: CollectedField, cursor: () => string): string {
  const edgeType = relayNames.edge(access.model.typeName);
  return jsonObject(collectFields(context, edgeType, subSelections(field), field.path).map((sub): [string, string] => {
    if (sub.name === '__typename') return [sub.responseKey, nameLiteral(edgeType)];
    if (sub.name === 'cursor') return [sub.responseKey, cursor()];
    invariant(sub.name === 'node', `field ${sub.name} of ${edgeType} is validated`);
    return [sub.responseKey, rowObject(context, access, alias, sub)];
  }));
}

function pageInfoObject(context: CompileContext, field: CollectedField, values: Record<string, () => string>): string {
  return jsonObject(collectFields(context, relayNames.pageInfo, subSelections(field), field.path).map((sub): [string, string] => {
    if (sub.name === '__typename') return [sub.responseKey, nameLiteral(relayNames.pageInfo)];
    const value = values[sub.name];
    invariant(value !== undefined, `field ${sub.name} of PageInfo is validated`);
    return [sub.responseKey, value()];
  }));
}

/**
 * The rows before paging: join, permission filter and `where`, `distinct_on` applied, and
 * the order the page follows: `order_by`, then the primary key columns it does not name.
 */
function filteredRows(context: CompileContext, access: TableAccess, alias: string, field: CollectedField, args: Map<string, Input>, join?: Join, source?: string): { sql: string; orderKeys: OrderKey[] } {
  const { reader } = context;
  const conditions = rowConditions(context, access, alias, args.get('where'), join);
  const orderBy = args.get('order_by');
  const requested = orderBy === undefined ? [] : compileOrderBy(context, access, alias, orderBy);
  const named = new Set(requested.map((key) => key.expression));
  const orderKeys: OrderKey[] = [
    ...requested,
    ...access.model.primaryKey.map((column): OrderKey => ({ expression: columnRef(alias, column.name), direction: 'asc', nulls: 'last' })).filter((key) => !named.has(key.expression)),
  ];
  const distinctInput = args.get('distinct_on');
  const distinctOn = distinctInput === undefined || reader.isNull(distinctInput)
    ? []
    : reader.items(distinctInput).map((item) => columnRef(alias, access.columnsByField.get(reader.name(item))!.name));
  // Postgres requires DISTINCT ON expressions to lead the ORDER BY; Hasura refuses otherwise.
  if (distinctOn.length > 0 && !distinctOn.every((expression) => requested.slice(0, distinctOn.length).some((key) => key.expression === expression))) {
    throw errors.distinctOnMismatch(`${field.path}.args`);
  }
  const table = `${visibleRows(context, access, source ?? readSource(context, access))} as ${quoteIdent(alias)}`;
  const whereText = conditions.length === 0 ? '' : ` where ${and(conditions)}`;
  const sql = distinctOn.length === 0
    ? `select * from ${table}${whereText}`
    : `select distinct on (${distinctOn.join(', ')}) * from ${table}${whereText} order by ${renderOrderKeys(orderKeys)}`;
  return { sql, orderKeys };
}

function reverse(key: OrderKey): OrderKey {
  return { expression: key.expression, direction: key.direction === 'asc' ? 'desc' : 'asc', nulls: key.nulls === 'first' ? 'last' : 'first' };
}

/**
 * `first` or `last`: a page size, written into the statement as LIMIT (ARCHITECTURE
 * decision 5), so a variable's value shapes the plan. Hasura refuses a negative one.
 */
function count(context: CompileContext, input: Input | undefined): number | null {
  return input === undefined ? null : rowCount(context.reader, input);
}

import type { TableAccess } from '../models/role-access.js';
import type { RelationshipModel } from '../models/table-model.js';
import type { ComputedFieldModel } from '../models/function-model.js';
import { functionCall, rowArgument } from './function-call.js';
import { invariant } from '../../../src/errors/service-error.js';
import { tableAccessOf, type CompileContext } from './context.js';
import { AGGREGATE_FUNCTIONS } from '../models/aggregate-functions.js';
import { compileComputedScalar } from './computed-scalar.js';
import type { Input } from './input.js';
import { joinCondition } from './relationships.js';
import { and, columnRef } from './sql-text.js';
import { quoteIdent } from '../../../src/pg/quote.js';
import { permissionFilter, readVisible } from './where.js';

/**
 * `order_by: [<table>_order_by!]` to sort keys: columns, columns of object relationships
 * (any depth) and aggregates of array relationships, each related table filtered by the
 * role's permission on it. Each key is an expression over the table's alias, so the
 * same text sorts the limited subquery and orders `json_agg` outside it.
 */
export interface OrderKey {
  expression: string;
  direction: 'asc' | 'desc';
  nulls: 'first' | 'last';
}

/** Hasura's `order_by` enum: `asc` puts nulls last and `desc` puts them first, as Postgres does. */
const DIRECTIONS: Record<string, Pick<OrderKey, 'direction' | 'nulls'>> = {
  asc: { direction: 'asc', nulls: 'last' },
  asc_nulls_first: { direction: 'asc', nulls: 'first' },
  asc_nulls_last: { direction: 'asc', nulls: 'last' },
  desc: { direction: 'desc', nulls: 'first' },
  desc_nulls_first: { direction: 'desc', nulls: 'first' },
  desc_nulls_last: { direction: 'desc', nulls: 'last' },
};

export function compileOrderBy(context: CompileContext, access: TableAccess, alias: string, input: Input): OrderKey[] {
  if (context.reader.isNull(input)) return [];
  return context.reader.items(input).flatMap((item) => orderKeys(context, access, alias, item));
}

export function renderOrderKeys(keys: readonly OrderKey[]): string {
  return keys.map((key) => `${key.expression} ${key.direction} nulls ${key.nulls}`).join(', ');
}

function orderKeys(context: CompileContext, access: TableAccess, alias: string, input: Input): OrderKey[] {
  const { reader } = context;
  if (reader.isNull(input)) return [];
  const keys: OrderKey[] = [];
  for (const [name, value] of reader.fields(input)) {
    if (reader.isNull(value)) continue;
    const target = access.fields.get(name);
    if (target === undefined) {
      // `<computed field>_aggregate`, the only order_by field not named after a field.
      const computed = access.fields.get(name.replace(/_aggregate$/, ''));
      invariant(name.endsWith('_aggregate') && computed?.kind === 'computed-table', `order_by field ${name} is in the role's schema`);
      keys.push(...aggregateKeys(context, computedRows(context, access, alias, computed.field), value));
      continue;
    }
    if (target.kind === 'column') {
      keys.push({ expression: columnRef(alias, target.column.name), ...direction(context, value) });
    } else if (target.kind === 'object-relationship') {
      const related = relatedRows(context, target.relationship, alias);
      for (const key of orderKeys(context, related.access, related.alias, value)) {
        keys.push({ ...key, expression: `(select ${key.expression} ${related.from})` });
      }
    } else if (target.kind === 'array-aggregate') {
      keys.push(...aggregateKeys(context, relatedRows(context, target.relationship, alias), value));
    } else if (target.kind === 'computed-scalar') {
      keys.push({ expression: compileComputedScalar(context, access, alias, target.field, null), ...direction(context, value) });
    }
  }
  return keys;
}

/** Rows to aggregate for a sort key: `from ... where ...` under `alias`, filtered by the role's permission on them. */
interface AggregatedRows {
  access: TableAccess;
  alias: string;
  from: string;
}

/** `<rel>_aggregate: {count: desc, max: {rating: asc}}`: one key per aggregate, over the related rows. */
function aggregateKeys(context: CompileContext, related: AggregatedRows, input: Input): OrderKey[] {
  const { reader } = context;
  const keys: OrderKey[] = [];
  for (const [name, value] of reader.fields(input)) {
    if (reader.isNull(value)) continue;
    if (name === 'count') {
      keys.push({ expression: `(select count(*) ${related.from})`, ...direction(context, value) });
      continue;
    }
    invariant(AGGREGATE_FUNCTIONS.includes(name), `aggregate ${name} is in the role's schema`);
    for (const [field, order] of reader.fields(value)) {
      if (reader.isNull(order)) continue;
      const column = related.access.columnsByField.get(field);
      invariant(column !== undefined, `aggregate order column ${field} is permitted`);
      keys.push({ expression: `(select ${name}(${columnRef(related.alias, column.name)}) ${related.from})`, ...direction(context, order) });
    }
  }
  return keys;
}

/** The rows a SETOF-table computed field returns for the row under `parentAlias`, as the role may read them. */
function computedRows(context: CompileContext, access: TableAccess, parentAlias: string, field: ComputedFieldModel): AggregatedRows {
  invariant(field.returns.kind === 'table', 'an aggregated computed field returns rows');
  const relatedAccess = tableAccessOf(context, field.returns.table);
  const call = functionCall(context, { function: field.function, arguments: field.arguments, args: undefined, row: rowArgument(parentAlias, access.model.table) });
  const alias = context.aliases.fresh();
  const filter = permissionFilter(context, relatedAccess, alias);
  return { access: relatedAccess, alias, from: `from ${call} as ${quoteIdent(alias)}${filter === null ? '' : ` where ${filter}`}` };
}

/** `from <related table> where <join> and <role's filter>`, under a fresh alias. */
function relatedRows(context: CompileContext, relationship: RelationshipModel, parentAlias: string): AggregatedRows {
  const relatedAccess = tableAccessOf(context, relationship.target);
  const alias = context.aliases.fresh();
  const conditions = [joinCondition(relationship, parentAlias, alias)];
  const filter = permissionFilter(context, relatedAccess, alias);
  if (filter !== null) conditions.push(filter);
  return { access: relatedAccess, alias, from: `from ${readVisible(context, relatedAccess, alias)} where ${and(conditions)}` };
}

function direction(context: CompileContext, input: Input): Pick<OrderKey, 'direction' | 'nulls'> {
  const value = DIRECTIONS[context.reader.name(input)];
  invariant(value !== undefined, 'order_by enum value is validated');
  return value;
}

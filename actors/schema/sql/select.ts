import { errors } from '../../../src/errors/errors.js';
import type { TableAccess } from '../models/role-access.js';
import type { ComputedFieldModel } from '../models/function-model.js';
import type { ColumnModel, RelationshipModel } from '../models/table-model.js';
import { typeNames } from '../models/type-names.js';
import { invariant } from '../../../src/errors/service-error.js';
import { compileAggregateSelection } from './aggregate.js';
import { compileComputedScalar } from './computed-scalar.js';
import { functionCall, rowArgument } from './function-call.js';
import { tableAccessOf, type CompileContext } from './context.js';
import { argumentsOf, collectFields, subSelections, type CollectedField } from './fields.js';
import { rowSet, renderRows, type RowSet } from './row-set.js';
import { renderOrderKeys } from './order-by.js';
import { parseJsonPath } from './json-path.js';
import { joinCondition } from './relationships.js';
import { and, columnRef, jsonObject, nameLiteral } from './sql-text.js';
import { permissionFilter, readVisible } from './where.js';
import { outputValue, scalarOutput } from './output-value.js';

/**
 * Selections of table rows as JSON: lists (`<t>`, array relationships), single rows
 * (`<t>_by_pk`, object relationships) and aggregates, nested to any depth as correlated
 * subqueries, so the whole operation stays one statement.
 */

/** `<t>(where, order_by, limit, offset, distinct_on) { ... }` as a JSON array. */
export function compileList(context: CompileContext, access: TableAccess, field: CollectedField, join?: Join, source?: string): string {
  const rows = rowSet(context, access, field, join, source);
  return `(select coalesce(json_agg(${rowObject(context, rows.access, rows.alias, field)}${aggregateOrder(rows)}), '[]') ${renderRows(rows)})`;
}

/** `<t>_aggregate(...) { aggregate {...} nodes {...} }` as a JSON object. */
export function compileAggregate(context: CompileContext, access: TableAccess, field: CollectedField, join?: Join, source?: string): string {
  const typeName = typeNames.aggregate(access.model.typeName);
  const selections = collectFields(context, typeName, subSelections(field), field.path);
  // As Hasura (its PermissionLimitSubQuery): with aggregates asked, the permission's limit
  // caps the nodes returned, not the rows aggregated, which are every row the filter allows.
  const nodesCapped = access.limit !== null && selections.some((sub) => sub.name === 'aggregate');
  const rows = rowSet(context, access, field, join, source, !nodesCapped);
  const pairs = selections.map((sub): [string, string] => {
    if (sub.name === '__typename') return [sub.responseKey, nameLiteral(typeName)];
    if (sub.name === 'nodes') return [sub.responseKey, nodesArray(context, rows, sub, nodesCapped)];
    invariant(sub.name === 'aggregate', `field ${sub.name} of ${typeName} is validated`);
    return [sub.responseKey, compileAggregateSelection(context, rows.access, rows.alias, sub)];
  });
  return `(select ${jsonObject(pairs)} ${renderRows(rows)})`;
}

/** The `nodes` of an aggregate field; the first `limit` of them when the permission's limit caps them. */
function nodesArray(context: CompileContext, rows: RowSet, field: CollectedField, capped: boolean): string {
  const row = rowObject(context, rows.access, rows.alias, field);
  if (!capped) return `coalesce(json_agg(${row}${aggregateOrder(rows)}), '[]')`;
  const cap = context.params.add({ kind: 'constant', value: rows.access.limit }, 'int4');
  return `coalesce(to_json((array_agg(${row}${aggregateOrder(rows)}))[1:${cap}]), '[]')`;
}

/** `<t>_by_pk(<pk columns>) { ... }`: the row, or null. */
export function compileByPk(context: CompileContext, access: TableAccess, field: CollectedField): string {
  const alias = context.aliases.fresh();
  const args = argumentsOf(field);
  const conditions = access.model.primaryKey.map((column) => {
    const input = args.get(column.fieldName);
    invariant(input !== undefined, 'primary key arguments are required');
    return `${columnRef(alias, column.name)} = ${context.reader.param(input, context.params, column.type.sqlType, 'plain', column.type.scalar)}`;
  });
  const filter = permissionFilter(context, access, alias);
  if (filter !== null) conditions.push(filter);
  return `(select ${rowObject(context, access, alias, field)} from ${readVisible(context, access, alias)} where ${and(conditions)})`;
}

/** How a relationship's rows attach to the row that selects them: a condition on the related alias. */
type Join = (alias: string) => string;

function relationshipJoin(relationship: RelationshipModel, parentAlias: string): Join {
  return (alias) => joinCondition(relationship, parentAlias, alias);
}

/** One row as a JSON object of the selected fields, keys in selection order. */
export function rowObject(context: CompileContext, access: TableAccess, alias: string, field: CollectedField): string {
  const typeName = typeNames.object(access.model.typeName);
  const pairs = collectFields(context, typeName, subSelections(field), field.path).map((sub): [string, string] => [
    sub.responseKey,
    fieldValue(context, access, alias, sub, typeName),
  ]);
  return jsonObject(pairs);
}

function fieldValue(context: CompileContext, access: TableAccess, alias: string, field: CollectedField, typeName: string): string {
  if (field.name === '__typename') return nameLiteral(typeName);
  // The Relay API's `id` replaces a column of that name, so it is asked first.
  const relay = context.relayField?.(context, access, alias, field);
  if (relay !== undefined) return relay;
  const target = access.fields.get(field.name);
  // graphql-js validated the query against this role's schema, built from the same access.
  if (target === undefined) throw errors.fieldNotFound(field.path, field.name, typeName);
  switch (target.kind) {
    case 'column':
      return columnValue(context, alias, target.column, field);
    case 'object-relationship':
      return compileObjectRelationship(context, target.relationship, alias, field);
    case 'array-relationship':
      return compileList(context, tableAccessOf(context, target.relationship.target), field, relationshipJoin(target.relationship, alias));
    case 'array-aggregate':
      return compileAggregate(context, tableAccessOf(context, target.relationship.target), field, relationshipJoin(target.relationship, alias));
    case 'computed-scalar':
      return scalarOutput(context, target.field, compileComputedScalar(context, access, alias, target.field, field));
    case 'computed-table':
      return compileComputedTable(context, access, alias, target.field, field);
  }
}

/** A column's value; a json or jsonb column with a `path` argument gives the value at that path (or null). */
function columnValue(context: CompileContext, alias: string, column: ColumnModel, field: CollectedField): string {
  const reference = columnRef(alias, column.name);
  const pathInput = argumentsOf(field).get('path');
  if (pathInput === undefined || context.reader.isNull(pathInput)) return outputValue(context, column.type, reference);
  const elements = parseJsonPath(context.reader.name(pathInput));
  if (!Array.isArray(elements)) throw errors.invalidJsonPath(pathInput.path, elements.error);
  if (elements.length === 0) return reference;
  return `(${reference} #> ${context.params.add({ kind: 'constant', value: elements }, 'text[]')})`;
}

function compileObjectRelationship(context: CompileContext, relationship: RelationshipModel, parentAlias: string, field: CollectedField): string {
  const access = tableAccessOf(context, relationship.target);
  const alias = context.aliases.fresh();
  const conditions = [joinCondition(relationship, parentAlias, alias)];
  const filter = permissionFilter(context, access, alias);
  if (filter !== null) conditions.push(filter);
  // A manual relationship may match several rows; a scalar subquery must yield one.
  const limit = relationship.manual ? ' limit 1' : '';
  return `(select ${rowObject(context, access, alias, field)} from ${readVisible(context, access, alias)} where ${and(conditions)}${limit})`;
}

function aggregateOrder(rows: RowSet): string {
  return rows.orderKeys.length === 0 ? '' : ` order by ${renderOrderKeys(rows.orderKeys)}`;
}

/** A table computed field of the row under `alias`: the rows its function returns for that row. */
export function compileComputedTable(context: CompileContext, access: TableAccess, alias: string, field: ComputedFieldModel, node: CollectedField): string {
  invariant(field.returns.kind === 'table', 'a table computed field returns rows');
  const returned = tableAccessOf(context, field.returns.table);
  const call = functionCall(context, { function: field.function, arguments: field.arguments, args: argumentsOf(node).get('args'), row: rowArgument(alias, access.model.table) });
  if (field.returns.returnsSet) return compileList(context, returned, node, undefined, call);
  return compileSingleRow(context, returned, node, call);
}

/** A function returning one row (not SETOF): that row as an object, or null (compat-facts 6.2). */
export function compileSingleRow(context: CompileContext, access: TableAccess, field: CollectedField, call: string): string {
  const rows = rowSet(context, access, field, undefined, call);
  return `(select ${rowObject(context, rows.access, rows.alias, field)} ${renderRows(rows)} limit 1)`;
}

import type { TableAccess } from '../models/role-access.js';
import { typeNames } from '../models/type-names.js';
import { invariant } from '../../../src/errors/service-error.js';
import type { CompileContext } from './context.js';
import { argumentsOf, collectFields, subSelections, type CollectedField } from './fields.js';
import { AGGREGATE_FUNCTIONS } from '../models/aggregate-functions.js';
import { compileComputedScalar } from './computed-scalar.js';
import { columnRef, jsonObject, nameLiteral } from './sql-text.js';
import { outputValue, scalarOutput } from './output-value.js';

/**
 * The `aggregate { count(columns, distinct) sum {...} avg {...} ... }` object of an
 * aggregate field, as aggregate calls over the row set under `alias`.
 */
export function compileAggregateSelection(context: CompileContext, access: TableAccess, alias: string, field: CollectedField): string {
  const table = access.model.typeName;
  const typeName = typeNames.aggregateFields(table);
  const pairs = collectFields(context, typeName, subSelections(field), field.path).map((sub): [string, string] => {
    if (sub.name === '__typename') return [sub.responseKey, nameLiteral(typeName)];
    if (sub.name === 'count') return [sub.responseKey, countCall(context, access, alias, sub)];
    invariant(AGGREGATE_FUNCTIONS.includes(sub.name), `aggregate ${sub.name} is validated`);
    return [sub.responseKey, functionObject(context, access, alias, sub, sub.name)];
  });
  return jsonObject(pairs);
}

/** `count`, `count(columns: [a])` (non-null values), `count(columns: [a, b], distinct: true)`. */
function countCall(context: CompileContext, access: TableAccess, alias: string, field: CollectedField): string {
  const { reader } = context;
  const args = argumentsOf(field);
  const columnsInput = args.get('columns');
  const distinctInput = args.get('distinct');
  const columns = columnsInput === undefined || reader.isNull(columnsInput) ? [] : reader.items(columnsInput).map((item) => access.columnsByField.get(reader.name(item))!.name);
  return countExpression(alias, columns, distinctInput !== undefined && !reader.isNull(distinctInput) && reader.boolean(distinctInput));
}

/** The count of rows under `alias`, or of the non-null (distinct) values of some columns. */
export function countExpression(alias: string, columns: string[], distinct: boolean): string {
  // Without columns there is nothing to be distinct on: every row counts (as in Hasura).
  if (columns.length === 0) return 'count(*)';
  const references = columns.map((column) => columnRef(alias, column));
  const argument = references.length === 1 ? references[0]! : `(${references.join(', ')})`;
  return `count(${distinct ? 'distinct ' : ''}${argument})`;
}

/** `sum { a b }`: one object of `sum(a)`, `sum(b)`. */
function functionObject(context: CompileContext, access: TableAccess, alias: string, field: CollectedField, fn: string): string {
  const typeName = typeNames.aggregateFunctionFields(access.model.typeName, fn);
  const pairs = collectFields(context, typeName, subSelections(field), field.path).map((sub): [string, string] => {
    if (sub.name === '__typename') return [sub.responseKey, nameLiteral(typeName)];
    const column = access.columnsByField.get(sub.name);
    if (column !== undefined) return [sub.responseKey, outputValue(context, column.type, `${fn}(${columnRef(alias, column.name)})`)];
    const computed = access.fields.get(sub.name);
    invariant(computed?.kind === 'computed-scalar', `aggregated field ${sub.name} is a permitted column or scalar computed field`);
    return [sub.responseKey, scalarOutput(context, computed.field, `${fn}(${compileComputedScalar(context, access, alias, computed.field, sub)})`)];
  });
  return jsonObject(pairs);
}

import type { ColumnList, SelectPermission } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import { qualifiedTable, type TableModel } from '../models/table-model.js';
import type { ModelLookups } from './permission-check-memo.js';
import { INT_TYPE, type ColumnType } from '../models/column-types.js';
import { inputArgumentsOf } from '../models/function-model.js';
import { operatorNamed } from '../models/operators.js';
import { operandValueProblem } from '../models/extension-values.js';
import { connectiveKey, operatorKey } from '../models/bool-exp-keys.js';

export interface PermissionProblem {
  /** JSON path of the offending part, relative to the permission object (`$.filter.author.name`). */
  path: string;
  message: string;
}

const COLUMN_OPERATORS = new Set(['_ceq', '_cne', '_cneq', '_cgt', '_clt', '_cgte', '_clte']);

/**
 * Checks a select permission against the database and the tracked tables: its columns
 * exist, and its filter names only columns, operators, relationships and tables that
 * exist. Used by the consistency check (a permission left broken by a dropped column is
 * an inconsistent object) and by `create_select_permission` before it commits.
 */
export function selectPermissionProblem(model: ModelLookups, catalog: Catalog, tableKey: string, permission: SelectPermission): PermissionProblem | null {
  const table = model.tables.get(tableKey);
  const relation = catalog.relations.get(tableKey);
  if (table === undefined || relation === undefined) return { path: '$', message: 'the table is not tracked' };
  const columns = columnsProblem(new Set(relation.columns.map((column) => column.name)), permission.columns, '$.columns');
  if (columns !== null) return columns;
  if (permission.limit !== undefined && (!Number.isInteger(permission.limit) || permission.limit < 0)) {
    return { path: '$.limit', message: 'unexpected negative value' };
  }
  return filterProblem(model, table, table, permission.filter ?? {}, '$.filter');
}

/** The first listed column the table lacks (`"*"` lists none). */
export function columnsProblem(names: ReadonlySet<string>, columns: ColumnList | undefined, path: string): PermissionProblem | null {
  if (columns === undefined || columns === '*') return null;
  const index = columns.findIndex((column) => !names.has(column));
  return index < 0 ? null : { path: `${path}[${index}]`, message: `no such column exists: ${JSON.stringify(columns[index])}` };
}

/** Checks a permission's boolean expression (`filter`, `check`) on `table`. */
export function filterProblem(model: ModelLookups, table: TableModel, root: TableModel, filter: unknown, path: string): PermissionProblem | null {
  if (!isObject(filter)) return { path, message: 'expected an object for a boolean expression' };
  for (const [key, value] of Object.entries(filter)) {
    const problem = fieldProblem(model, table, root, key, value, `${path}.${key}`);
    if (problem !== null) return problem;
  }
  return null;
}

function fieldProblem(model: ModelLookups, table: TableModel, root: TableModel, written: string, value: unknown, path: string): PermissionProblem | null {
  const key = connectiveKey(written);
  if (key === '_and' || key === '_or') {
    if (!Array.isArray(value)) return { path, message: `expected an array for ${written}` };
    for (const [index, item] of value.entries()) {
      const problem = filterProblem(model, table, root, item, `${path}[${index}]`);
      if (problem !== null) return problem;
    }
    return null;
  }
  if (key === '_not') return filterProblem(model, table, root, value, path);
  if (key === '_exists') {
    if (!isObject(value) || value._table === undefined) return { path, message: `${written} needs _table and _where` };
    const name = qualifiedTable(value._table as { schema: string; name: string } | string);
    const target = model.tables.get(relationKey(name.schema, name.name));
    if (target === undefined) return { path: `${path}._table`, message: `table ${JSON.stringify(name.name)} is not tracked` };
    return filterProblem(model, target, root, value._where ?? {}, `${path}._where`);
  }
  const column = table.columnsByName.get(key);
  if (column !== undefined) return comparisonProblem(table, root, column.type, value, path);
  const computed = model.functions.computedFields.get(table.key)?.find((field) => field.name === key);
  if (computed !== undefined) {
    // Boolean expressions give a computed field no `args` (as in Hasura).
    if (inputArgumentsOf(computed.arguments).length > 0) {
      return { path, message: `computed field ${JSON.stringify(key)} takes arguments; only one without arguments can be used in a boolean expression` };
    }
    if (computed.returns.kind === 'scalar') return comparisonProblem(table, root, computed.returns.type, value, path);
    const target = model.tables.get(computed.returns.table);
    if (target === undefined) return { path, message: `table returned by computed field ${JSON.stringify(key)} is not tracked` };
    return filterProblem(model, target, root, value, path);
  }
  const relationship = table.relationships.find((candidate) => candidate.name === key);
  if (relationship !== undefined) {
    const target = model.tables.get(relationship.target);
    if (target === undefined) return { path, message: `table of relationship ${JSON.stringify(key)} is not tracked` };
    return filterProblem(model, target, root, value, path);
  }
  const aggregated = table.relationships.find((candidate) => candidate.kind === 'array' && `${candidate.name}_aggregate` === key);
  if (aggregated !== undefined) {
    const target = model.tables.get(aggregated.target);
    if (target === undefined) return { path, message: `table of relationship ${JSON.stringify(aggregated.name)} is not tracked` };
    return aggregateProblem(model, target, root, value, path);
  }
  return { path, message: `no such column or relationship exists: ${JSON.stringify(key)}` };
}

/** `<rel>_aggregate: {count: {arguments, distinct, filter, predicate}}` over the related `table`. */
function aggregateProblem(model: ModelLookups, table: TableModel, root: TableModel, value: unknown, path: string): PermissionProblem | null {
  if (!isObject(value)) return { path, message: 'expected an object for an aggregate boolean expression' };
  for (const [name, count] of Object.entries(value)) {
    const at = `${path}.${name}`;
    if (name !== 'count') return { path: at, message: `unknown aggregate ${JSON.stringify(name)}; only count is supported` };
    if (!isObject(count) || !isObject(count.predicate)) return { path: at, message: 'count needs a predicate' };
    const columns = count.arguments ?? [];
    if (!Array.isArray(columns)) return { path: `${at}.arguments`, message: 'expected an array of columns' };
    for (const [index, column] of columns.entries()) {
      if (typeof column !== 'string' || !table.columnsByName.has(column)) return { path: `${at}.arguments[${index}]`, message: `no such column exists: ${JSON.stringify(column)}` };
    }
    if (count.distinct !== undefined && typeof count.distinct !== 'boolean') return { path: `${at}.distinct`, message: 'expected a boolean' };
    const problem = (count.filter === undefined ? null : filterProblem(model, table, root, count.filter, `${at}.filter`)) ?? comparisonProblem(table, root, INT_TYPE, count.predicate, `${at}.predicate`);
    if (problem !== null) return problem;
  }
  return null;
}

/** The operators applied to a column or a scalar computed field of type `type`. */
function comparisonProblem(table: TableModel, root: TableModel, type: ColumnType, value: unknown, path: string): PermissionProblem | null {
  if (!isObject(value)) return null;
  for (const [written, operand] of Object.entries(value)) {
    const operator = operatorKey(written);
    if (COLUMN_OPERATORS.has(operator)) {
      const [scope, name] = Array.isArray(operand) && operand.length === 2 && operand[0] === '$' ? [root, operand[1]] : [table, operand];
      if (typeof name !== 'string' || !scope.columnsByName.has(name)) return { path: `${path}.${written}`, message: `no such column exists: ${JSON.stringify(name)}` };
    } else {
      const known = operatorNamed(type, operator);
      if (known === undefined) return { path: `${path}.${written}`, message: `unknown operator ${JSON.stringify(written)} for a column of type ${JSON.stringify(type.scalar)}` };
      const problem = operandValueProblem(type, known.operand, operand);
      if (problem !== null) return { path: `${path}.${written}`, message: problem };
    }
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

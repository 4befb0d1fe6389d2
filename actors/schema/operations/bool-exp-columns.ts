import type { BoolExp, QualifiedName } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import { connectiveKey, operatorKey } from '../models/bool-exp-keys.js';
import { inputArgumentsOf } from '../models/function-model.js';
import { qualifiedTable, type SourceModel } from '../models/table-model.js';

/** What a walk over a boolean expression does with each column and table it names. */
export interface ColumnVisitor {
  /** The column's name from now on (the same to keep it); called for every column the expression names. */
  column(tableKey: string, column: string): string;
  /** An `_exists` table's name from now on. */
  table(table: QualifiedName): QualifiedName;
}

const COLUMN_COMPARISONS: ReadonlySet<string> = new Set(['_ceq', '_cne', '_cneq', '_cgt', '_clt', '_cgte', '_clte']);

/**
 * A permission's boolean expression on `tableKey` with every column it names, on its own
 * table or on one it reaches through relationships, their aggregates, table computed
 * fields and `_exists`, passed through `visitor` (Hasura's column dependencies of a
 * permission). Names resolve against the model and catalog the expression was written
 * for; what does not resolve stays as written.
 */
export function mapBoolExpColumns(model: SourceModel, catalog: Catalog, tableKey: string, expression: BoolExp, visitor: ColumnVisitor): BoolExp {
  return walk({ model, catalog, visitor, rootKey: tableKey }, tableKey, expression) as BoolExp;
}

interface Walk {
  model: SourceModel;
  catalog: Catalog;
  visitor: ColumnVisitor;
  rootKey: string;
}

/**
 * Reads each key as where.ts's boolExp does, in the same order: a connective, a column,
 * a computed field, a relationship, then a `<relationship>_aggregate`. `_and` and `_or`
 * are lists here: where.ts would take one object as a list of one, but the consistency
 * check refuses that in metadata, as Hasura's parser does.
 */
function walk(context: Walk, tableKey: string, expression: unknown): unknown {
  if (!isRecord(expression)) return expression;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(expression)) {
    const connective = connectiveKey(key);
    if (connective === '_and' || connective === '_or') out[key] = Array.isArray(value) ? value.map((item) => walk(context, tableKey, item)) : value;
    else if (connective === '_not') out[key] = walk(context, tableKey, value);
    else if (connective === '_exists') out[key] = existsClause(context, value);
    else if (hasColumn(context, tableKey, key)) out[context.visitor.column(tableKey, key)] = comparison(context, tableKey, value);
    else out[key] = namedField(context, tableKey, key, value);
  }
  return out;
}

/** A key that is not a column: a computed field, a relationship or an aggregate; what does not resolve stays as written. */
function namedField(context: Walk, tableKey: string, key: string, value: unknown): unknown {
  const computed = context.model.functions.computedFields.get(tableKey)?.find((field) => field.name === key && inputArgumentsOf(field.arguments).length === 0);
  if (computed !== undefined) return computed.returns.kind === 'table' ? walk(context, computed.returns.table, value) : comparison(context, tableKey, value);
  const relationships = context.model.tables.get(tableKey)?.relationships ?? [];
  const related = relationships.find((relationship) => relationship.name === key);
  if (related !== undefined) return walk(context, related.target, value);
  const aggregated = relationships.find((relationship) => relationship.kind === 'array' && `${relationship.name}_aggregate` === key);
  return aggregated === undefined ? value : aggregateClause(context, aggregated.target, value);
}

/**
 * `{count: {arguments, distinct, filter, predicate}}`: `filter` and the `arguments`
 * columns are the related table's (the consistency check takes `arguments` only as a list).
 */
function aggregateClause(context: Walk, targetKey: string, value: unknown): unknown {
  if (!isRecord(value) || !isRecord(value.count)) return value;
  const count: Record<string, unknown> = { ...value.count };
  if (count.filter !== undefined) count.filter = walk(context, targetKey, count.filter);
  if (Array.isArray(count.arguments)) count.arguments = count.arguments.map((name) => columnName(context, targetKey, name));
  return { ...value, count };
}

function existsClause(context: Walk, value: unknown): unknown {
  if (!isRecord(value) || (typeof value._table !== 'string' && !isRecord(value._table))) return value;
  const table = qualifiedTable(value._table as QualifiedName | string);
  const renamed = context.visitor.table(table);
  const bare = typeof value._table === 'string' && renamed.schema === 'public';
  const out: Record<string, unknown> = { ...value, _table: renamed === table ? value._table : bare ? renamed.name : renamed };
  if (value._where !== undefined) out._where = walk(context, relationKey(table.schema, table.name), value._where);
  return out;
}

/** A column's operators; `_ceq`-style ones name a column of this table, or (`["$", c]`) of the permission's. */
function comparison(context: Walk, tableKey: string, value: unknown): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, operand] of Object.entries(value)) {
    if (!COLUMN_COMPARISONS.has(operatorKey(key))) out[key] = operand;
    else if (typeof operand === 'string') out[key] = columnName(context, tableKey, operand);
    else if (Array.isArray(operand) && operand.length === 2 && operand[0] === '$') out[key] = ['$', columnName(context, context.rootKey, operand[1])];
    else out[key] = operand;
  }
  return out;
}

/** A column named by a string of the expression, passed through the visitor; anything else as written. */
function columnName(context: Walk, tableKey: string, name: unknown): unknown {
  return typeof name === 'string' && hasColumn(context, tableKey, name) ? context.visitor.column(tableKey, name) : name;
}

function hasColumn(context: Walk, tableKey: string, name: string): boolean {
  return context.catalog.relations.get(tableKey)?.columns.some((column) => column.name === name) ?? false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

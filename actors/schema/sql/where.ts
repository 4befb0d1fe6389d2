import { errors } from '../../../src/errors/errors.js';
import { qualifiedTable, type ColumnModel, type RelationshipModel, type TableModel } from '../models/table-model.js';
import type { TableAccess } from '../models/role-access.js';
import { relationKey } from '../../../src/pg/catalog.js';
import type { BoolExp } from '../../../src/metadata/types.js';
import { INT_TYPE, siblingType, type ColumnType } from '../models/column-types.js';
import { readFrom, readSource, tableAccessOf, type CompileContext } from './context.js';
import { redactedColumns, visibleRows as visibleRowsOf } from './redaction.js';
import { inputArgumentsOf, type ComputedFieldModel } from '../models/function-model.js';
import { quoteIdent } from '../../../src/pg/quote.js';
import { countExpression } from './aggregate.js';
import { functionCall, rowArgument } from './function-call.js';
import { permissionInput, type Input } from './input.js';
import { operatorNamed, type OperandKind } from '../models/operators.js';
import { CAST_TARGETS, isObjectOperand } from '../models/extension-operators.js';
import { connectiveKey, operatorKey } from '../models/bool-exp-keys.js';
import { operandParam } from './operand-params.js';
import { objectOperandArguments } from './extension-operands.js';
import { joinCondition } from './relationships.js';
import { and, columnRef, or } from './sql-text.js';

/**
 * Boolean expressions (`<table>_bool_exp`) to SQL conditions. The same grammar serves
 * two masters:
 * - a query's `where`: only the role's permitted columns and relationships are names,
 *   and every related table traversed is filtered by the role's own permission on it;
 * - a permission's `filter` from the metadata: any column or relationship of the table,
 *   no nested permissions (Hasura evaluates permission filters as the admin), plus the
 *   permission-only `_exists` and column comparisons (`_ceq`...), and `X-Service-*`
 *   strings standing for session variables.
 * Both read Hasura's `$` spelling of keywords in JSON-written expressions (bool-exp-keys.ts).
 */
interface Scope {
  mode: 'query' | 'permission';
  table: TableModel;
  /** The role's access to the table; the query grammar resolves names through it. */
  access: TableAccess | null;
  alias: string;
  /** The permission's own table, for `["$", column]` references. */
  rootAlias: string;
  /** A query's columns named as in SQL rather than GraphQL (the v1 data API, as Hasura's DML): still only the role's. */
  sqlNames?: boolean;
}

/** The condition of a query's `where` argument on `access`'s table under `alias`. */
export function compileWhere(context: CompileContext, access: TableAccess, alias: string, input: Input): string {
  return boolExp(context, { mode: 'query', table: access.model, access, alias, rootAlias: alias }, input);
}

/** The same for the v1 data API, whose `where` names columns as SQL does (custom column names do not apply). */
export function compileSqlNamedWhere(context: CompileContext, access: TableAccess, alias: string, input: Input): string {
  return boolExp(context, { mode: 'query', table: access.model, access, alias, rootAlias: alias, sqlNames: true }, input);
}

/** The role's row filter on the table under `alias`, or null when the role reads every row. */
export function permissionFilter(context: CompileContext, access: TableAccess, alias: string): string | null {
  if (access.filter === null) return null;
  const scope: Scope = { mode: 'permission', table: access.model, access: null, alias, rootAlias: alias };
  return boolExp(context, scope, permissionInput(access.filter, '$'));
}

/** The rows of `access`'s table (or of `source`) the role reads, as it sees them (redaction.ts). */
export function visibleRows(context: CompileContext, access: TableAccess, source: string): string {
  return visibleRowsOf(context, access, source, (filter, alias) => permissionCondition(context, access.model, filter, alias));
}

/** `<table, or its visible rows> as "alias"`: a read of the table's rows by the role. */
export function readVisible(context: CompileContext, access: TableAccess, alias: string): string {
  return `${visibleRows(context, access, readSource(context, access))} as ${quoteIdent(alias)}`;
}

/** For rows read raw under `alias` (written rows): the role's view of their columns and the filter of its rows (redaction.ts). */
export function redactedView(context: CompileContext, access: TableAccess, alias: string): { columns: string; filter: string | null } {
  const condition = (filter: BoolExp, on: string) => permissionCondition(context, access.model, filter, on);
  const filter = access.redacted?.filter ?? null;
  return { columns: redactedColumns(access, alias, condition), filter: filter === null ? null : condition(filter, alias) };
}

/** A permission's boolean expression (an insert or update `check`, an update or delete `filter`) on `table` under `alias`. */
export function permissionCondition(context: CompileContext, table: TableModel, filter: BoolExp, alias: string): string {
  const scope: Scope = { mode: 'permission', table, access: null, alias, rootAlias: alias };
  return boolExp(context, scope, permissionInput(filter, '$'));
}

function boolExp(context: CompileContext, scope: Scope, input: Input): string {
  if (context.reader.isNull(input)) return 'true';
  const conditions: string[] = [];
  for (const [key, value] of context.reader.fields(input)) {
    if (context.reader.isNull(value)) continue;
    const condition = fieldCondition(context, scope, key, value);
    if (condition !== 'true') conditions.push(condition);
  }
  return and(conditions);
}

function fieldCondition(context: CompileContext, scope: Scope, key: string, value: Input): string {
  const { reader } = context;
  switch (value.source === 'permission' ? connectiveKey(key) : key) {
    case '_and':
      return and(reader.items(value).map((item) => boolExp(context, scope, item)).filter((condition) => condition !== 'true'));
    case '_or':
      return or(reader.items(value).map((item) => boolExp(context, scope, item)));
    case '_not':
      return `not (${boolExp(context, scope, value)})`;
    case '_exists':
      if (scope.mode === 'permission') return existsCondition(context, scope, value);
  }
  const column = columnOf(scope, key);
  if (column !== undefined) return comparison(context, scope, column, value);
  const computed = computedFieldNamed(context, scope, key);
  if (computed !== undefined) return computedFieldCondition(context, scope, computed, value);
  const relationship = relationshipNamed(scope, key);
  if (relationship !== undefined) return relationshipCondition(context, scope, relationship, value);
  const aggregated = aggregatedRelationshipNamed(scope, key);
  if (aggregated !== undefined) return aggregateCondition(context, scope, aggregated, value);
  throw errors.fieldNotFound(value.path, key, `${scope.table.typeName}_bool_exp`);
}

/**
 * A computed field without arguments of its own (Hasura's boolean expressions take no
 * `args`): in a query, one the role may use; in a permission, any of the table's.
 */
function computedFieldNamed(context: CompileContext, scope: Scope, name: string): ComputedFieldModel | undefined {
  if (scope.mode === 'query') {
    const target = scope.access!.fields.get(name);
    const field = target?.kind === 'computed-scalar' || target?.kind === 'computed-table' ? target.field : undefined;
    return field !== undefined && takesNoArguments(field) ? field : undefined;
  }
  const field = context.model.functions.computedFields.get(scope.table.key)?.find((candidate) => candidate.name === name);
  return field !== undefined && takesNoArguments(field) ? field : undefined;
}

function takesNoArguments(field: ComputedFieldModel): boolean {
  return inputArgumentsOf(field.arguments).length === 0;
}

/**
 * A scalar computed field compares its value, as a column does. A table computed field
 * holds when some row it returns satisfies the nested expression; in a query the rows
 * are also filtered by the role's permission on the returned table, as rows reached
 * through a relationship are (Hasura's translation leaves that filter out; a `where`
 * must not reveal rows the role cannot read).
 */
function computedFieldCondition(context: CompileContext, scope: Scope, field: ComputedFieldModel, value: Input): string {
  const call = functionCall(context, { function: field.function, arguments: field.arguments, args: undefined, row: rowArgument(scope.alias, scope.table.table) });
  if (field.returns.kind === 'scalar') return comparison(context, scope, { subject: call, type: field.returns.type }, value);
  const alias = context.aliases.fresh();
  const conditions: string[] = [];
  let nested: Scope;
  if (scope.mode === 'query') {
    const access = tableAccessOf(context, field.returns.table);
    const filter = permissionFilter(context, access, alias);
    if (filter !== null) conditions.push(filter);
    nested = { mode: 'query', table: access.model, access, alias, rootAlias: alias, ...(scope.sqlNames === true ? { sqlNames: true } : {}) };
  } else {
    nested = { mode: 'permission', table: context.model.tables.get(field.returns.table)!, access: null, alias, rootAlias: scope.rootAlias };
  }
  const inner = boolExp(context, nested, value);
  if (inner !== 'true') conditions.push(inner);
  return `exists (select 1 from ${call} as ${quoteIdent(alias)}${conditions.length === 0 ? '' : ` where ${and(conditions)}`})`;
}

function relationshipNamed(scope: Scope, name: string): RelationshipModel | undefined {
  if (scope.mode === 'permission') return scope.table.relationships.find((relationship) => relationship.name === name);
  const target = scope.access!.fields.get(name);
  return target?.kind === 'object-relationship' || target?.kind === 'array-relationship' ? target.relationship : undefined;
}

/** A filter through a relationship holds when some related row satisfies it. */
function relationshipCondition(context: CompileContext, scope: Scope, relationship: RelationshipModel, value: Input): string {
  const alias = context.aliases.fresh();
  const conditions = [joinCondition(relationship, scope.alias, alias)];
  const { scope: nested, filter } = relatedScope(context, scope, relationship, alias);
  if (filter !== null) conditions.push(filter);
  const inner = boolExp(context, nested, value);
  if (inner !== 'true') conditions.push(inner);
  return `exists (select 1 from ${readRelated(context, nested, alias)} where ${and(conditions)})`;
}

/** `<rel>_aggregate`: in a query, an aggregate field the role may use; in a permission, any array relationship's. */
function aggregatedRelationshipNamed(scope: Scope, name: string): RelationshipModel | undefined {
  if (scope.mode === 'permission') return scope.table.relationships.find((relationship) => relationship.kind === 'array' && `${relationship.name}_aggregate` === name);
  const target = scope.access!.fields.get(name);
  return target?.kind === 'array-aggregate' ? target.relationship : undefined;
}

/**
 * `<rel>_aggregate: {count: {arguments, distinct, filter, predicate}}`: the related rows
 * (in a query, only those the role may read), narrowed by `filter` and counted, satisfy
 * `predicate`.
 */
function aggregateCondition(context: CompileContext, scope: Scope, relationship: RelationshipModel, value: Input): string {
  const { reader } = context;
  const conditions: string[] = [];
  for (const [name, input] of reader.fields(value)) {
    if (reader.isNull(input)) continue;
    if (name !== 'count') throw errors.fieldNotFound(input.path, name, `${scope.table.typeName}_aggregate_bool_exp`);
    const alias = context.aliases.fresh();
    const nested = relatedScope(context, scope, relationship, alias);
    const rows = [joinCondition(relationship, scope.alias, alias)];
    if (nested.filter !== null) rows.push(nested.filter);
    const args = new Map(reader.fields(input));
    const filterInput = args.get('filter');
    if (filterInput !== undefined) {
      const filter = boolExp(context, nested.scope, filterInput);
      if (filter !== 'true') rows.push(filter);
    }
    const columnsInput = args.get('arguments');
    const columns = columnsInput === undefined || reader.isNull(columnsInput) ? [] : reader.items(columnsInput).map((item) => columnNamed(nested.scope, reader.name(item), item));
    const distinctInput = args.get('distinct');
    const count = countExpression(alias, columns, distinctInput !== undefined && !reader.isNull(distinctInput) && reader.boolean(distinctInput));
    const predicate = args.get('predicate');
    if (predicate === undefined || reader.isNull(predicate)) throw errors.missingField(input.path, 'predicate');
    const subject = `(select ${count} from ${readRelated(context, nested.scope, alias)} where ${and(rows)})`;
    conditions.push(comparison(context, scope, { subject, type: INT_TYPE }, predicate));
  }
  return and(conditions);
}

/** Related rows: in a query as the role sees them (redaction.ts), in a permission as they are. */
function readRelated(context: CompileContext, scope: Scope, alias: string): string {
  return scope.mode === 'query' ? readVisible(context, scope.access!, alias) : readFrom(context, scope.table.table, alias);
}

/** The scope of rows reached through a relationship, and in a query the role's filter on them. */
function relatedScope(context: CompileContext, scope: Scope, relationship: RelationshipModel, alias: string): { scope: Scope; filter: string | null } {
  if (scope.mode === 'query') {
    const access = tableAccessOf(context, relationship.target);
    return { scope: { mode: 'query', table: access.model, access, alias, rootAlias: alias, ...(scope.sqlNames === true ? { sqlNames: true } : {}) }, filter: permissionFilter(context, access, alias) };
  }
  const table = context.model.tables.get(relationship.target)!;
  return { scope: { mode: 'permission', table, access: null, alias, rootAlias: scope.rootAlias }, filter: null };
}

/**
 * A column by its GraphQL name in a query (the role's columns), by its SQL name in a
 * permission or a data API query (there too only the role's).
 */
function columnOf(scope: Scope, name: string): ColumnModel | undefined {
  if (scope.mode === 'permission') return scope.table.columnsByName.get(name);
  if (scope.sqlNames !== true) return scope.access!.columnsByField.get(name);
  const column = scope.table.columnsByName.get(name);
  const permitted = column === undefined ? undefined : scope.access!.columnsByField.get(column.fieldName);
  return permitted?.name === name ? permitted : undefined;
}

function columnNamed(scope: Scope, name: string, input: Input): string {
  const column = columnOf(scope, name);
  if (column === undefined) throw errors.unexpectedEnumValue(input.path, name, `${scope.table.typeName}_select_column`);
  return column.name;
}

/** `_exists: {_table, _where}`: some row of any tracked table satisfies `_where` (permissions only). */
function existsCondition(context: CompileContext, scope: Scope, value: Input): string {
  const fields = new Map(context.reader.fields(value));
  const tableInput = fields.get('_table');
  const whereInput = fields.get('_where');
  if (tableInput === undefined || tableInput.source !== 'permission') throw errors.existsWithoutTable(value.path);
  const name = qualifiedTable(tableInput.value as { schema: string; name: string } | string);
  const table = context.model.tables.get(relationKey(name.schema, name.name));
  if (table === undefined) throw errors.tableNotTracked(tableInput.path, name.name);
  const alias = context.aliases.fresh();
  const nested: Scope = { mode: 'permission', table, access: null, alias, rootAlias: scope.rootAlias };
  const inner = whereInput === undefined ? 'true' : boolExp(context, nested, whereInput);
  return `exists (select 1 from ${readFrom(context, table.table, alias)} where ${inner})`;
}

const COLUMN_OPERATORS: Record<string, string> = { _ceq: '=', _cne: '<>', _cneq: '<>', _cgt: '>', _clt: '<', _cgte: '>=', _clte: '<=' };

/** Compares a column, or an expression such as a scalar computed field's call, with the operators of its type. */
function comparison(context: CompileContext, scope: Scope, column: ColumnModel | { subject: string; type: ColumnType }, input: Input): string {
  const { reader, params } = context;
  const subject = 'subject' in column ? column.subject : columnRef(scope.alias, column.name);
  const conditions: string[] = [];
  // A permission may write `{column: value}` for `{column: {_eq: value}}` (Hasura's shorthand).
  const shorthand = input.source === 'permission' && (typeof input.value !== 'object' || input.value === null || Array.isArray(input.value));
  const operators: Array<[string, Input]> = shorthand ? [['_eq', input]] : reader.fields(input);
  for (const [written, operand] of operators) {
    const name = operand.source === 'permission' ? operatorKey(written) : written;
    const columnOperator = scope.mode === 'permission' ? COLUMN_OPERATORS[name] : undefined;
    if (columnOperator !== undefined) {
      conditions.push(`${subject} ${columnOperator} ${otherColumn(context, scope, operand)}`);
      continue;
    }
    const operator = operatorNamed(column.type, name);
    if (operator === undefined) {
      throw errors.fieldNotFound(operand.path, written, `${column.type.scalar}_comparison_exp`);
    }
    if (operator.operand === 'boolean') {
      if (reader.isNull(operand)) throw errors.unexpectedNull(operand.path, 'Boolean');
      conditions.push(reader.boolean(operand) ? `${subject} is null` : `${subject} is not null`);
      continue;
    }
    if (operator.operand === 'cast') {
      conditions.push(castCondition(context, scope, { subject, type: column.type }, operand));
      continue;
    }
    if (isObjectOperand(operator.operand)) {
      conditions.push(operator.render(subject, objectOperandArguments(context, column.type, operator.operand, operand)));
      continue;
    }
    const { sqlType, encoding, construct } = operandParam(column.type, operator.operand);
    conditions.push(operator.render(subject, construct(reader.param(operand, params, sqlType, encoding, operandTypeName(column.type, operator.operand)))));
  }
  return and(conditions);
}

/** The GraphQL type an operand is named by in errors. */
function operandTypeName(type: ColumnType, operand: OperandKind): string {
  if (operand === 'scalar') return type.scalar;
  if (operand === 'lquery' || operand === 'ltxtquery') return operand;
  return operand === 'lquery-list' ? '[String!]' : `[${type.scalar}!]`;
}

/** `_cast: {geography: {...}}`: the column converted to the named type, compared with that type's operators. */
function castCondition(context: CompileContext, scope: Scope, column: { subject: string; type: ColumnType }, input: Input): string {
  const conditions: string[] = [];
  for (const [name, expression] of context.reader.fields(input)) {
    if (context.reader.isNull(expression)) continue;
    const target = CAST_TARGETS[column.type.category];
    if (name !== target) throw errors.fieldNotFound(expression.path, name, `${column.type.scalar}_cast_exp`);
    const type = siblingType(column.type, target);
    conditions.push(comparison(context, scope, { subject: `(${column.subject})::${type.sqlType}`, type }, expression));
  }
  return and(conditions);
}

/** The column a `_ceq`-style operator compares with: `"col"` of this table or `["$", "col"]` of the permission's table. */
function otherColumn(context: CompileContext, scope: Scope, operand: Input): string {
  const path = context.reader.items(operand).map((item) => context.reader.name(item));
  if (path.length === 2 && path[0] === '$') return columnRef(scope.rootAlias, path[1]!);
  if (path.length === 1) return columnRef(scope.alias, path[0]!);
  throw errors.columnComparisonShape(operand.path);
}

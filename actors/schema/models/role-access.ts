import type { BoolExp, SelectPermission } from '../../../src/metadata/types.js';
import { redactionsOf, selectGrantOf } from './inherited-select.js';
import { ADMIN_ROLE } from '../../../src/session/session.js';
import type { ComputedFieldModel, FunctionModel } from './function-model.js';
import type { ColumnModel, RelationshipModel, SourceModel, TableModel } from './table-model.js';

/**
 * What one role may read: the tables it has a select permission on, their permitted
 * columns, row filter, row limit and whether it may aggregate. Both the role's GraphQL
 * schema and the SQL compiler are driven by this one value, so what the schema shows
 * and what the compiler reads cannot drift apart. Admin reads everything, unfiltered.
 */
export type FieldTarget =
  | { kind: 'column'; column: ColumnModel }
  | { kind: 'object-relationship'; relationship: RelationshipModel }
  | { kind: 'array-relationship'; relationship: RelationshipModel }
  | { kind: 'array-aggregate'; relationship: RelationshipModel }
  | { kind: 'computed-scalar'; field: ComputedFieldModel }
  | { kind: 'computed-table'; field: ComputedFieldModel };

export type RootFieldTarget =
  | { kind: 'select'; table: string }
  | { kind: 'select-by-pk'; table: string }
  | { kind: 'select-aggregate'; table: string }
  /** `<t>_aggregate` of a role that may aggregate a table but read none of its columns: `count` only (Hasura). */
  | { kind: 'select-count'; table: string; access: TableAccess }
  /** `<t>_stream`: batches of rows after a cursor, under subscription_root only. */
  | { kind: 'select-stream'; table: string }
  | FunctionRootTarget;

export interface TableAccess {
  model: TableModel;
  /** Permitted columns, in table order. */
  columns: ColumnModel[];
  columnsByField: Map<string, ColumnModel>;
  /** Relationships whose related table the role may also read. */
  relationships: RelationshipModel[];
  /** The fields of the table's object type, by GraphQL name. */
  fields: Map<string, FieldTarget>;
  /** The permission's row filter; null when every row is readable. */
  filter: BoolExp | null;
  limit: number | null;
  allowAggregations: boolean;
  /**
   * An inherited role's view when some column shows on only part of its rows: the rows it
   * may read and, by column name, the rows each such column's value shows on (null
   * elsewhere, as Hasura's per-column CASE). Read through a subquery (sql/redaction.ts) so
   * that filters, ordering and aggregates see only what the role sees; `filter` is then null.
   */
  redacted: { filter: BoolExp | null; columns: ReadonlyMap<string, BoolExp> } | null;
}

export interface RoleAccess {
  role: string;
  tables: Map<string, TableAccess>;
  rootFields: Map<string, RootFieldTarget>;
  /**
   * The fields of `subscription_root`: the query root's table and function fields the
   * permission offers for subscriptions (`subscription_root_fields`), and `<t>_stream`.
   */
  subscriptionFields: Map<string, RootFieldTarget>;
  /** Tracked functions the role may call under `mutation_root` (function-access.ts). */
  functionMutations: Map<string, FunctionRootTarget>;
}

export interface RoleAccessOptions {
  /** SERVICE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (default true): see function-access.ts. */
  inferFunctionPermissions?: boolean;
}

export function roleAccess(model: SourceModel, role: string, options: RoleAccessOptions = {}): RoleAccess {
  const admin = role === ADMIN_ROLE;
  // A table is readable when the role has a select permission that leaves it a column.
  const readable = new Map<string, { columns: ColumnModel[]; aggregations: boolean }>();
  for (const table of model.tables.values()) {
    const permission = admin ? null : selectGrantOf(table, role);
    if (permission === undefined) continue;
    const permitted = permission === null || permission.columns === '*' ? null : new Set(permission.columns);
    const columns = table.columns.filter((column) => permitted === null || permitted.has(column.name));
    if (columns.length > 0) readable.set(table.key, { columns, aggregations: permission === null || permission.allow_aggregations === true });
  }

  const tables = new Map<string, TableAccess>();
  const rootFields = new Map<string, RootFieldTarget>();
  const subscriptionFields = new Map<string, RootFieldTarget>();
  for (const [key, { columns }] of readable) {
    const table = model.tables.get(key)!;
    const access = tableAccess(table, admin ? null : role, columns, readable);
    tables.set(key, access);
    const permission = admin ? undefined : selectGrantOf(table, role);
    const offer = (name: string, kind: string, target: RootFieldTarget) => {
      const queryAllowed = permission?.query_root_fields ?? null;
      const subscriptionAllowed = permission?.subscription_root_fields ?? null;
      if (kind !== 'select_stream' && (queryAllowed === null || queryAllowed.includes(kind)) && !rootFields.has(name)) rootFields.set(name, target);
      if ((subscriptionAllowed === null || subscriptionAllowed.includes(kind)) && !subscriptionFields.has(name)) subscriptionFields.set(name, target);
    };
    offer(table.rootFields.select, 'select', { kind: 'select', table: key });
    const pkVisible = table.primaryKey.length > 0 && table.primaryKey.every((column) => access.columnsByField.has(column.fieldName));
    if (pkVisible) offer(table.rootFields.selectByPk, 'select_by_pk', { kind: 'select-by-pk', table: key });
    if (access.allowAggregations) offer(table.rootFields.selectAggregate, 'select_aggregate', { kind: 'select-aggregate', table: key });
    offer(table.rootFields.selectStream, 'select_stream', { kind: 'select-stream', table: key });
  }
  for (const table of model.tables.values()) {
    const permission = admin ? undefined : selectGrantOf(table, role);
    if (permission === undefined || readable.has(table.key) || permission.allow_aggregations !== true) continue;
    const target: RootFieldTarget = { kind: 'select-count', table: table.key, access: countOnlyAccess(table, permission) };
    const name = table.rootFields.selectAggregate;
    if ((permission.query_root_fields ?? ['select_aggregate']).includes('select_aggregate') && !rootFields.has(name)) rootFields.set(name, target);
    if ((permission.subscription_root_fields ?? ['select_aggregate']).includes('select_aggregate') && !subscriptionFields.has(name)) subscriptionFields.set(name, target);
  }
  const access: RoleAccess = { role, tables, rootFields, subscriptionFields, functionMutations: new Map() };
  addFunctionAccess(access, model, admin, options.inferFunctionPermissions ?? true);
  return access;
}

function tableAccess(
  table: TableModel,
  role: string | null,
  columns: ColumnModel[],
  readable: Map<string, { aggregations: boolean }>,
): TableAccess {
  const permission = role === null ? null : selectGrantOf(table, role)!;
  const relationships = table.relationships.filter((relationship) => readable.has(relationship.target));
  const allowAggregations = permission === null || permission.allow_aggregations === true;
  const redacted = role === null ? null : redactionsOf(table, role);
  // A column nulled on some rows may be null whatever the table says (Hasura makes it nullable).
  const shown = redacted === null ? columns : columns.map((column) => (redacted.columns.has(column.name) ? { ...column, nullable: true } : column));

  const fields = new Map<string, FieldTarget>();
  for (const column of shown) fields.set(column.fieldName, { kind: 'column', column });
  for (const relationship of relationships) {
    if (fields.has(relationship.name)) continue;
    if (relationship.kind === 'object') {
      fields.set(relationship.name, { kind: 'object-relationship', relationship });
      continue;
    }
    fields.set(relationship.name, { kind: 'array-relationship', relationship });
    // `<rel>_aggregate` exists when the role may aggregate the related table (Hasura).
    if (readable.get(relationship.target)!.aggregations) fields.set(`${relationship.name}_aggregate`, { kind: 'array-aggregate', relationship });
  }
  return {
    model: table,
    columns: shown,
    columnsByField: new Map(shown.map((column) => [column.fieldName, column])),
    relationships,
    fields,
    filter: redacted !== null || permission === null || isEmptyFilter(permission.filter) ? null : permission.filter,
    limit: permission?.limit ?? null,
    allowAggregations,
    redacted,
  };
}

/** A table read for its count alone: no column, no relationship, the permission's filter and limit. */
function countOnlyAccess(table: TableModel, permission: SelectPermission): TableAccess {
  return {
    model: table,
    columns: [],
    columnsByField: new Map(),
    relationships: [],
    fields: new Map(),
    filter: isEmptyFilter(permission.filter) ? null : permission.filter,
    limit: permission.limit ?? null,
    allowAggregations: true,
    // No column is read, so none needs nulling; the filter (an inherited role's parents' rows together) suffices.
    redacted: null,
  };
}

function isEmptyFilter(filter: BoolExp | undefined): boolean {
  return filter === undefined || filter === null || Object.keys(filter).length === 0;
}

/**
 * What one role may use of the tracked functions and computed fields, added to its
 * RoleAccess (compat-facts 6.2):
 * - a scalar computed field when the role's select permission lists it in `computed_fields`;
 * - a table computed field when the role may read the table it returns (that table's
 *   permission filters its rows);
 * - a function as a query when the role may read its return table and, unless function
 *   permissions are inferred (SERVICE_GRAPHQL_INFER_FUNCTION_PERMISSIONS, true by default),
 *   has an explicit function permission; `<fn>_aggregate` when it may also aggregate that table;
 * - a function as a mutation only with an explicit function permission (Hasura's
 *   Note [Function Permissions]), besides the read permission on its return table.
 * Admin may use all of them.
 */
export interface FunctionRootTarget {
  kind: 'function' | 'function-aggregate';
  /** Key of the function's return table. */
  table: string;
  function: FunctionModel;
}

export function addFunctionAccess(access: RoleAccess, model: SourceModel, admin: boolean, inferPermissions: boolean): void {
  for (const [key, table] of access.tables) {
    const listed = admin ? null : new Set(selectGrantOf(table.model, access.role)?.computed_fields ?? []);
    for (const field of model.functions.computedFields.get(key) ?? []) {
      if (table.fields.has(field.name) || !mayUse(access, field, listed)) continue;
      table.fields.set(field.name, { kind: field.returns.kind === 'scalar' ? 'computed-scalar' : 'computed-table', field });
    }
  }
  for (const fn of model.functions.functions.values()) {
    const returned = access.tables.get(fn.returnTable);
    if (returned === undefined) continue;
    if (fn.exposedAs === 'mutation') {
      if ((admin || fn.permissions.has(access.role)) && !access.functionMutations.has(fn.fieldName)) {
        access.functionMutations.set(fn.fieldName, { kind: 'function', table: fn.returnTable, function: fn });
      }
      continue;
    }
    if (!admin && !inferPermissions && !fn.permissions.has(access.role)) continue;
    // Interface 2.4: functions not exposed as mutations go under query_root and subscription_root.
    for (const root of [access.rootFields, access.subscriptionFields]) {
      if (!root.has(fn.fieldName)) root.set(fn.fieldName, { kind: 'function', table: fn.returnTable, function: fn });
      if (fn.returnsSet && returned.allowAggregations && !root.has(fn.aggregateFieldName)) {
        root.set(fn.aggregateFieldName, { kind: 'function-aggregate', table: fn.returnTable, function: fn });
      }
    }
  }
}

function mayUse(access: RoleAccess, field: ComputedFieldModel, listed: Set<string> | null): boolean {
  if (field.returns.kind === 'table') return access.tables.has(field.returns.table);
  return listed === null || listed.has(field.name);
}

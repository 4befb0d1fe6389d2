import type { ComputedFieldModel, FunctionModel } from './function-model.js';
import type { RoleAccess } from './role-access.js';
import type { SourceModel } from './table-model.js';

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
    const listed = admin ? null : new Set(table.model.selectPermissions.get(access.role)?.computed_fields ?? []);
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
    if (!access.rootFields.has(fn.fieldName)) access.rootFields.set(fn.fieldName, { kind: 'function', table: fn.returnTable, function: fn });
    if (fn.returnsSet && returned.allowAggregations && !access.rootFields.has(fn.aggregateFieldName)) {
      access.rootFields.set(fn.aggregateFieldName, { kind: 'function-aggregate', table: fn.returnTable, function: fn });
    }
  }
}

function mayUse(access: RoleAccess, field: ComputedFieldModel, listed: Set<string> | null): boolean {
  if (field.returns.kind === 'table') return access.tables.has(field.returns.table);
  return listed === null || listed.has(field.name);
}

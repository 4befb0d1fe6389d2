import { invariant } from '../../../src/errors/service-error.js';
import type { FunctionRootTarget } from '../graphql/function-access.js';
import type { ComputedFieldModel } from '../graphql/function-model.js';
import type { TableAccess } from '../graphql/role-access.js';
import { tableAccessOf, type CompileContext } from './context.js';
import { argumentsOf, type CollectedField } from './fields.js';
import { functionCall, rowArgument } from './function-call.js';
import { renderRows, rowSet } from './row-set.js';
import { compileAggregate, compileList, rowObject } from './select.js';

/**
 * Tracked functions and computed fields as parts of the one statement: a function's rows
 * are read like a table's (the return table's permission filter and limit apply, then
 * `where`, `order_by`, `distinct_on`, `limit`, `offset`), with the call in the FROM clause.
 */

/** `fn(args, ...)` and `fn_aggregate(args, ...)` under query_root or mutation_root. */
export function compileFunctionRoot(context: CompileContext, target: FunctionRootTarget, field: CollectedField): string {
  const fn = target.function;
  const access = tableAccessOf(context, target.table);
  const call = functionCall(context, { function: fn.function, arguments: fn.arguments, args: argumentsOf(field).get('args') });
  if (target.kind === 'function-aggregate') return compileAggregate(context, access, field, undefined, call);
  if (fn.returnsSet) return compileList(context, access, field, undefined, call);
  return compileSingleRow(context, access, field, call);
}

/** A scalar computed field of the row under `alias`: the call itself. */
export function compileComputedScalar(context: CompileContext, access: TableAccess, alias: string, field: ComputedFieldModel, node: CollectedField | null): string {
  const args = node === null ? undefined : argumentsOf(node).get('args');
  return functionCall(context, { function: field.function, arguments: field.arguments, args, row: rowArgument(alias, access.model.table) });
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
function compileSingleRow(context: CompileContext, access: TableAccess, field: CollectedField, call: string): string {
  const rows = rowSet(context, access, field, undefined, call);
  return `(select ${rowObject(context, rows.access, rows.alias, field)} ${renderRows(rows)} limit 1)`;
}

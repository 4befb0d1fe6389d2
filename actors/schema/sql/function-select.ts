import type { FunctionRootTarget } from '../models/role-access.js';
import { tableAccessOf, type CompileContext } from './context.js';
import { argumentsOf, type CollectedField } from './fields.js';
import { functionCall } from './function-call.js';
import { compileAggregate, compileList, compileSingleRow } from './select.js';

/**
 * Tracked functions as parts of the one statement: a function's rows are read like a
 * table's (the return table's permission filter and limit apply, then `where`,
 * `order_by`, `distinct_on`, `limit`, `offset`), with the call in the FROM clause.
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

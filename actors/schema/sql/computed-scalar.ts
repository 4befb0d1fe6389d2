import type { ComputedFieldModel } from '../models/function-model.js';
import type { TableAccess } from '../models/role-access.js';
import type { CompileContext } from './context.js';
import { argumentsOf, type CollectedField } from './fields.js';
import { functionCall, rowArgument } from './function-call.js';

/** A scalar computed field of the row under `alias`: the call itself. */
export function compileComputedScalar(context: CompileContext, access: TableAccess, alias: string, field: ComputedFieldModel, node: CollectedField | null): string {
  const args = node === null ? undefined : argumentsOf(node).get('args');
  return functionCall(context, { function: field.function, arguments: field.arguments, args, row: rowArgument(alias, access.model.table) });
}

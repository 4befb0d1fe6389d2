import { errors } from '../../../src/errors/errors.js';
import type { FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import type { RoleAccess } from '../models/role-access.js';
import type { SourceModel } from '../models/table-model.js';
import type { WriteAccess } from '../models/write-access.js';
import { MUTATION_ROOT } from '../models/mutation-names.js';
import { collectFields, type CollectedField } from './fields.js';
import { compileDelete } from './delete.js';
import { compileFunctionMutation } from './function-mutation.js';
import { compileInsert } from './insert.js';
import { compileContext, type RowFieldCompiler } from './context.js';
import type { VariableUse } from './input.js';
import type { MutationContext } from './mutation-context.js';
import type { MutationFieldPlan } from './mutation-plan.js';
import { compileUpdate, compileUpdateMany } from './update.js';

/**
 * Compiles a mutation operation: its root fields in order, each to the statements that
 * write and answer it (mutation-plan.ts), and how the plan depends on the variables.
 */
export interface CompiledMutation {
  fields: MutationFieldPlan[];
  variableUses: ReadonlyMap<string, VariableUse>;
}

export interface MutationRequest {
  model: SourceModel;
  access: RoleAccess;
  writes: WriteAccess;
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  emitSessionMessage: boolean;
  /** Tracing is on (and event triggers exist): writes also emit their request's traceparent. */
  emitTraceMessage?: boolean;
  /** SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES (default false). */
  stringifyNumbers?: boolean;
  /** A mutation sent to the Relay API: its rows have Relay's fields (compile-relay.ts). */
  relayField?: RowFieldCompiler;
  /** And the interfaces whose fragments apply to its rows (CompileContext). */
  interfaces?: ReadonlySet<string>;
}

export function compileMutation(request: MutationRequest): CompiledMutation {
  const context: MutationContext = { ...compileContext(request), writes: request.writes, emitSessionMessage: request.emitSessionMessage, emitTraceMessage: request.emitSessionMessage && request.emitTraceMessage === true };
  const roots = collectFields(context, MUTATION_ROOT, [request.operation.selectionSet], '$');
  return { fields: roots.map((field) => compileField(context, field)), variableUses: context.reader.uses };
}

function compileField(context: MutationContext, field: CollectedField): MutationFieldPlan {
  if (field.name === '__typename') return { responseKey: field.responseKey, errorPath: field.path, steps: [], list: false, staticJson: JSON.stringify(MUTATION_ROOT) };
  const fn = context.access.functionMutations.get(field.name);
  if (fn !== undefined) return compileFunctionMutation(context, field, fn);
  const target = context.writes.rootFields.get(field.name);
  if (target === undefined) throw errors.fieldNotFound(field.path, field.name, MUTATION_ROOT);
  switch (target.kind) {
    case 'insert':
      return compileInsert(context, field, target.table, false);
    case 'insert-one':
      return compileInsert(context, field, target.table, true);
    case 'update':
      return compileUpdate(context, field, target.table, false);
    case 'update-by-pk':
      return compileUpdate(context, field, target.table, true);
    case 'update-many':
      return compileUpdateMany(context, field, target.table);
    case 'delete':
      return compileDelete(context, field, target.table, false);
    case 'delete-by-pk':
      return compileDelete(context, field, target.table, true);
  }
}

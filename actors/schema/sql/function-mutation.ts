import type { FunctionRootTarget } from '../models/role-access.js';
import type { CollectedField } from './fields.js';
import { compileFunctionRoot } from './function-select.js';
import { nextStatement, type MutationContext } from './mutation-context.js';
import { step, writeStatement, type MutationFieldPlan } from './mutation-plan.js';

/**
 * A tracked function under `mutation_root` (compat-facts 6.2, "Exposure"): one statement
 * that calls it and selects its rows as the return table's permission allows. The
 * executor runs it in the mutation's transaction, as a writing statement: `service.user` is
 * set and the session emitted for event triggers before the call, which the select list
 * makes.
 */
export function compileFunctionMutation(context: MutationContext, field: CollectedField, target: FunctionRootTarget): MutationFieldPlan {
  const statement = nextStatement(context);
  const sql = writeStatement(statement, [], [['data', compileFunctionRoot(statement, target, field)]]);
  return { responseKey: field.responseKey, errorPath: field.path, steps: [step(statement, sql)], list: false, staticJson: null };
}

import type { FunctionRootTarget } from '../graphql/function-access.js';
import type { CollectedField } from './fields.js';
import { compileFunctionRoot } from './function-select.js';
import { nextStatement, type MutationContext } from './mutation-context.js';
import { SESSION_MESSAGE_PREFIX, SESSION_SETTING, step, type MutationFieldPlan } from './mutation-plan.js';

/**
 * A tracked function under `mutation_root` (compat-facts 6.2, "Exposure"): one statement
 * that calls it and selects its rows as the return table's permission allows. The
 * executor runs it in the mutation's transaction; `service.user` is set first, since
 * the FROM subquery is scanned before the select list (and so the call) is evaluated,
 * and the session is emitted for event triggers as the table mutations do it.
 */
export function compileFunctionMutation(context: MutationContext, field: CollectedField, target: FunctionRootTarget): MutationFieldPlan {
  const statement = nextStatement(context);
  const session = statement.params.add({ kind: 'session-json' }, 'text');
  const message = statement.emitSessionMessage ? `, pg_logical_emit_message(true, '${SESSION_MESSAGE_PREFIX}', ${session})` : '';
  const rows = compileFunctionRoot(statement, target, field);
  const sql = `select ${rows} as "data" from (select set_config('${SESSION_SETTING}', ${session}, true)${message}) as "_session"`;
  return { responseKey: field.responseKey, errorPath: field.path, steps: [step(statement, sql)], list: false, staticJson: null };
}

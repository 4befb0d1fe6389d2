import type { SubscriptionPlanReply } from '../../../src/bus/messages/subscriptions.js';
import { errors } from '../../../src/errors/errors.js';
import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { decodeText } from '../../../src/bus/wire.js';
import { postgresText } from '../../../src/pg/text-values.js';
import type { Session } from '../../../src/session/session.js';
import type { SourceModel } from '../models/table-model.js';
import type { CompiledOperation } from '../sql/compile-operation.js';
import { bindParams, type Placeholder } from '../sql/params.js';
import { planFor } from './plan-cache.js';
import { compileErrorBody } from './response-errors.js';

/** A cohort's values are a JSON array of texts: the statement reads value i as `("_subs"."vars"->>i)`. */
export const COHORT_PLACEHOLDER: Placeholder = (index, sqlType) => `(("_subs"."vars"->>${index - 1}))::${sqlType}`;

/**
 * The plan of one subscription for the subscriptions actor: the statement of one cohort
 * (compiled once per variable shape, with COHORT_PLACEHOLDER), this subscriber's values
 * as PostgreSQL text, and the tables the change feed must watch for it, or null when the
 * statement reads what the feed cannot see (a function's body, a view).
 */
export function subscriptionPlan(options: {
  model: SourceModel;
  plans: CompiledOperation[];
  compile: () => CompiledOperation;
  variables: Record<string, unknown>;
  session: Session;
  resourceVersion: number;
}): SubscriptionPlanReply {
  let compiled: CompiledOperation;
  let values: unknown[];
  try {
    compiled = planFor(options.plans, options.variables, options.compile);
    values = bindParams(compiled.params, options.variables, options.session.variables);
  } catch (error) {
    const refused = compileErrorBody(error);
    if (refused === null) throw error;
    return { ok: false, errors: decodeText(refused) };
  }
  if (compiled.sql === null) return { ok: false, errors: decodeText(graphqlErrorBody([errors.subscriptionIntrospection('$')])) };
  const { tables, callsFunctions } = compiled.reads;
  const watched = callsFunctions || tables.some((key) => options.model.tables.get(key)?.ordinaryTable !== true) ? null : tables;
  return {
    ok: true,
    resource_version: options.resourceVersion,
    sql: compiled.sql,
    values: values.map(postgresText),
    tables: watched,
    cursor: compiled.cursorParam === null ? null : compiled.cursorParam - 1,
  };
}

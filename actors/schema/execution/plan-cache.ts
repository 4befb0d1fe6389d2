import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import { usesMatch, type VariableUse } from '../sql/input.js';
import { statementName } from '../sql/sql-text.js';
import type { CompiledOperation } from '../sql/compile-operation.js';
import type { LenientFacts } from './lenient-validation.js';

/**
 * Work done once per distinct request shape rather than per request: parse + validate +
 * operation choice per (role, operation name, query text), and under that the compiled
 * statements per variable shape. A statement runs as a named prepared statement whose name
 * is its text's hash, so each pooled connection parses and plans it once.
 */
export type PreparedDocument =
  | { kind: 'refused'; body: Uint8Array }
  | {
      kind: 'ready';
      document: DocumentNode;
      operation: OperationDefinitionNode;
      fragments: ReadonlyMap<string, FragmentDefinitionNode>;
      /** What the loosened validation let through that each request's variables must still honour. */
      lenient: LenientFacts;
      plans: CompiledPlan[];
      /** Subscription statements (cohort placeholders, subscription-plan.ts), per variable shape. */
      subscriptionPlans: CompiledOperation[];
    };

export interface CompiledPlan extends CompiledOperation {
  /** The prepared statement's name: a hash of its text, so one name never means two texts. */
  statementName: string;
}

/** Plans kept per document: variable shapes of one query are few in practice. */
const PLANS_PER_DOCUMENT = 16;

/**
 * Which of a query text's prepared documents a request wants: its role's schema and its
 * operation, the text itself being the other key (pair-lru.ts). A JSON array, so that no
 * pair of values reads as another: a role's key holds NUL separators of its own, and an
 * empty operation name (no such operation) is not an absent one (the document's only one).
 */
export function documentVariant(role: string, operationName: string | null | undefined): string {
  return JSON.stringify([role, operationName ?? null]);
}

/**
 * The plan of `plans` made for variables of this shape, else `compile()`'s, kept first;
 * beyond PLANS_PER_DOCUMENT the least recently made goes. Queries and mutations keep theirs so.
 */
export function planFor<P extends { variableUses: ReadonlyMap<string, VariableUse> }>(plans: P[], variables: Record<string, unknown>, compile: () => P): P {
  const found = plans.find((plan) => usesMatch(plan.variableUses, variables));
  if (found !== undefined) return found;
  const plan = compile();
  plans.unshift(plan);
  if (plans.length > PLANS_PER_DOCUMENT) plans.pop();
  return plan;
}

/** A compiled query with the name of its prepared statement. */
export function namedPlan(compiled: CompiledOperation): CompiledPlan {
  return { ...compiled, statementName: compiled.sql === null ? '' : statementName(compiled.sql) };
}

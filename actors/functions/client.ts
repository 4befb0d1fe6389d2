import type { ActorRequest } from '../../src/bus/actor-request.js';
import type { ComputedField, FunctionEntry, QualifiedName } from '../../src/metadata/types.js';
import type { ComputedFieldDescription, FunctionDescription, Verdict } from './description.js';
import type { FunctionFacts } from './facts.js';
import { FUNCTIONS_VERBS } from './subjects.js';

/** The questions the schema actor's operations put to the functions actor. */
export interface FunctionsClient {
  describeFunction(entry: FunctionEntry, facts: FunctionFacts): Promise<Verdict<FunctionDescription>>;
  describeComputedField(table: QualifiedName, columns: string[], field: ComputedField, facts: FunctionFacts): Promise<Verdict<ComputedFieldDescription>>;
}

export function functionsClient(request: ActorRequest): FunctionsClient {
  return {
    describeFunction: (entry, facts) => request((subjects) => subjects.functions(FUNCTIONS_VERBS.describeFunction), { function: entry, facts }),
    describeComputedField: (table, columns, field, facts) =>
      request((subjects) => subjects.functions(FUNCTIONS_VERBS.describeComputedField), { table, columns, field, facts }),
  };
}

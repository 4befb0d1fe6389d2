import type { Actor } from '../../src/actor/actor.js';
import { JsonReply } from '../../src/bus/bus.js';
import type { ComputedField, FunctionEntry, QualifiedName } from '../../src/metadata/types.js';
import { validate } from '../../src/schemas/validator.js';
import type { FunctionFacts } from './facts.js';
import { describeComputedField } from './rules/computed-field-rules.js';
import { describeFunction } from './rules/function-rules.js';
import { FUNCTIONS_VERBS } from './subjects.js';

/**
 * The functions actor: judges tracked functions and computed fields against what
 * `pg_proc` says of them and describes them for the GraphQL layer. It holds no state:
 * the schema actor sends the catalog facts it read in its own transaction (see
 * facts.ts), so any instance answers any question, and it needs no database.
 */
export const functionsActor: Actor = {
  name: 'functions',
  async start(context) {
    const subjects = context.bus.subjects;
    context.serve(subjects.functions(FUNCTIONS_VERBS.describeFunction), async (request) => {
      const message = validate<{ function: FunctionEntry; facts: FunctionFacts }>('bus/functions-describe-function', request.json());
      return new JsonReply(describeFunction(message.function, message.facts));
    });
    context.serve(subjects.functions(FUNCTIONS_VERBS.describeComputedField), async (request) => {
      const message = validate<{ table: QualifiedName; columns: string[]; field: ComputedField; facts: FunctionFacts }>('bus/functions-describe-computed-field', request.json());
      return new JsonReply(describeComputedField({ table: message.table, columns: message.columns, field: message.field }, message.facts));
    });
    return { stop: async () => undefined };
  },
};

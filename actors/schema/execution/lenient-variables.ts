import { getVariableValues, Kind, type GraphQLError, type GraphQLSchema, type VariableDefinitionNode } from 'graphql';
import { errors } from '../../../src/errors/errors.js';
import type { ServiceError } from '../../../src/errors/service-error.js';
import { isInt32Text, refusedNullItem, type LenientFacts } from './lenient-validation.js';
import { scalarRefusal } from './validation-errors.js';

/**
 * The request's variables coerced to their declared types, honouring what the loosened
 * validation (lenient-validation.ts) allowed: an `Int` variable given as an `offset` may
 * be an integer written as a string, as Hasura v2 reads it; a list whose items were
 * declared nullable but used where items must not be null is refused if it holds a null.
 */
export function coerceLeniently(schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[], given: Record<string, unknown>, lenient: LenientFacts): Record<string, unknown> | ServiceError {
  const values = { ...given };
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    const value = values[name];
    if (lenient.offsetVariables.has(name) && namedInt(definition) && typeof value === 'string' && isInt32Text(value)) values[name] = Number(value);
  }
  const coerced = getVariableValues(schema, definitions, values);
  if (coerced.errors !== undefined) return variableError(coerced.errors[0]!);
  for (const use of lenient.nullableItems) {
    const refused = refusedNullItem(coerced.coerced[use.variable], use.type, use.path);
    if (refused !== null) return errors.unexpectedNull(refused.path, refused.type);
  }
  return coerced.coerced;
}

function namedInt(definition: VariableDefinitionNode): boolean {
  const type = definition.type.kind === Kind.NON_NULL_TYPE ? definition.type.type : definition.type;
  return type.kind === Kind.NAMED_TYPE && type.name.value === 'Int';
}

/** A scalar's own refusal (GeoJSON, a label path...) as it is; graphql-js' "was not provided" in Hasura's words; other coercion messages pass through. */
function variableError(error: GraphQLError): ServiceError {
  const refusedValue = scalarRefusal(error);
  if (refusedValue !== null) return refusedValue;
  const message = error.message;
  const missing = message.match(/^Variable "\$([^"]+)" of required type "[^"]+" was not provided\.$/);
  return missing === null ? errors.validationFailed('$', message) : errors.variableRequired('$', missing[1]!);
}

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
  let coerced = passedThrough(schema, definitions, values);
  if (coerced === null) {
    const result = getVariableValues(schema, definitions, values);
    if (result.errors !== undefined) return variableError(result.errors[0]!);
    coerced = result.coerced;
  }
  for (const use of lenient.nullableItems) {
    const refused = refusedNullItem(coerced[use.variable], use.type, use.path);
    if (refused !== null) return errors.unexpectedNull(refused.path, refused.type);
  }
  return coerced;
}

/** graphql-js' built-in scalars, each with the values its coercion of a variable returns unchanged. */
const PASSED_THROUGH = new Map<string, (value: unknown) => boolean>([
  ['Int', (value) => typeof value === 'number' && Number.isInteger(value) && value <= 2147483647 && value >= -2147483648],
  ['Float', (value) => typeof value === 'number' && Number.isFinite(value)],
  ['String', (value) => typeof value === 'string'],
  ['Boolean', (value) => typeof value === 'boolean'],
  ['ID', (value) => typeof value === 'string'],
]);

/**
 * The variables as they are, when each is given and is a built-in scalar's value that
 * graphql-js would take unchanged (an `Int` given as an integer, a `String` as a string...);
 * null when any is not, for graphql-js to coerce or refuse. Most requests' variables are
 * such, and graphql-js' coercion cost 10-11% of the CPU of a request with one `Int` variable.
 */
function passedThrough(schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[], values: Record<string, unknown>): Record<string, unknown> | null {
  const coerced: Record<string, unknown> = {};
  for (const definition of definitions) {
    const type = definition.type.kind === Kind.NON_NULL_TYPE ? definition.type.type : definition.type;
    if (type.kind !== Kind.NAMED_TYPE) return null;
    const name = definition.variable.name.value;
    const passes = PASSED_THROUGH.get(type.name.value);
    // A type the role's schema lacks is graphql-js' to refuse.
    if (passes === undefined || schema.getType(type.name.value) === undefined) return null;
    if (!Object.hasOwn(values, name) || !passes(values[name]) || name === '__proto__') return null;
    coerced[name] = values[name];
  }
  return coerced;
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

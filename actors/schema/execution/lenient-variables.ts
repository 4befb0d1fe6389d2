import {
  getVariableValues,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  isInputType,
  isSpecifiedScalarType,
  Kind,
  typeFromAST,
  type GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  type VariableDefinitionNode,
} from 'graphql';
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

/** A value the walk below leaves to graphql-js: to coerce in a way the walk does not, or to refuse. */
const COERCE = Symbol('coerce');

/**
 * The variables as graphql-js would coerce them, when each is given and is built only of
 * values whose coercion the walk below repeats exactly: built-in scalars' values that
 * graphql-js takes unchanged (an `Int` given as an integer, a `String` as a string...),
 * enum names, lists given as lists, and input objects without unknown keys; null when any
 * is not, for graphql-js to coerce or refuse. Most requests' variables are such.
 * graphql-js' coercion cost 10-11% of the CPU of a request with one `Int` variable, and
 * 3-4% of a remote schema query with one input-object variable.
 */
export function passedThrough(schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[], values: Record<string, unknown>): Record<string, unknown> | null {
  const coerced: Record<string, unknown> = {};
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    if (!Object.hasOwn(values, name) || name === '__proto__') return null;
    // A type the role's schema lacks is graphql-js' to refuse.
    const type = typeFromAST(schema, definition.type);
    if (type === undefined || !isInputType(type)) return null;
    const value = valueOfType(values[name], type);
    if (value === COERCE) return null;
    coerced[name] = value;
  }
  return coerced;
}

/** graphql-js' coerceInputValue, for the values it takes without a scalar's parseValue or a list made of one item. */
function valueOfType(value: unknown, type: GraphQLInputType): unknown {
  if (type instanceof GraphQLNonNull) return value === null ? COERCE : valueOfType(value, type.ofType);
  if (value === null) return null;
  if (type instanceof GraphQLList) {
    if (!Array.isArray(value)) return COERCE;
    const items: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = valueOfType(value[index], type.ofType);
      if (item === COERCE) return COERCE;
      items[index] = item;
    }
    return items;
  }
  if (type instanceof GraphQLInputObjectType) return fieldsOfType(value, type);
  if (type instanceof GraphQLEnumType) {
    const found = typeof value === 'string' ? type.getValue(value) : undefined;
    return found == null ? COERCE : found.value;
  }
  const passes = isSpecifiedScalarType(type) ? PASSED_THROUGH.get(type.name) : undefined;
  return passes !== undefined && passes(value) ? value : COERCE;
}

/** An input object's fields in the type's order, defaults filled in, as graphql-js builds it. */
function fieldsOfType(value: unknown, type: GraphQLInputObjectType): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || type.isOneOf) return COERCE;
  const given = value as Record<string, unknown>;
  const coerced: Record<string, unknown> = {};
  let used = 0;
  for (const field of Object.values(type.getFields())) {
    // Assigned here, a field named `__proto__` would set the object's prototype instead (a remote's schema may have one).
    if (field.name === '__proto__') return COERCE;
    // graphql-js reads `given[name]`: an inherited property (a field named `constructor`) is its to refuse.
    if (!Object.hasOwn(given, field.name)) {
      if (given[field.name] !== undefined) return COERCE;
      if (field.defaultValue !== undefined) coerced[field.name] = field.defaultValue;
      else if (field.type instanceof GraphQLNonNull) return COERCE;
      continue;
    }
    const fieldValue = valueOfType(given[field.name], field.type);
    if (fieldValue === COERCE) return COERCE;
    coerced[field.name] = fieldValue;
    used++;
  }
  // A key the type does not have is graphql-js' to refuse.
  return Object.keys(given).length === used ? coerced : COERCE;
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

import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  print,
  valueFromAST,
  type ConstDirectiveNode,
  type ConstValueNode,
  type GraphQLInputType,
} from 'graphql';
import { SESSION_VARIABLE_PREFIX } from '../../../src/session/session.js';

/**
 * `@preset(value: ..., static: ...)` on an argument or input field of a role's remote
 * schema (interface 2.3 rules 2-5, compat-facts 7.3): a literal injected into every
 * upstream call, or the name of a session variable read per request.
 */
export type Preset = { kind: 'static'; value: ConstValueNode } | { kind: 'session'; variable: string };

export const PRESET_DIRECTIVE = 'preset';

export function presetOf(directive: ConstDirectiveNode): Preset | string {
  const value = directive.arguments?.find((argument) => argument.name.value === 'value')?.value;
  if (value === undefined) return 'the preset directive needs a "value" argument';
  const isStatic = directive.arguments?.find((argument) => argument.name.value === 'static')?.value;
  const forcedStatic = isStatic?.kind === Kind.BOOLEAN && isStatic.value;
  if (!forcedStatic && value.kind === Kind.STRING && value.value.toLowerCase().startsWith(SESSION_VARIABLE_PREFIX)) {
    return { kind: 'session', variable: value.value.toLowerCase() };
  }
  return { kind: 'static', value };
}

/** Why a static preset value does not fit the upstream type, in Hasura's words; null when it fits. */
export function presetValueProblem(value: ConstValueNode, type: GraphQLInputType): string | null {
  if (isNonNullType(type)) {
    if (value.kind === Kind.NULL) return `expected preset value ${JSON.stringify(print(value))} of type ${JSON.stringify(String(type))} to be non-null`;
    return presetValueProblem(value, type.ofType);
  }
  if (value.kind === Kind.NULL) return null;
  if (isListType(type)) {
    const items = value.kind === Kind.LIST ? value.values : [value];
    for (const item of items) {
      const problem = presetValueProblem(item, type.ofType);
      if (problem !== null) return problem;
    }
    return null;
  }
  if (isInputObjectType(type)) {
    if (value.kind !== Kind.OBJECT) return `expected preset value ${JSON.stringify(print(value))} of type ${JSON.stringify(type.name)} to be an input object value`;
    const fields = type.getFields();
    for (const field of value.fields) {
      const definition = fields[field.name.value];
      if (definition === undefined) return `${JSON.stringify(field.name.value)} does not exist in the input object ${JSON.stringify(type.name)}`;
      const problem = presetValueProblem(field.value, definition.type);
      if (problem !== null) return problem;
    }
    return null;
  }
  if ((isScalarType(type) || isEnumType(type)) && valueFromAST(value, type) === undefined) {
    return `expected preset value ${JSON.stringify(print(value))} to be of type ${JSON.stringify(getNamedType(type).name)}`;
  }
  return null;
}

/**
 * A session variable's text as a value of the argument's type (session values are
 * strings; compat-facts 7.3 coerces them): numbers and booleans for those scalars, JSON
 * for lists and input objects, the text itself otherwise. Undefined when it cannot be.
 */
export function sessionValueAs(text: string, type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner) || isInputObjectType(inner)) {
    try {
      return JSON.parse(text);
    } catch {
      return isListType(inner) ? [sessionValueAs(text, inner.ofType)] : undefined;
    }
  }
  const name = getNamedType(inner).name;
  if (name === 'Int') return /^-?\d+$/.test(text.trim()) ? Number(text) : undefined;
  if (name === 'Float') return Number.isFinite(Number(text)) && text.trim() !== '' ? Number(text) : undefined;
  if (name === 'Boolean') return text === 'true' ? true : text === 'false' ? false : undefined;
  return text;
}

import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';

/**
 * Rule 1 of interface 2.3: a role's schema is a subset of the remote schema. Every type,
 * field, argument, input field, enum value, interface and union member of `role` must
 * exist in `upstream` with the same type. Returns each violation in Hasura's words
 * (compat-facts 7.3).
 */
export function subsetProblems(role: GraphQLSchema, upstream: GraphQLSchema): string[] {
  const problems: string[] = [];
  for (const [operation, roleRoot, upstreamRoot] of [
    ['query', role.getQueryType(), upstream.getQueryType()],
    ['mutation', role.getMutationType(), upstream.getMutationType()],
    ['subscription', role.getSubscriptionType(), upstream.getSubscriptionType()],
  ] as const) {
    if (roleRoot == null) continue;
    if (upstreamRoot == null) problems.push(`the upstream remote schema has no ${operation} root; the role's schema defines one (${JSON.stringify(roleRoot.name)})`);
    else if (upstreamRoot.name !== roleRoot.name) {
      problems.push(`${operation} root ${JSON.stringify(roleRoot.name)} of the role's schema is not the upstream ${operation} root ${JSON.stringify(upstreamRoot.name)}`);
    }
  }
  for (const type of Object.values(role.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    const counterpart = upstream.getType(type.name);
    if (counterpart == null) {
      problems.push(`${JSON.stringify(kindOf(type))}: ${JSON.stringify(type.name)} does not exist in the upstream remote schema`);
      continue;
    }
    if (kindOf(counterpart) !== kindOf(type)) {
      problems.push(`${JSON.stringify(type.name)} is a(n) ${JSON.stringify(kindOf(type))} in the role's schema but a(n) ${JSON.stringify(kindOf(counterpart))} in the upstream remote schema`);
      continue;
    }
    problems.push(...typeProblems(type, counterpart));
  }
  return problems;
}

function kindOf(type: GraphQLNamedType): string {
  if (isObjectType(type)) return 'Object';
  if (isInterfaceType(type)) return 'Interface';
  if (isUnionType(type)) return 'Union';
  if (isEnumType(type)) return 'Enum';
  if (isInputObjectType(type)) return 'Input object';
  return 'Scalar';
}

const quoteAll = (names: string[]): string => names.map((name) => JSON.stringify(name)).join(', ');

function typeProblems(type: GraphQLNamedType, upstream: GraphQLNamedType): string[] {
  if ((isObjectType(type) || isInterfaceType(type)) && (isObjectType(upstream) || isInterfaceType(upstream))) {
    const problems = fieldProblems(type.name, kindOf(type), type.getFields(), upstream.getFields());
    const upstreamInterfaces = new Set(upstream.getInterfaces().map((item) => item.name));
    const custom = type.getInterfaces().map((item) => item.name).filter((name) => !upstreamInterfaces.has(name));
    if (custom.length > 0) problems.push(`custom interfaces are not supported. ${kindOf(type)}${JSON.stringify(type.name)} implements the following custom interfaces: ${quoteAll(custom)}`);
    return problems;
  }
  if (isUnionType(type) && isUnionType(upstream)) {
    const members = new Set(upstream.getTypes().map((item) => item.name));
    const extra = type.getTypes().map((item) => item.name).filter((name) => !members.has(name));
    return extra.length === 0 ? [] : [`union ${JSON.stringify(type.name)} has the following members which are not members of the upstream union: ${quoteAll(extra)}`];
  }
  if (isEnumType(type) && isEnumType(upstream)) {
    const values = new Set(upstream.getValues().map((item) => item.name));
    const extra = type.getValues().map((item) => item.name).filter((name) => !values.has(name));
    return extra.length === 0 ? [] : [`enum ${JSON.stringify(type.name)} has the following values which do not exist in the upstream enum: ${quoteAll(extra)}`];
  }
  if (isInputObjectType(type) && isInputObjectType(upstream)) {
    const problems: string[] = [];
    const upstreamFields = upstream.getFields();
    const roleFields = type.getFields();
    for (const field of Object.values(roleFields)) {
      const counterpart = upstreamFields[field.name];
      if (counterpart === undefined) problems.push(`field ${JSON.stringify(field.name)} does not exist in the "Input object": ${JSON.stringify(type.name)}`);
      else if (String(counterpart.type) !== String(field.type)) {
        problems.push(`expected type of ${JSON.stringify(field.name)}("Input object field") to be ${String(counterpart.type)} but received ${String(field.type)}`);
      }
    }
    const missing = Object.values(upstreamFields)
      .filter((field) => String(field.type).endsWith('!') && field.defaultValue === undefined && roleFields[field.name] === undefined)
      .map((field) => field.name);
    if (missing.length > 0) problems.push(`input object ${JSON.stringify(type.name)} expects the following non nullable fields to be present: ${quoteAll(missing)}`);
    return problems;
  }
  if (isScalarType(type)) return [];
  return [];
}

function fieldProblems(
  typeName: string,
  kind: string,
  fields: Record<string, GraphQLField<unknown, unknown>>,
  upstreamFields: Record<string, GraphQLField<unknown, unknown>>,
): string[] {
  const problems: string[] = [];
  for (const field of Object.values(fields)) {
    const counterpart = upstreamFields[field.name];
    if (counterpart === undefined) {
      problems.push(`field ${JSON.stringify(field.name)} does not exist in the ${JSON.stringify(kind)}: ${JSON.stringify(typeName)}`);
      continue;
    }
    if (String(counterpart.type) !== String(field.type)) {
      problems.push(`expected type of ${JSON.stringify(field.name)}(${JSON.stringify(`${kind} field`)}) to be ${String(counterpart.type)} but received ${String(field.type)}`);
    }
    const upstreamArgs = new Map(counterpart.args.map((arg) => [arg.name, arg]));
    for (const arg of field.args) {
      const upstreamArg = upstreamArgs.get(arg.name);
      if (upstreamArg === undefined) problems.push(`argument ${JSON.stringify(arg.name)} does not exist in the field ${JSON.stringify(field.name)} of the ${JSON.stringify(kind)}: ${JSON.stringify(typeName)}`);
      else if (String(upstreamArg.type) !== String(arg.type)) {
        problems.push(`expected type of ${JSON.stringify(arg.name)}("Argument") to be ${String(upstreamArg.type)} but received ${String(arg.type)}`);
      }
    }
    const present = new Set(field.args.map((arg) => arg.name));
    const missing = counterpart.args.filter((arg) => String(arg.type).endsWith('!') && arg.defaultValue === undefined && !present.has(arg.name)).map((arg) => arg.name);
    if (missing.length > 0) problems.push(`field: ${JSON.stringify(field.name)} expects the following non nullable arguments to be present: ${quoteAll(missing)}`);
  }
  return problems;
}

import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';

/**
 * What "the same type" means when sources are merged into one schema (interface 4.3
 * rule 2: types with the same name and structure merge, others conflict). Both the
 * remote-schema actor, describing a remote, and the schema actor, checking it against the
 * tables and the other remotes, compare types by these shapes.
 */

/** Named types other than roots, built-in scalars and introspection types: the ones that merge. */
export function ownTypes(schema: GraphQLSchema): GraphQLNamedType[] {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter((type) => type != null));
  return Object.values(schema.getTypeMap()).filter((type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type) && !roots.has(type as never));
}

/** A type's structure without descriptions or order. */
export function typeShape(type: GraphQLNamedType): string {
  if (isObjectType(type) || isInterfaceType(type)) {
    const fields = Object.values(type.getFields()).map((field) => `${field.name}(${field.args.map((arg) => `${arg.name}:${String(arg.type)}`).sort().join(',')}):${String(field.type)}`);
    const interfaces = type.getInterfaces().map((item) => item.name).sort();
    return `${isObjectType(type) ? 'object' : 'interface'}[${interfaces.join(',')}]{${fields.sort().join(';')}}`;
  }
  if (isUnionType(type)) return `union{${type.getTypes().map((item) => item.name).sort().join('|')}}`;
  if (isEnumType(type)) return `enum{${type.getValues().map((item) => item.name).sort().join(',')}}`;
  if (isInputObjectType(type)) return `input{${Object.values(type.getFields()).map((field) => `${field.name}:${String(field.type)}`).sort().join(';')}}`;
  return 'scalar';
}

/** The shapes of a schema's own types, by name. */
export function typeShapes(schema: GraphQLSchema): Record<string, string> {
  return Object.fromEntries(ownTypes(schema).map((type) => [type.name, typeShape(type)]));
}

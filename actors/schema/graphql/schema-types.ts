import {
  getNamedType,
  GraphQLSchema,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  specifiedDirectives,
  type GraphQLNamedType,
  type GraphQLSchemaConfig,
  type GraphQLType,
  __Schema,
} from 'graphql';

/**
 * A schema whose types graphql-js need not collect itself: its collection recurses once per
 * type on the way down, so thousands of tables joined by relationships (t1.children -> t2 ->
 * ...) overflowed the call stack on the schema's first request. Here the same types are
 * collected with an explicit stack, in the order graphql-js would collect them (so
 * introspection lists them as before), and handed over whole.
 */
export function schemaOfAllTypes(config: GraphQLSchemaConfig): GraphQLSchema {
  const roots: GraphQLType[] = [];
  for (const root of [config.query, config.mutation, config.subscription]) if (root != null) roots.push(root);
  for (const directive of config.directives ?? specifiedDirectives) for (const arg of directive.args) roots.push(arg.type);
  roots.push(__Schema);
  return new GraphQLSchema({ ...config, types: collectTypes(roots) });
}

/** Named types reachable from `roots`, in the depth-first order of graphql-js' own collection. */
function collectTypes(roots: readonly GraphQLType[]): GraphQLNamedType[] {
  const seen = new Set<GraphQLNamedType>();
  const pending: Iterator<GraphQLType>[] = [];
  const visit = (type: GraphQLType) => {
    const named = getNamedType(type);
    if (seen.has(named)) return;
    seen.add(named);
    pending.push(referencedTypes(named));
  };
  for (const root of roots) {
    visit(root);
    while (pending.length > 0) {
      const next = pending[pending.length - 1]!.next();
      if (next.done === true) pending.pop();
      else visit(next.value);
    }
  }
  return [...seen];
}

/** The types `type` refers to: its interfaces, members, fields' and arguments' types (resolving its field thunks). */
export function* referencedTypes(type: GraphQLNamedType): Generator<GraphQLType> {
  if (isUnionType(type)) {
    yield* type.getTypes();
  } else if (isObjectType(type) || isInterfaceType(type)) {
    yield* type.getInterfaces();
    for (const field of Object.values(type.getFields())) {
      yield field.type;
      for (const arg of field.args) yield arg.type;
    }
  } else if (isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) yield field.type;
  }
}

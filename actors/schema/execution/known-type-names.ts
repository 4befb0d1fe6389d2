import { GraphQLError, isTypeDefinitionNode, type ValidationRule } from 'graphql';
import { didYouMean } from 'graphql/jsutils/didYouMean.js';
import { suggestionList } from 'graphql/jsutils/suggestionList.js';

/**
 * graphql-js' KnownTypeNamesRule, asking the schema for each name the document uses rather
 * than reading its whole type map first: on a LazySchema (lazy-schema.ts) the map is every
 * type of the role, made for this one rule. The map is read only for the suggestions of a
 * name that is unknown, so the messages are graphql-js' own.
 */
export const KnownTypeNamesByLookupRule: ValidationRule = (context) => {
  const schema = context.getSchema();
  const defined = new Set<string>();
  for (const definition of context.getDocument().definitions) if (isTypeDefinitionNode(definition)) defined.add(definition.name.value);
  return {
    NamedType(node) {
      const name = node.name.value;
      if (defined.has(name) || schema.getType(name) !== undefined) return;
      const known = [...Object.keys(schema.getTypeMap()), ...defined];
      context.reportError(new GraphQLError(`Unknown type "${name}".${didYouMean(suggestionList(name, known))}`, { nodes: node }));
    },
  };
};

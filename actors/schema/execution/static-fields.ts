import { executeSync, Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { CollectedField } from '../sql/fields.js';
import { PLACEHOLDER_FIELD } from '../graphql/role-schema.js';

/**
 * Root fields answered without the database: introspection (`__schema`, `__type`),
 * executed by graphql-js against the role's own schema so a role only ever sees its
 * own types, and the `no_queries_available` placeholder.
 */
export function resolveStaticField(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  field: CollectedField,
): string {
  if (field.name === PLACEHOLDER_FIELD) return '""';
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [{ ...operation, selectionSet: { kind: Kind.SELECTION_SET, selections: field.nodes } }, ...fragments.values()],
  };
  const result = executeSync({ schema, document, variableValues: variables });
  return JSON.stringify(result.data?.[field.responseKey] ?? null);
}

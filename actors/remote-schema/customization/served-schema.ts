import {
  buildASTSchema,
  Kind,
  parse,
  printSchema,
  visit,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type NameNode,
  type OperationTypeDefinitionNode,
} from 'graphql';
import type { RemoteNames } from './names.js';

const name = (value: string): NameNode => ({ kind: Kind.NAME, value });

/** The engine's root type names, under which every source's root fields are served side by side (compat-facts 8). */
export const ENGINE_ROOTS = { query: 'query_root', mutation: 'mutation_root' } as const;

/**
 * A remote schema (or a role's view of it, in upstream names) as the engine serves it:
 * under its customization (compat-facts 7.1: types and the chosen types' fields renamed;
 * with `root_fields_namespace` every root field moved under one non-null field of that
 * name, whose type is the customized upstream root), with its roots named `query_root`
 * and `mutation_root` so that its SDL merges with the tables' and other remotes' by name,
 * and without a subscription root (interface 4.3 rule 4). The result validates and
 * introspects requests only; forward/plan.ts maps operations back to the upstream names.
 */
export function servedSchema(view: GraphQLSchema, names: RemoteNames): GraphQLSchema {
  const upstreamRoots = { query: view.getQueryType(), mutation: view.getMutationType() };
  const subscriptionRoot = view.getSubscriptionType()?.name;
  // Without a namespace the upstream roots themselves become the engine's roots.
  const rootNames = new Map<string, string>();
  if (names.namespace === null) {
    for (const operation of ['query', 'mutation'] as const) {
      const root = upstreamRoots[operation];
      if (root != null) rootNames.set(root.name, ENGINE_ROOTS[operation]);
    }
  }
  const servedType = (upstream: string) => rootNames.get(upstream) ?? names.servedType(upstream);
  const renameFields = (parent: string, fields: readonly FieldDefinitionNode[] | undefined) =>
    fields?.map((field) => ({ ...field, name: name(names.servedField(parent, field.name.value)) }));
  const renamed = visit(parse(printSchema(view)), {
    SchemaDefinition: () => null,
    ObjectTypeDefinition: {
      enter: (node) => (node.name.value === subscriptionRoot ? null : undefined),
      leave: (node) => ({ ...node, name: name(servedType(node.name.value)), fields: renameFields(node.name.value, node.fields) }),
    },
    NamedType: (node) => ({ ...node, name: name(servedType(node.name.value)) }),
    InterfaceTypeDefinition: { leave: (node) => ({ ...node, name: name(servedType(node.name.value)), fields: renameFields(node.name.value, node.fields) }) },
    InputObjectTypeDefinition: { leave: (node) => ({ ...node, name: name(servedType(node.name.value)) }) },
    EnumTypeDefinition: { leave: (node) => ({ ...node, name: name(servedType(node.name.value)) }) },
    UnionTypeDefinition: { leave: (node) => ({ ...node, name: name(servedType(node.name.value)) }) },
    ScalarTypeDefinition: { leave: (node) => ({ ...node, name: name(servedType(node.name.value)) }) },
  });
  const definitions: DefinitionNode[] = [...renamed.definitions];
  const roots: OperationTypeDefinitionNode[] = [];
  const addRoot = (operation: 'query' | 'mutation', type: GraphQLObjectType | null | undefined) => {
    if (type == null) return;
    if (names.namespace !== null) {
      // The wrapper root holding only the namespace field.
      definitions.push({
        kind: Kind.OBJECT_TYPE_DEFINITION,
        name: name(ENGINE_ROOTS[operation]),
        fields: [{ kind: Kind.FIELD_DEFINITION, name: name(names.namespace), type: { kind: Kind.NON_NULL_TYPE, type: { kind: Kind.NAMED_TYPE, name: name(servedType(type.name)) } } }],
      });
    }
    roots.push({ kind: Kind.OPERATION_TYPE_DEFINITION, operation: operation as never, type: { kind: Kind.NAMED_TYPE, name: name(ENGINE_ROOTS[operation]) } });
  };
  addRoot('query', upstreamRoots.query);
  addRoot('mutation', upstreamRoots.mutation);
  definitions.push({ kind: Kind.SCHEMA_DEFINITION, operationTypes: roots });
  return buildASTSchema({ kind: Kind.DOCUMENT, definitions } as DocumentNode);
}

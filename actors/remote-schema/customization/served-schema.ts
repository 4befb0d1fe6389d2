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

/**
 * A remote schema (or a role's view of it, in upstream names) as served under its
 * customization (compat-facts 7.1): types and the chosen types' fields renamed, and with
 * `root_fields_namespace` every root field moved under one non-null field of that name
 * whose type is the (customized) upstream root type, as Hasura serves it. The result
 * validates and introspects requests only; remote-forward.ts maps operations back.
 */
export function customizeSchema(view: GraphQLSchema, names: RemoteNames): GraphQLSchema {
  if (!names.customized) return view;
  const renameFields = (parent: string, fields: readonly FieldDefinitionNode[] | undefined) =>
    fields?.map((field) => ({ ...field, name: name(names.servedField(parent, field.name.value)) }));
  const renamed = visit(parse(printSchema(view)), {
    SchemaDefinition: () => null,
    NamedType: (node) => ({ ...node, name: name(names.servedType(node.name.value)) }),
    ObjectTypeDefinition: { leave: (node) => ({ ...node, name: name(names.servedType(node.name.value)), fields: renameFields(node.name.value, node.fields) }) },
    InterfaceTypeDefinition: { leave: (node) => ({ ...node, name: name(names.servedType(node.name.value)), fields: renameFields(node.name.value, node.fields) }) },
    InputObjectTypeDefinition: { leave: (node) => ({ ...node, name: name(names.servedType(node.name.value)) }) },
    EnumTypeDefinition: { leave: (node) => ({ ...node, name: name(names.servedType(node.name.value)) }) },
    UnionTypeDefinition: { leave: (node) => ({ ...node, name: name(names.servedType(node.name.value)) }) },
    ScalarTypeDefinition: { leave: (node) => ({ ...node, name: name(names.servedType(node.name.value)) }) },
  });
  const definitions: DefinitionNode[] = [...renamed.definitions];
  const taken = new Set(Object.keys(view.getTypeMap()).map(names.servedType));
  const roots: OperationTypeDefinitionNode[] = [];
  const addRoot = (operation: 'query' | 'mutation' | 'subscription', type: GraphQLObjectType | null | undefined) => {
    if (type == null) return;
    let root = names.servedType(type.name);
    if (names.namespace !== null && operation !== 'subscription') {
      // A wrapper root holding only the namespace field; stitching renames it to query_root/mutation_root.
      const wrapped = root;
      root = `${names.namespace}_${operation}_root`;
      while (taken.has(root)) root = `${root}_`;
      taken.add(root);
      definitions.push({
        kind: Kind.OBJECT_TYPE_DEFINITION,
        name: name(root),
        fields: [{ kind: Kind.FIELD_DEFINITION, name: name(names.namespace), type: { kind: Kind.NON_NULL_TYPE, type: { kind: Kind.NAMED_TYPE, name: name(wrapped) } } }],
      });
    }
    roots.push({ kind: Kind.OPERATION_TYPE_DEFINITION, operation: operation as never, type: { kind: Kind.NAMED_TYPE, name: name(root) } });
  };
  addRoot('query', view.getQueryType());
  addRoot('mutation', view.getMutationType());
  addRoot('subscription', view.getSubscriptionType());
  definitions.push({ kind: Kind.SCHEMA_DEFINITION, operationTypes: roots });
  return buildASTSchema({ kind: Kind.DOCUMENT, definitions } as DocumentNode);
}

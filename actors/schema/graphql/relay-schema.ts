import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
} from 'graphql';
import type { RoleAccess, TableAccess } from '../models/role-access.js';
import { connectionRelationship, connectionRootFields, isNode, relayNames } from '../models/relay-access.js';
import { QUERY_ROOT, typeNames } from '../models/type-names.js';
import { invariant } from '../../../src/errors/service-error.js';
import { MUTATION_ROOT } from '../models/mutation-names.js';
import type { WriteAccess } from '../models/write-access.js';
import { boolExpType } from './filter-types.js';
import { argsArgument } from './function-arguments.js';
import { functionMutationFields } from './function-types.js';
import { mutationFields } from './mutation-types.js';
import { orderByType } from './order-types.js';
import { PLACEHOLDER_FIELD } from './role-schema.js';
import { selectColumnEnum } from './select-column.js';
import { columnField, computedField, selectArguments, tableAggregateType } from './table-types.js';
import { nonNullList, TypeRegistry } from './type-registry.js';

/**
 * The Relay schema one role sees at `/v1beta1/relay` (Hasura's Relay API): `node(id)` and
 * `<t>_connection` for every table that is a Node for the role, each table's type
 * implementing `Node` with its global `id` (which takes the place of a column named `id`),
 * and `<rel>_connection` beside each array relationship to a Node table.
 */
export function buildRelaySchema(role: RoleAccess, writes: WriteAccess): GraphQLSchema {
  const registry = new TypeRegistry();
  const node = new GraphQLInterfaceType({
    name: relayNames.nodeInterface,
    description: 'An object with globally unique ID',
    fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'A globally unique identifier' } },
  });
  // Registered before anything else asks for them: the shared builders (aggregates, computed
  // fields) then find these types under the tables' names instead of making their own.
  const objects = [...role.tables.values()].map((access) => relayObjectType(registry, role, node, access));
  const connections = connectionRootFields(role);
  const query = new GraphQLObjectType({
    name: QUERY_ROOT,
    fields: () => {
      if (connections.size === 0) return { [PLACEHOLDER_FIELD]: { type: new GraphQLNonNull(GraphQLString) } };
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {
        node: { type: node, args: { id: { type: new GraphQLNonNull(GraphQLID), description: 'A globally unique id' } } },
      };
      for (const [name, { access, function: target }] of connections) {
        const type = new GraphQLNonNull(connectionType(registry, access));
        if (target === undefined) {
          fields[name] = { type, args: connectionArguments(registry, role, access), description: `fetch data from the table: ${JSON.stringify(access.model.table.name)}` };
          continue;
        }
        const fn = target.function;
        fields[name] = {
          type,
          args: { ...argsArgument(registry, fn.argsTypeName, fn.arguments, `input parameters for function ${JSON.stringify(fn.fieldName)}`), ...connectionArguments(registry, role, access) },
          description: fn.description ?? `execute function ${JSON.stringify(fn.function.name)} which returns ${JSON.stringify(access.model.table.name)}`,
        };
      }
      return fields;
    },
  });
  // Mutations as on /v1/graphql; their rows are the Relay types, so `returning { id }` is the global id.
  const mutation = writes.rootFields.size === 0 && role.functionMutations.size === 0
    ? undefined
    : new GraphQLObjectType({ name: MUTATION_ROOT, fields: () => ({ ...mutationFields(registry, role, writes), ...functionMutationFields(registry, role) }) });
  return new GraphQLSchema({ query, ...(mutation === undefined ? {} : { mutation }), types: objects });
}

function relayObjectType(registry: TypeRegistry, role: RoleAccess, node: GraphQLInterfaceType, access: TableAccess): GraphQLObjectType {
  const name = typeNames.object(access.model.typeName);
  const nodeTable = isNode(access);
  return registry.get(name, () => new GraphQLObjectType({
    name,
    description: access.model.description ?? `columns and relationships of ${JSON.stringify(access.model.table.name)}`,
    interfaces: nodeTable ? [node] : [],
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = nodeTable ? { id: { type: new GraphQLNonNull(GraphQLID) } } : {};
      for (const [fieldName, target] of access.fields) {
        if (fieldName in fields) continue;
        switch (target.kind) {
          case 'column':
            fields[fieldName] = columnField(target.column);
            break;
          case 'computed-scalar':
          case 'computed-table':
            fields[fieldName] = computedField(registry, role, target.field);
            break;
          case 'object-relationship':
            fields[fieldName] = { type: relatedType(registry, role, node, target.relationship.target), description: 'An object relationship' };
            break;
          case 'array-relationship': {
            const related = role.tables.get(target.relationship.target)!;
            fields[fieldName] = { type: new GraphQLNonNull(nonNullList(relatedType(registry, role, node, related.model.key))), args: selectArguments(registry, role, related), description: 'An array relationship' };
            const connection = connectionRelationship(role, access, relayNames.connectionField(fieldName));
            if (connection !== undefined) {
              fields[relayNames.connectionField(fieldName)] = { type: new GraphQLNonNull(connectionType(registry, related)), args: connectionArguments(registry, role, related), description: 'An array relationship connection' };
            }
            break;
          }
          case 'array-aggregate': {
            const related = role.tables.get(target.relationship.target)!;
            fields[fieldName] = { type: new GraphQLNonNull(tableAggregateType(registry, role, related)), args: selectArguments(registry, role, related), description: 'An aggregate relationship' };
            break;
          }
        }
      }
      return fields;
    },
  }));
}

function relatedType(registry: TypeRegistry, role: RoleAccess, node: GraphQLInterfaceType, key: string): GraphQLObjectType {
  return relayObjectType(registry, role, node, role.tables.get(key)!);
}

/** `distinct_on`, `order_by`, `where` as on /v1/graphql, and Relay's `first`, `last`, `after`, `before` in place of limit and offset. */
function connectionArguments(registry: TypeRegistry, role: RoleAccess, access: TableAccess): GraphQLFieldConfigArgumentMap {
  return {
    after: { type: GraphQLString },
    before: { type: GraphQLString },
    distinct_on: { type: nonNullList(selectColumnEnum(registry, access)), description: 'distinct select on columns' },
    first: { type: GraphQLInt },
    last: { type: GraphQLInt },
    order_by: { type: nonNullList(orderByType(registry, role, access)), description: 'sort the rows by one or more columns' },
    where: { type: boolExpType(registry, role, access), description: 'filter the rows returned' },
  };
}

function connectionType(registry: TypeRegistry, access: TableAccess): GraphQLObjectType {
  const table = access.model.typeName;
  const node = registry.get<GraphQLObjectType>(typeNames.object(table), () => {
    invariant(false, `the relay type of ${table} is registered first`);
  });
  const edge = registry.get(relayNames.edge(table), () => new GraphQLObjectType({
    name: relayNames.edge(table),
    fields: { cursor: { type: new GraphQLNonNull(GraphQLString) }, node: { type: new GraphQLNonNull(node) } },
  }));
  return registry.get(relayNames.connection(table), () => new GraphQLObjectType({
    name: relayNames.connection(table),
    description: `A Relay connection object on ${JSON.stringify(access.model.table.name)}`,
    fields: { edges: { type: new GraphQLNonNull(nonNullList(edge)) }, pageInfo: { type: new GraphQLNonNull(pageInfoType(registry)) } },
  }));
}

function pageInfoType(registry: TypeRegistry): GraphQLObjectType {
  return registry.get(relayNames.pageInfo, () => new GraphQLObjectType({
    name: relayNames.pageInfo,
    // Hasura declares the cursors String! (Schema/Select.hs), though an empty page has none: they are null there.
    fields: {
      endCursor: { type: new GraphQLNonNull(GraphQLString) },
      hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
      hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
      startCursor: { type: new GraphQLNonNull(GraphQLString) },
    },
  }));
}

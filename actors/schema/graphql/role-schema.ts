import { GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap, type GraphQLSchema } from 'graphql';
import type { RoleAccess } from '../models/role-access.js';
import { QUERY_ROOT, SUBSCRIPTION_ROOT } from '../models/type-names.js';
import type { RootFieldTarget } from '../models/role-access.js';
import { streamField } from './stream-types.js';
import { columnOutputType, nonNullList, TypeRegistry } from './type-registry.js';
import { countArguments, selectArguments, tableAggregateType, tableObjectType } from './table-types.js';
import { functionMutationFields, functionRootField } from './function-types.js';
import type { WriteAccess } from '../models/write-access.js';
import { MUTATION_ROOT } from '../models/mutation-names.js';
import { mutationFields } from './mutation-types.js';
import { LazySchema } from './lazy-schema.js';

/**
 * The GraphQL schema one role sees (compat-facts 8): only the tables, columns, root
 * fields and aggregates its permissions allow; a role that can query nothing gets the
 * `no_queries_available` placeholder. Mutation and subscription roots are added here
 * when they exist, from the same RoleAccess.
 */
export const PLACEHOLDER_FIELD = 'no_queries_available';

export function buildRoleSchema(role: RoleAccess, writes?: WriteAccess): GraphQLSchema {
  const registry = new TypeRegistry();
  const query = new GraphQLObjectType({
    name: QUERY_ROOT,
    fields: () => (role.rootFields.size === 0 ? placeholderFields() : rootFields(registry, role, role.rootFields)),
  });
  const subscription = role.subscriptionFields.size === 0 ? undefined : new GraphQLObjectType({ name: SUBSCRIPTION_ROOT, fields: () => rootFields(registry, role, role.subscriptionFields) });
  const tableMutations = writes !== undefined && writes.rootFields.size > 0;
  const mutation = !tableMutations && role.functionMutations.size === 0
    ? undefined
    : new GraphQLObjectType({
      name: MUTATION_ROOT,
      fields: () => ({ ...(tableMutations ? mutationFields(registry, role, writes) : {}), ...functionMutationFields(registry, role) }),
    });
  // Built here from checked metadata, not given by a user: validating it again on each
  // role's first request cost a fifth of the build at thousands of tables (the tests validate it).
  return new LazySchema({ query, ...(mutation === undefined ? {} : { mutation }), ...(subscription === undefined ? {} : { subscription }), assumeValid: true });
}

function rootFields(registry: TypeRegistry, role: RoleAccess, targets: ReadonlyMap<string, RootFieldTarget>): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const [name, target] of targets) {
    const access = target.kind === 'select-count' ? target.access : role.tables.get(target.table)!;
    const table = JSON.stringify(access.model.table.name);
    switch (target.kind) {
      case 'select':
        fields[name] = {
          type: new GraphQLNonNull(nonNullList(tableObjectType(registry, role, access))),
          args: selectArguments(registry, role, access),
          description: `fetch data from the table: ${table}`,
        };
        break;
      case 'select-by-pk':
        fields[name] = {
          type: tableObjectType(registry, role, access),
          args: Object.fromEntries(access.model.primaryKey.map((column) => [column.fieldName, { type: columnOutputType(column.type, false) }])),
          description: `fetch data from the table: ${table} using primary key columns`,
        };
        break;
      case 'select-aggregate':
      case 'select-count':
        fields[name] = {
          type: new GraphQLNonNull(tableAggregateType(registry, role, access)),
          args: target.kind === 'select-count' ? countArguments(registry, role, access) : selectArguments(registry, role, access),
          description: `fetch aggregated fields from the table: ${table}`,
        };
        break;
      case 'select-stream':
        fields[name] = streamField(registry, role, access);
        break;
      case 'function':
      case 'function-aggregate':
        fields[name] = functionRootField(registry, role, target);
        break;
    }
  }
  return fields;
}

function placeholderFields(): GraphQLFieldConfigMap<unknown, unknown> {
  return {
    [PLACEHOLDER_FIELD]: {
      type: new GraphQLNonNull(GraphQLString),
      description:
        "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.",
    },
  };
}

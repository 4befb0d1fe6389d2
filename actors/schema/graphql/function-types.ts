import { GraphQLNonNull, type GraphQLFieldConfig, type GraphQLFieldConfigMap } from 'graphql';
import type { FunctionRootTarget, RoleAccess } from '../models/role-access.js';
import { argsArgument } from './function-arguments.js';
import { nonNullList, type TypeRegistry } from './type-registry.js';
import { selectArguments, tableAggregateType, tableObjectType } from './table-types.js';

/**
 * The GraphQL shape of tracked functions (compat-facts 6.2):
 * `fn(args: fn_args!, distinct_on, limit, offset, order_by, where): [t!]!` and
 * `fn_aggregate(...)`, under query_root, or under mutation_root for mutations.
 */

export function functionRootField(registry: TypeRegistry, role: RoleAccess, target: FunctionRootTarget): GraphQLFieldConfig<unknown, unknown> {
  const fn = target.function;
  const access = role.tables.get(target.table)!;
  const args = {
    ...argsArgument(registry, fn.argsTypeName, fn.arguments, `input parameters for function ${JSON.stringify(fn.fieldName)}`),
    ...(fn.returnsSet ? selectArguments(registry, role, access) : {}),
  };
  const name = JSON.stringify(fn.function.name);
  const table = JSON.stringify(access.model.table.name);
  if (target.kind === 'function-aggregate') {
    return { type: new GraphQLNonNull(tableAggregateType(registry, role, access)), args, description: fn.description ?? `execute function ${name} and query aggregates on result of table type ${table}` };
  }
  const objectType = tableObjectType(registry, role, access);
  return {
    // A function returning one row (not SETOF) gives a nullable object (compat-facts 6.2).
    type: fn.returnsSet ? new GraphQLNonNull(nonNullList(objectType)) : objectType,
    args,
    description: fn.description ?? `execute function ${name} which returns ${table}`,
  };
}

export function functionMutationFields(registry: TypeRegistry, role: RoleAccess): GraphQLFieldConfigMap<unknown, unknown> {
  return Object.fromEntries([...role.functionMutations].map(([name, target]) => [name, functionRootField(registry, role, target)]));
}

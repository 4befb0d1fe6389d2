import { GraphQLInputObjectType, GraphQLNonNull, type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap } from 'graphql';
import type { ColumnType } from '../column-types.js';
import type { FunctionRootTarget } from '../function-access.js';
import { inputArgumentsOf, type ArgumentModel, type ComputedFieldModel } from '../function-model.js';
import type { RoleAccess } from '../role-access.js';
import { columnOutputType, nonNullList, type TypeRegistry } from './type-registry.js';
import { selectArguments, tableAggregateType, tableObjectType } from './table-types.js';

/**
 * The GraphQL shape of tracked functions and computed fields (compat-facts 6.2):
 * `fn(args: fn_args!, distinct_on, limit, offset, order_by, where): [t!]!`,
 * `fn_aggregate(...)`, and computed fields on table types with their own `args`.
 */

/**
 * `args: <fn>_args`, required when some argument has no default; absent when the
 * function takes nothing from the caller. Every field is nullable: Postgres arguments
 * are, and the compiler refuses a missing one without a default (as Hasura does).
 */
export function argsArgument(registry: TypeRegistry, typeName: string, args: readonly ArgumentModel[], description: string): GraphQLFieldConfigArgumentMap {
  const inputs = inputArgumentsOf(args);
  if (inputs.length === 0) return {};
  const type = registry.get(typeName, () => new GraphQLInputObjectType({
    name: typeName,
    fields: () => Object.fromEntries(inputs.map((arg) => [arg.name, { type: columnOutputType(arg.type, true) }])),
  }));
  return { args: { type: inputs.every((arg) => arg.hasDefault) ? type : new GraphQLNonNull(type), description } };
}

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

/** A computed field on its table's object type. */
export function computedField(registry: TypeRegistry, role: RoleAccess, field: ComputedFieldModel): GraphQLFieldConfig<unknown, unknown> {
  const args = argsArgument(registry, field.argsTypeName, field.arguments, `input parameters for computed field ${JSON.stringify(field.name)}`);
  if (field.returns.kind === 'scalar') return { type: columnOutputType(field.returns.type, true), args, description: field.description };
  const access = role.tables.get(field.returns.table)!;
  const objectType = tableObjectType(registry, role, access);
  if (!field.returns.returnsSet) return { type: objectType, args, description: field.description };
  return { type: new GraphQLNonNull(nonNullList(objectType)), args: { ...args, ...selectArguments(registry, role, access) }, description: field.description };
}

/**
 * The type of a scalar computed field without arguments of its own: such a field can
 * filter and sort (compat-facts 6.2); null for any other.
 */
export function plainScalarType(field: ComputedFieldModel): ColumnType | null {
  return field.returns.kind === 'scalar' && inputArgumentsOf(field.arguments).length === 0 ? field.returns.type : null;
}

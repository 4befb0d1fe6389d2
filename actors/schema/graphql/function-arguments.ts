import { GraphQLInputObjectType, GraphQLNonNull, type GraphQLFieldConfigArgumentMap } from 'graphql';
import { inputArgumentsOf, type ArgumentModel } from '../models/function-model.js';
import { columnOutputType, type TypeRegistry } from './type-registry.js';

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

import { GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schemaOfAllTypes } from './schema-types.js';

/** Tables t0..t(count-1), each with a `next` object and a `where` input leading to the following one, as relationships do. */
function chainedRoot(count: number): GraphQLObjectType {
  const objects: GraphQLObjectType[] = [];
  const inputs: GraphQLInputObjectType[] = [];
  for (let i = 0; i < count; i++) {
    inputs.push(new GraphQLInputObjectType({ name: `t${i}_bool_exp`, fields: () => ({ id: { type: GraphQLInt }, ...(i + 1 < count ? { next: { type: inputs[i + 1]! } } : {}) }) }));
    objects.push(new GraphQLObjectType({
      name: `t${i}`,
      fields: (): GraphQLFieldConfigMap<unknown, unknown> => ({
        id: { type: new GraphQLNonNull(GraphQLInt) },
        ...(i > 0 ? { previous: { type: objects[i - 1]! } } : {}),
        ...(i + 1 < count ? { next: { type: new GraphQLList(objects[i + 1]!), args: { where: { type: inputs[i + 1]! }, label: { type: GraphQLString } } } } : {}),
      }),
    }));
  }
  return new GraphQLObjectType({ name: 'query_root', fields: { t0: { type: objects[0]!, args: { where: { type: inputs[0]! } } } } });
}

describe('schemaOfAllTypes', () => {
  it('lists the types in the order graphql-js collects them, so introspection is unchanged', () => {
    const own = new GraphQLSchema({ query: chainedRoot(50) });
    const ours = schemaOfAllTypes({ query: chainedRoot(50) });
    expect(Object.keys(ours.getTypeMap())).toEqual(Object.keys(own.getTypeMap()));
    expect(Object.keys(ours.getTypeMap())).toEqual(expect.arrayContaining(['t49', 't49_bool_exp', '__Schema']));
  });

  it('builds a schema of tables chained thousands deep, where graphql-js alone overflows the stack', () => {
    // Deep enough that graphql-js overflows even when optimised code, with its smaller
    // frames, runs it: warmed by earlier files in the same process, it fits 5,000.
    const depth = 20_000;
    expect(() => new GraphQLSchema({ query: chainedRoot(depth) })).toThrow(RangeError);
    const schema = schemaOfAllTypes({ query: chainedRoot(depth) });
    expect(schema.getType(`t${depth - 1}`)).toBeInstanceOf(GraphQLObjectType);
    expect(schema.getType(`t${depth - 1}_bool_exp`)).toBeInstanceOf(GraphQLInputObjectType);
  });
});

import { graphqlSync, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, printSchema, validate, type GraphQLFieldConfigMap } from 'graphql';
import { describe, expect, it } from 'vitest';
import { validateLeniently } from '../execution/lenient-validation.js';
import { LazySchema } from './lazy-schema.js';

/** Root fields t0..t(count-1) over tables chained by relationships, counting how many types had their fields made. */
function chainedTables(count: number): { query: GraphQLObjectType; made: () => number } {
  let made = 0;
  const objects: GraphQLObjectType[] = [];
  const inputs: GraphQLInputObjectType[] = [];
  for (let i = 0; i < count; i++) {
    inputs.push(new GraphQLInputObjectType({
      name: `t${i}_bool_exp`,
      fields: () => {
        made++;
        return { id: { type: GraphQLInt }, ...(i + 1 < count ? { next: { type: inputs[i + 1]! } } : {}) };
      },
    }));
    objects.push(new GraphQLObjectType({
      name: `t${i}`,
      fields: (): GraphQLFieldConfigMap<unknown, unknown> => {
        made++;
        return {
          id: { type: new GraphQLNonNull(GraphQLInt) },
          ...(i > 0 ? { previous: { type: objects[i - 1]! } } : {}),
          ...(i + 1 < count ? { next: { type: new GraphQLList(objects[i + 1]!), args: { where: { type: inputs[i + 1]! }, label: { type: GraphQLString } } } } : {}),
        };
      },
    }));
  }
  const query = new GraphQLObjectType({
    name: 'query_root',
    fields: () => {
      made++;
      return Object.fromEntries(objects.map((object, i) => [`t${i}`, { type: object, args: { where: { type: inputs[i]! }, limit: { type: GraphQLInt } } }]));
    },
  });
  return { query, made: () => made };
}

describe('LazySchema', () => {
  it('validates a request by making the types it reaches, not the thousands it does not', () => {
    const tables = chainedTables(2000);
    const schema = new LazySchema({ query: tables.query, assumeValid: true });
    const document = parse('query ($w: t5_bool_exp, $n: Int) { t5(where: $w, limit: $n) { id next { id } } }');
    expect(validateLeniently(schema, document).problems).toEqual([]);
    // The root's fields, t5 and t6 (selected), the variables' t5_bool_exp: not the 3,999 others.
    expect(tables.made()).toBeLessThan(10);
  });

  it('finds every type of the whole schema, and no other', () => {
    const lazy = new LazySchema({ query: chainedTables(30).query, assumeValid: true });
    const whole = new GraphQLSchema({ query: chainedTables(30).query });
    for (const name of Object.keys(whole.getTypeMap())) expect(lazy.getType(name)?.name).toBe(name);
    expect(lazy.getType('Float')).toBeUndefined();
    expect(lazy.getType('t30')).toBeUndefined();
  });

  it('introspects and prints as the whole schema does', () => {
    const lazy = new LazySchema({ query: chainedTables(30).query, assumeValid: true });
    const whole = new GraphQLSchema({ query: chainedTables(30).query });
    expect(printSchema(lazy)).toBe(printSchema(whole));
    const types = '{ __schema { types { name } queryType { name } } __type(name: "t3_bool_exp") { inputFields { name } } }';
    expect(graphqlSync({ schema: lazy, source: types })).toEqual(graphqlSync({ schema: whole, source: types }));
  });

  it('refuses an unknown type with graphql-js words and suggestions', () => {
    const lazy = new LazySchema({ query: chainedTables(30).query, assumeValid: true });
    const whole = new GraphQLSchema({ query: chainedTables(30).query });
    for (const text of ['query ($w: t3_bool_ex) { t3(where: $w) { id } }', '{ t1 { ... on t33 { id } } }', 'query ($f: Float) { t1 { id } }']) {
      const document = parse(text);
      const ours = validateLeniently(lazy, document).problems.map((problem) => problem.message);
      expect(ours.length).toBeGreaterThan(0);
      expect(ours).toEqual(validate(whole, document).map((problem) => problem.message).filter((message) => !message.includes('never used')));
    }
    expect(validateLeniently(lazy, parse('query ($w: t3_bool_ex) { t3(where: $w) { id } }')).problems[0]!.message).toBe('Unknown type "t3_bool_ex". Did you mean "t3_bool_exp", "t0_bool_exp", "t1_bool_exp", "t2_bool_exp", or "t4_bool_exp"?');
  });
});

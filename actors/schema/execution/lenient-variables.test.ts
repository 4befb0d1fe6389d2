import {
  buildSchema,
  getVariableValues,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  parse,
  type OperationDefinitionNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/errors/service-error.js';
import { seededRandom } from '../../../test/harness/seeded-random.js';
import { coerceLeniently, passedThrough } from './lenient-variables.js';

const schema = buildSchema(`
  scalar numeric
  enum order_by { asc desc asc_nulls_first }
  input range { from: Int, to: Int }
  input filter {
    id: Int
    name: String!
    tags: [String!]
    order: order_by = desc
    within: range
    and: [filter!]
    amount: numeric
  }
  input odd { constructor: Boolean, x: Int }
  input one @oneOf { a: Int, b: String }
  type Query { field(a: Int, b: Float, c: ID, d: Boolean, e: String): Int }
`);

const TYPES = ['Int', 'Int!', 'Float', 'Float!', 'String', 'String!', 'Boolean', 'Boolean!', 'ID', 'ID!', '[Int]', '[String!]!', 'numeric', 'range', 'order_by', '[order_by!]', 'filter', 'filter!', '[filter]', 'one', 'odd'];
const VALUES: unknown[] = [1, -5, 0, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, 2.5, 1e30, Number.NaN, '12', 'abc', '', 'asc', 'desc', true, false, null, [1, 2], [null], { from: 1 }, { from: 'x' }, { a: 1 }];
const ABSENT = Symbol('absent');

/** Mostly a value of the right shape for `type` (what clients send), else anything from VALUES. */
function valueFor(type: string, pick: (below: number) => number, depth = 0): unknown {
  if (pick(depth === 0 ? 5 : 15) === 0 || depth > 3) return VALUES[pick(VALUES.length)];
  if (type.endsWith('!')) return valueFor(type.slice(0, -1), pick, depth);
  if (type.startsWith('[')) return Array.from({ length: pick(3) }, () => valueFor(type.slice(1, -1), pick, depth + 1));
  switch (type) {
    case 'range':
      return pickFields({ from: () => pick(10), to: () => pick(10) }, pick);
    case 'filter':
      return pickFields(
        {
          id: () => pick(100),
          name: () => 'n',
          tags: () => valueFor('[String!]', pick, depth + 1),
          order: () => ['asc', 'desc', 'asc_nulls_first', null][pick(4)],
          within: () => valueFor('range', pick, depth + 1),
          and: () => valueFor('[filter!]', pick, depth + 1),
          amount: () => '1.5',
          extra: () => 1,
        },
        pick,
      );
    case 'order_by':
      return ['asc', 'desc', 'asc_nulls_first'][pick(3)];
    case 'one':
      return pickFields({ a: () => 1, b: () => 'b' }, pick);
    case 'odd':
      return pickFields({ constructor: () => pick(2) === 0, x: () => 1 }, pick);
    default:
      return VALUES[pick(VALUES.length)];
  }
}

/** Fields picked seldom: `extra` is no field, `amount` a custom scalar; either sends the variable to graphql-js. */
const SELDOM = new Set(['extra', 'amount']);

/** Some of the fields, in a random order: `name` (required where it is a field) mostly, SELDOM's seldom. */
function pickFields(makers: Record<string, () => unknown>, pick: (below: number) => number): Record<string, unknown> {
  const names = Object.keys(makers).filter((name) => (name === 'name' ? pick(8) !== 0 : pick(2) === 0 && (!SELDOM.has(name) || pick(4) === 0)));
  for (let index = names.length - 1; index > 0; index--) {
    const other = pick(index + 1);
    [names[index], names[other]] = [names[other]!, names[index]!];
  }
  return Object.fromEntries(names.map((name) => [name, makers[name]!()]));
}

describe('coerceLeniently', () => {
  it('gives what graphql-js gives, field order included, whether the variables pass through or are coerced', () => {
    const pick = seededRandom(16);
    let passed = 0;
    let passedObjects = 0;
    for (let round = 0; round < 6000; round++) {
      const count = 1 + pick(3);
      const types = Array.from({ length: count }, () => TYPES[pick(TYPES.length)]!);
      const document = parse(`query (${types.map((type, index) => `$v${index}: ${type}`).join(', ')}) { field }`);
      const definitions = (document.definitions[0] as OperationDefinitionNode).variableDefinitions ?? [];
      const given: Record<string, unknown> = {};
      types.forEach((type, index) => {
        const value = pick(8) === 0 ? ABSENT : valueFor(type, pick);
        if (value !== ABSENT) given[`v${index}`] = value;
      });
      const ours = coerceLeniently(schema, definitions, given, { nullableItems: [], offsetVariables: new Set() });
      if (passedThrough(schema, definitions, given) !== null) {
        passed++;
        if (types.some((type) => type.includes('filter'))) passedObjects++;
      }
      const theirs = getVariableValues(schema, definitions, given);
      const context = `${types.join(', ')} given ${JSON.stringify(given)}`;
      if (theirs.errors !== undefined) expect(ours instanceof ServiceError, context).toBe(true);
      else {
        expect(ours, context).toEqual(theirs.coerced);
        expect(JSON.stringify(ours), context).toBe(JSON.stringify(theirs.coerced));
      }
    }
    // Enough of the rounds took the engine's own walk for the comparison to cover it, input objects included.
    expect(passed).toBeGreaterThan(600);
    expect(passedObjects).toBeGreaterThan(80);
  });

  it('coerces an input object, an enum and a list of them without graphql-js', () => {
    const definitions = (parse('query ($f: filter!, $o: [order_by!]) { field }').definitions[0] as OperationDefinitionNode).variableDefinitions!;
    const given = { o: ['asc'], f: { within: { to: 3 }, name: 'x', and: [{ name: 'y', id: 2 }] } };
    expect(passedThrough(schema, definitions, given)).toEqual(coerceLeniently(schema, definitions, given, { nullableItems: [], offsetVariables: new Set() }));
    expect(JSON.stringify(passedThrough(schema, definitions, given))).toBe('{"f":{"name":"x","order":"desc","within":{"to":3},"and":[{"id":2,"name":"y","order":"desc"}]},"o":["asc"]}');
  });

  it('leaves to graphql-js what it does not coerce exactly as graphql-js does', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['$v: filter', { v: { name: 'x', amount: '2' } }],
      ['$v: filter', { v: { name: 'x', extra: 1 } }],
      ['$v: filter', { v: { id: 1 } }],
      ['$v: filter', { v: { name: 'x', tags: 'one' } }],
      ['$v: one', { v: { a: 1 } }],
      ['$v: numeric', { v: '1.5' }],
      ['$v: odd', { v: { x: 1 } }],
    ];
    for (const [declared, given] of cases) {
      const definitions = (parse(`query (${declared}) { field }`).definitions[0] as OperationDefinitionNode).variableDefinitions!;
      expect(passedThrough(schema, definitions, given), `${declared} given ${JSON.stringify(given)}`).toBeNull();
    }
    // The same declarations pass a value of the shape the walk does coerce.
    const filter = (parse('query ($v: filter) { field }').definitions[0] as OperationDefinitionNode).variableDefinitions!;
    expect(passedThrough(schema, filter, { v: { name: 'x' } })).toEqual({ v: { name: 'x', order: 'desc' } });
  });

  it("gives an enum's internal value, as graphql-js does, and leaves a field named __proto__ to graphql-js", () => {
    const level = new GraphQLEnumType({ name: 'level', values: { LOW: { value: 1 }, HIGH: { value: { rank: 2 } } } });
    const withProto = new GraphQLInputObjectType({ name: 'proto', fields: { ['__proto__']: { type: GraphQLString }, a: { type: GraphQLInt } } });
    const query = new GraphQLObjectType({ name: 'Query', fields: { f: { type: GraphQLInt, args: { l: { type: new GraphQLList(level) }, p: { type: withProto } } } } });
    const built = new GraphQLSchema({ query });
    const levels = (parse('query ($l: [level]) { f }').definitions[0] as OperationDefinitionNode).variableDefinitions!;
    const given = { l: ['LOW', 'HIGH', null] };
    expect(passedThrough(built, levels, given)).toEqual({ l: [1, { rank: 2 }, null] });
    expect(passedThrough(built, levels, given)).toEqual(getVariableValues(built, levels, given).coerced);
    const proto = (parse('query ($p: proto) { f }').definitions[0] as OperationDefinitionNode).variableDefinitions!;
    expect(passedThrough(built, proto, JSON.parse('{"p":{"__proto__":"x","a":1}}') as Record<string, unknown>)).toBeNull();
  });

  it('keeps the variables of an operation it was not asked about out of what it gives', () => {
    const definitions = (parse('query ($a: Int) { field }').definitions[0] as OperationDefinitionNode).variableDefinitions!;
    expect(definitions[0]!.type.kind).toBe(Kind.NAMED_TYPE);
    expect(coerceLeniently(schema, definitions, { a: 1, other: 'x' }, { nullableItems: [], offsetVariables: new Set() })).toEqual({ a: 1 });
  });
});

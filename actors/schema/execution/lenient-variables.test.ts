import { buildSchema, getVariableValues, Kind, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/errors/service-error.js';
import { seededRandom } from '../../../test/harness/seeded-random.js';
import { coerceLeniently } from './lenient-variables.js';

const schema = buildSchema(`
  scalar numeric
  input range { from: Int, to: Int }
  type Query { field(a: Int, b: Float, c: ID, d: Boolean, e: String): Int }
`);

const TYPES = ['Int', 'Int!', 'Float', 'Float!', 'String', 'String!', 'Boolean', 'Boolean!', 'ID', 'ID!', '[Int]', '[String!]!', 'numeric', 'range'];
const VALUES: unknown[] = [1, -5, 0, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, 2.5, 1e30, Number.NaN, '12', 'abc', '', true, false, null, [1, 2], [null], { from: 1 }, { from: 'x' }];
const ABSENT = Symbol('absent');

describe('coerceLeniently', () => {
  it('gives what graphql-js gives, whether the variables pass through or are coerced', () => {
    const pick = seededRandom(16);
    for (let round = 0; round < 3000; round++) {
      const count = 1 + pick(3);
      const types = Array.from({ length: count }, () => TYPES[pick(TYPES.length)]!);
      const document = parse(`query (${types.map((type, index) => `$v${index}: ${type}`).join(', ')}) { field }`);
      const definitions = (document.definitions[0] as OperationDefinitionNode).variableDefinitions ?? [];
      const given: Record<string, unknown> = {};
      types.forEach((_type, index) => {
        const value = pick(6) === 0 ? ABSENT : VALUES[pick(VALUES.length)];
        if (value !== ABSENT) given[`v${index}`] = value;
      });
      const ours = coerceLeniently(schema, definitions, given, { nullableItems: [], offsetVariables: new Set() });
      const theirs = getVariableValues(schema, definitions, given);
      const context = `${types.join(', ')} given ${JSON.stringify(given)}`;
      if (theirs.errors !== undefined) expect(ours instanceof ServiceError, context).toBe(true);
      else expect(ours, context).toEqual(theirs.coerced);
    }
  });

  it('keeps the variables of an operation it was not asked about out of what it gives', () => {
    const definitions = (parse('query ($a: Int) { field }').definitions[0] as OperationDefinitionNode).variableDefinitions!;
    expect(definitions[0]!.type.kind).toBe(Kind.NAMED_TYPE);
    expect(coerceLeniently(schema, definitions, { a: 1, other: 'x' }, { nullableItems: [], offsetVariables: new Set() })).toEqual({ a: 1 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, parseCommandLine } from '../../src/config/load.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { engineEnv, spawnEngineProcess, startTestEngine, testPrefix, type TestEngine } from '../harness/engine.js';
import { modernClient } from '../subscriptions/clients.js';

/**
 * Issue 15, "numbers without loss": SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES (Hasura's
 * HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES) answers bigint, numeric and double precision
 * values as JSON strings wherever results carry them; smaller types stay numbers, and
 * without the option every number is a JSON number as before.
 */
let database: TestDatabase;
/** Serves with the option on. */
let strings: TestEngine;
/** Serves the same database with the option off (the default). */
let numbers: TestEngine;

/** 2^53 + 1: the smallest positive integer a JSON number parsed as a double cannot hold. */
const BIG_ID = '9007199254740993';
const AMOUNT = '12345678901234567890.123456789';

const SETUP_SQL = `
  create table ledger (id bigint primary key, amount numeric, ratio float8, small integer, single real, note text);
  insert into ledger values (1, 1.50, 0.1, 7, 1.5, 'one'), (${BIG_ID}, ${AMOUNT}, 2.5, 8, 0.25, 'big');
  create function ledger_doubled(entry ledger) returns numeric language sql stable as $$ select entry.amount * 2 $$;
  create function ledger_small_plus(entry ledger) returns integer language sql stable as $$ select entry.small + 1 $$;
  create function big_ledgers() returns setof ledger language sql stable as $$ select * from ledger where id > 1 $$;
`;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql(SETUP_SQL);
  strings = await startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'true' } });
  const setup = await strings.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'ledger' } },
      { type: 'track_function', args: { schema: 'public', name: 'big_ledgers' } },
      { type: 'add_computed_field', args: { table: 'ledger', name: 'doubled', definition: { function: 'ledger_doubled' } } },
      { type: 'add_computed_field', args: { table: 'ledger', name: 'small_plus', definition: { function: 'ledger_small_plus' } } },
    ],
  });
  expect(setup.json).toEqual(Array(4).fill({ message: 'success' }));
  // Started after the metadata was stored, which it reads at start-up.
  numbers = await startTestEngine({ databaseUrl: database.url });
});

afterAll(async () => {
  await numbers?.stop();
  await strings?.stop();
  await database?.drop();
});

const SELECT = '{ ledger(order_by: {id: asc}) { id amount ratio small single note doubled small_plus } }';

describe('with SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES=true', () => {
  it('answers bigint, numeric and float8 columns as strings with every digit; int, real and text as before', async () => {
    const answer = await strings.graphql({ query: SELECT });
    expect(answer.json).toEqual({
      data: {
        ledger: [
          { id: '1', amount: '1.50', ratio: '0.1', small: 7, single: 1.5, note: 'one', doubled: '3.00', small_plus: 8 },
          { id: BIG_ID, amount: AMOUNT, ratio: '2.5', small: 8, single: 0.25, note: 'big', doubled: '24691357802469135780.246913578', small_plus: 9 },
        ],
      },
    });
  });

  it('stringifies a row read by primary key, and rows a tracked function returns', async () => {
    const answer = await strings.graphql({ query: '{ ledger_by_pk(id: 1) { id amount ratio small } big_ledgers { id amount } }' });
    expect(answer.json).toEqual({ data: { ledger_by_pk: { id: '1', amount: '1.50', ratio: '0.1', small: 7 }, big_ledgers: [{ id: BIG_ID, amount: AMOUNT }] } });
  });

  it('stringifies aggregates of those columns, as Hasura decides: by the aggregated column\'s type', async () => {
    const answer = await strings.graphql({
      query: '{ ledger_aggregate { aggregate { count sum { id amount ratio small single } avg { small } max { id amount doubled } min { small_plus } } nodes { id } } }',
    });
    expect(answer.json).toEqual({
      data: {
        ledger_aggregate: {
          aggregate: {
            count: 2,
            sum: { id: '9007199254740994', amount: '12345678901234567891.623456789', ratio: '2.6', small: 15, single: 1.75 },
            avg: { small: 7.5 },
            max: { id: BIG_ID, amount: AMOUNT, doubled: '24691357802469135780.246913578' },
            min: { small_plus: 8 },
          },
          nodes: [{ id: '1' }, { id: BIG_ID }],
        },
      },
    });
  });

  it('stringifies what mutations return: returning lists and single rows', async () => {
    const inserted = await strings.graphql({ query: 'mutation { insert_ledger_one(object: {id: 2, amount: 2.25, ratio: 0.5, small: 1}) { id amount ratio small } }' });
    expect(inserted.json).toEqual({ data: { insert_ledger_one: { id: '2', amount: '2.25', ratio: '0.5', small: 1 } } });
    const updated = await strings.graphql({ query: 'mutation { update_ledger(where: {id: {_eq: 2}}, _inc: {small: 1}) { affected_rows returning { id amount small } } }' });
    expect(updated.json).toEqual({ data: { update_ledger: { affected_rows: 1, returning: [{ id: '2', amount: '2.25', small: 2 }] } } });
    const deleted = await strings.graphql({ query: 'mutation { delete_ledger_by_pk(id: 2) { id ratio } }' });
    expect(deleted.json).toEqual({ data: { delete_ledger_by_pk: { id: '2', ratio: '0.5' } } });
  });

  it('stringifies what subscriptions push over WebSocket, live queries and streams alike', async () => {
    const client = modernClient(strings.url, {});
    try {
      const live = client.subscribe('subscription { ledger_by_pk(id: 1) { id amount ratio small } }');
      const stream = client.subscribe('subscription { ledger_stream(batch_size: 10, cursor: {initial_value: {id: 0}}) { id amount } }');
      expect((await live.waitFor(1))[0]).toEqual({ data: { ledger_by_pk: { id: '1', amount: '1.50', ratio: '0.1', small: 7 } } });
      expect((await stream.waitFor(1))[0]).toEqual({ data: { ledger_stream: [{ id: '1', amount: '1.50' }, { id: BIG_ID, amount: AMOUNT }] } });
      live.stop();
      stream.stop();
    } finally {
      await client.close();
    }
  });
});

describe('without the option (the default)', () => {
  it('answers JSON numbers, digits as PostgreSQL writes them, while an instance with the option serves strings', async () => {
    for (let round = 0; round < 2; round++) {
      const plain = await numbers.graphql({ query: SELECT });
      expect(plain.text).toContain(`"id" : ${BIG_ID}`);
      expect(plain.text).toContain(`"amount" : ${AMOUNT}`);
      expect(plain.json.data.ledger[0]).toEqual({ id: 1, amount: 1.5, ratio: 0.1, small: 7, single: 1.5, note: 'one', doubled: 3, small_plus: 8 });
      expect((await strings.graphql({ query: SELECT })).json.data.ledger[0].id).toBe('1');
    }
    const aggregate = await numbers.graphql({ query: '{ ledger_aggregate { aggregate { sum { id amount } } } }' });
    expect(aggregate.json).toEqual({ data: { ledger_aggregate: { aggregate: { sum: { id: 9007199254740994, amount: 12345678901234567891.623456789 } } } } });
  });
});

describe('the option\'s value', () => {
  it('is read from the flag --stringify-numeric-types too', () => {
    const env = engineEnv('postgres://unused/db', testPrefix());
    expect(loadConfig(parseCommandLine(['serve', '--stringify-numeric-types']).values, env).stringifyNumericTypes).toBe(true);
    expect(loadConfig(new Map(), env).stringifyNumericTypes).toBe(false);
  });

  it('stops start-up with a message naming the variable when it is not a boolean', async () => {
    const env = engineEnv(database.url, testPrefix(), { SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'sometimes' });
    await expect(spawnEngineProcess(env)).rejects.toThrow(/exited with 1[\s\S]*SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES[\s\S]*expected true or false, got "sometimes"/);
  });
});

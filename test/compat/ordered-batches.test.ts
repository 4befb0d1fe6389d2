import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

/**
 * Issue 15, "batches in order": a JSON array body runs its operations one after the
 * other, as Hasura v2 does, each seeing what the previous ones committed, with one answer
 * per member in order; a failing member leaves the others answered.
 */
let database: TestDatabase;
let engine: TestEngine;

const SETUP_SQL = `
  create table counter (id integer primary key, value integer not null);
  insert into counter values (1, 0);
  create function slow_counters(seconds float8) returns setof counter language sql stable as $$ select * from counter where pg_sleep(seconds) is not null $$;
`;

const user = { 'x-service-role': 'user' };
const setValue = (value: number) => ({ query: `mutation { update_counter_by_pk(pk_columns: {id: 1}, _set: {value: ${value}}) { value } }` });
const readValue = { query: '{ counter_by_pk(id: 1) { value } }' };

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql(SETUP_SQL);
  engine = await startTestEngine({ databaseUrl: database.url });
  const setup = await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'counter' } },
      { type: 'track_function', args: { schema: 'public', name: 'slow_counters' } },
      { type: 'create_select_permission', args: { table: 'counter', role: 'user', permission: { columns: ['id', 'value'], filter: {} } } },
    ],
  });
  expect(setup.json).toEqual(Array(3).fill({ message: 'success' }));
});

afterAll(async () => {
  await engine?.stop();
  await database?.drop();
});

describe('a batch of a mutation then a query', () => {
  it('lets the query see the mutation\'s write, every time', async () => {
    for (let value = 1; value <= 6; value++) {
      const answer = await engine.graphql([setValue(value), readValue]);
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual([{ data: { update_counter_by_pk: { value } } }, { data: { counter_by_pk: { value } } }]);
    }
  });

  it('answers in the order of the body: a read before the write sees the old value, one after it the new', async () => {
    await engine.graphql(setValue(10));
    const answer = await engine.graphql([readValue, setValue(11), readValue, setValue(12), readValue]);
    expect(answer.json.map((part: { data: unknown }) => part.data)).toEqual([
      { counter_by_pk: { value: 10 } },
      { update_counter_by_pk: { value: 11 } },
      { counter_by_pk: { value: 11 } },
      { update_counter_by_pk: { value: 12 } },
      { counter_by_pk: { value: 12 } },
    ]);
  });
});

describe('a failing member', () => {
  it('is answered with its own error while the members around it run (a validation error)', async () => {
    const answer = await engine.graphql([setValue(20), { query: '{ counter_by_pk(id: 1) { no_such_field } }' }, readValue]);
    expect(answer.json).toHaveLength(3);
    expect(answer.json[0]).toEqual({ data: { update_counter_by_pk: { value: 20 } } });
    expect(answer.json[1].errors[0].extensions.code).toBe('validation-failed');
    expect(answer.json[1].data).toBeUndefined();
    expect(answer.json[2]).toEqual({ data: { counter_by_pk: { value: 20 } } });
  });

  it('is answered with its own error while the members around it run (a database error, rolled back alone)', async () => {
    const answer = await engine.graphql([setValue(30), { query: 'mutation { insert_counter_one(object: {id: 1, value: 99}) { id } }' }, readValue]);
    expect(answer.json).toHaveLength(3);
    expect(answer.json[0]).toEqual({ data: { update_counter_by_pk: { value: 30 } } });
    expect(answer.json[1].errors[0].extensions.code).toBe('constraint-violation');
    expect(answer.json[2]).toEqual({ data: { counter_by_pk: { value: 30 } } });
  });

  it('is answered with its own error while the members around it run (a role\'s refusal)', async () => {
    const answer = await engine.graphql([readValue, { query: 'mutation { update_counter_by_pk(pk_columns: {id: 1}, _set: {value: 1}) { value } }' }, readValue], user);
    expect(answer.json[0]).toEqual({ data: { counter_by_pk: { value: 30 } } });
    expect(answer.json[1].errors[0].extensions.code).toBe('validation-failed');
    expect(answer.json[2]).toEqual({ data: { counter_by_pk: { value: 30 } } });
  });
});

describe('a batch out of time', () => {
  afterAll(() => engine.query({ type: 'remove_api_limits', args: {} }));

  it('stops at the time limit: the member running is cancelled and the remaining ones are not run', async () => {
    const limits = await engine.query({ type: 'set_api_limits', args: { time_limit: { global: 30, per_role: { user: 1 } } } });
    expect(limits.json).toEqual({ message: 'success' });
    const slow = { query: '{ slow_counters(args: {seconds: 0.7}) { value } }' };
    const started = Date.now();
    const answer = await engine.graphql([slow, slow, readValue], user);
    const timedOut = { errors: [{ message: 'operation timed out', extensions: { path: '$', code: 'time-limit-exceeded' } }] };
    expect(answer.json).toEqual([{ data: { slow_counters: [{ value: 30 }] } }, timedOut, timedOut]);
    // Run one after the other against one deadline, not side by side (each alone is within it).
    expect(Date.now() - started).toBeLessThan(3000);
    const alone = await engine.graphql([slow, readValue], user);
    expect(alone.json).toEqual([{ data: { slow_counters: [{ value: 30 }] } }, { data: { counter_by_pk: { value: 30 } } }]);
  });
});

describe('a batch whose client has gone', () => {
  it('runs none of its remaining members', async () => {
    await engine.graphql(setValue(40));
    const aborter = new AbortController();
    const body = [{ query: '{ slow_counters(args: {seconds: 30}) { value } }' }, setValue(41)];
    const sent = fetch(`${engine.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: aborter.signal }).catch((error: unknown) => error);
    await waitUntil(async () => (await slowStatements()) === 1);
    aborter.abort();
    await sent;
    await waitUntil(async () => (await slowStatements()) === 0);
    // The mutation would have come right after the cancelled query; give it the time it would take.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await engine.graphql(readValue)).json).toEqual({ data: { counter_by_pk: { value: 40 } } });
  });
});

async function slowStatements(): Promise<number> {
  const running = await database.sql("select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and query like '%slow_counters%' and pid <> pg_backend_pid()");
  return running.rows[0].n as number;
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Bus } from '../../src/bus/bus.js';
import { createLogger } from '../../src/log/logger.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

/**
 * Bounded by default (issue 14): every statement of a GraphQL request stops when its time
 * is up or its client has gone, a stopped statement's backend is free again at once, the
 * engine's connections run without JIT, the bus timeout holds for in-process answers, and
 * one session blocked on a lock cannot take the whole pool.
 */
let database: TestDatabase;
let engine: TestEngine;
/** The same engine with a bus timeout of 2 s: requests' time is up after about 1.75 s. */
let hurried: TestEngine;

const SETUP_SQL = `
  create table item (id integer primary key, label text not null);
  insert into item values (1, 'one'), (2, 'two');
  create function slow_items(seconds float8) returns setof item language sql stable as $$ select * from item where pg_sleep(seconds) is not null $$;
  create table tag (id integer primary key, org text not null);
`;

async function track(target: TestEngine): Promise<void> {
  const setup = await target.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'item' } },
      { type: 'track_function', args: { schema: 'public', name: 'slow_items' } },
      { type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: ['id', 'label'], filter: {} } } },
      { type: 'create_update_permission', args: { table: 'item', role: 'user', permission: { columns: ['label'], filter: {} } } },
      { type: 'track_table', args: { table: 'tag' } },
      { type: 'create_insert_permission', args: { table: 'tag', role: 'user', permission: { check: {}, set: { org: 'X-Service-Org' }, columns: ['id'] } } },
      { type: 'create_select_permission', args: { table: 'tag', role: 'user', permission: { columns: ['id'], filter: {} } } },
      { type: 'create_insert_permission', args: { table: 'item', role: 'user', permission: { check: {}, columns: ['id', 'label'] } } },
    ],
  });
  expect(setup.json).toEqual(Array(8).fill({ message: 'success' }));
}

/** The statements of the engine's schema pool now running whose text matches `pattern` (ilike). */
async function engineStatements(pattern: string): Promise<string[]> {
  const found = await database.sql(
    `select query from pg_stat_activity where datname = current_database() and application_name like 'service-graphql-schema-%' and state = 'active' and query ilike $1`,
    [pattern],
  );
  return found.rows.map((row: { query: string }) => row.query);
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

const asUser = (id: string) => ({ 'x-service-role': 'user', 'x-service-user-id': id });

/** A slow query whose HTTP client gives up once it runs: its statement must be gone within a second. */
async function expectCancelledWhenAbandoned(): Promise<void> {
  const aborter = new AbortController();
  const sent = fetch(`${engine.url}/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...asUser('1') },
    body: JSON.stringify({ query: '{ slow_items(args: {seconds: 30}) { id } }' }),
    signal: aborter.signal,
  }).catch((error: unknown) => error);
  await waitUntil(async () => (await engineStatements('%slow_items%')).length === 1, 2000);
  aborter.abort();
  await sent;
  await waitUntil(async () => (await engineStatements('%slow_items%')).length === 0, 1000);
}

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql(SETUP_SQL);
  engine = await startTestEngine({ databaseUrl: database.url });
  await track(engine);
  hurried = await startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_BUS_TIMEOUT_MS: '2000' } });
});

afterAll(async () => {
  await hurried?.stop();
  await engine?.stop();
  await database?.drop();
});

describe('a request whose time is up', () => {
  it('is answered with time-limit-exceeded before the bus timeout, and its statement is cancelled', async () => {
    const started = Date.now();
    const answer = await hurried.graphql({ query: '{ slow_items(args: {seconds: 60}) { id } }' }, asUser('1'));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ errors: [{ message: 'operation timed out', extensions: { path: '$', code: 'time-limit-exceeded' } }] });
    await waitUntil(async () => (await engineStatements('%slow_items%')).length === 0, 1000);
  });

  it('leaves the pool usable: the next requests are answered', async () => {
    for (let i = 0; i < 6; i++) {
      const answer = await hurried.graphql({ query: '{ item(order_by: {id: asc}) { id } }' }, asUser('1'));
      expect(answer.json).toEqual({ data: { item: [{ id: 1 }, { id: 2 }] } });
    }
  });

  it('rolls a mutation back: a write waiting on a lock when time is up is not committed', async () => {
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select * from item where id = 1 for update');
      const answer = await hurried.graphql({ query: 'mutation { update_item_by_pk(pk_columns: {id: 1}, _set: {label: "changed"}) { id } }' }, asUser('1'));
      expect(answer.json.errors[0].extensions.code).toBe('time-limit-exceeded');
      await waitUntil(async () => (await engineStatements('%update%item%')).length === 0, 1000);
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    const row = await database.sql('select label from item where id = 1');
    expect(row.rows).toEqual([{ label: 'one' }]);
  });

  it('comes after SERVICE_GRAPHQL_STATEMENT_TIMEOUT seconds when that is sooner than the bus timeout', async () => {
    const strict = await startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_STATEMENT_TIMEOUT: '1' } });
    try {
      const started = Date.now();
      const answer = await strict.graphql({ query: '{ slow_items(args: {seconds: 30}) { id } }' }, asUser('1'));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(answer.json.errors[0]).toMatchObject({ message: 'operation timed out', extensions: { code: 'time-limit-exceeded' } });
    } finally {
      await strict.stop();
    }
  });
});

describe('a request whose client has gone', () => {
  it('over HTTP: its statement is cancelled at once', async () => {
    await expectCancelledWhenAbandoned();
  });

  it('over WebSocket: a query is cancelled when the socket closes', async () => {
    const socket = new WebSocket(`${engine.url.replace('http', 'ws')}/v1/graphql`, 'graphql-transport-ws', { headers: asUser('1') });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    await new Promise((resolve) => socket.once('message', resolve));
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ slow_items(args: {seconds: 30}) { id } }' } }));
    await waitUntil(async () => (await engineStatements('%slow_items%')).length === 1, 2000);
    socket.close();
    await waitUntil(async () => (await engineStatements('%slow_items%')).length === 0, 1000);
  });
});

describe('a request that fails or loses its connection', () => {
  it('never leaves a transaction open: a mutation failing between its steps is rolled back, its connection discarded', async () => {
    // The second insert's preset needs X-Service-Org, which the request lacks: it fails after the first ran.
    const failing = 'mutation { insert_item_one(object: {id: 50, label: "half"}) { id } insert_tag_one(object: {id: 1}) { id } }';
    for (let i = 0; i < 6; i++) expect((await engine.graphql({ query: failing }, asUser('1'))).json.errors).toBeDefined();
    // A discarded connection's backend ends a moment after the answer.
    const openTransactions = async () =>
      (await database.sql("select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name like 'service-graphql-schema-%' and state like 'idle in transaction%'")).rows[0].n as number;
    await waitUntil(async () => (await openTransactions()) === 0, 2000);
    const next = 'mutation { a: update_item_by_pk(pk_columns: {id: 1}, _set: {label: "one"}) { id } b: update_item_by_pk(pk_columns: {id: 2}, _set: {label: "two"}) { id } }';
    for (let i = 0; i < 6; i++) expect((await engine.graphql({ query: next }, asUser('1'))).json.errors).toBeUndefined();
    expect((await database.sql('select id from item where id = 50')).rows).toEqual([]);
  });

  it('answers when its backend is terminated mid-statement, and the engine goes on serving', async () => {
    const sent = engine.graphql({ query: '{ slow_items(args: {seconds: 30}) { id } }' }, asUser('1'));
    await waitUntil(async () => (await engineStatements('%slow_items%')).length === 1, 2000);
    await database.sql("select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name like 'service-graphql-schema-%' and query ilike '%slow_items%'");
    const answer = await sent;
    expect(answer.json.errors[0].extensions.code).toMatch(/postgres-error|unexpected|unavailable|data-exception/);
    for (let i = 0; i < 6; i++) expect((await engine.graphql({ query: '{ item_by_pk(id: 1) { id } }' }, asUser('1'))).json).toEqual({ data: { item_by_pk: { id: 1 } } });
  });

  it('is cancelled only by its own client: another request with the same x-request-id runs on', async () => {
    const headers = { ...asUser('1'), 'x-request-id': 'shared-id', 'content-type': 'application/json' };
    const body = JSON.stringify({ query: '{ slow_items(args: {seconds: 1}) { id } }' });
    const aborter = new AbortController();
    const leaving = fetch(`${engine.url}/v1/graphql`, { method: 'POST', headers, body, signal: aborter.signal }).catch((error: unknown) => error);
    const staying = fetch(`${engine.url}/v1/graphql`, { method: 'POST', headers, body }).then((response) => response.json());
    await waitUntil(async () => (await engineStatements('%slow_items%')).length === 2, 2000);
    aborter.abort();
    await leaving;
    expect(await staying).toEqual({ data: { slow_items: [{ id: 1 }, { id: 2 }] } });
  });

  it('ignores a malformed cancel broadcast, and cancels keep working after it', async () => {
    const bus = await Bus.connect({ servers: inject('natsUrl'), prefix: engine.prefix, name: 'bounded-test', log: createLogger('silent') });
    try {
      bus.publish(bus.subjects.requestCancel, {});
      bus.publish(bus.subjects.requestCancel, { cancel_key: 42 });
      await bus.flush();
    } finally {
      await bus.close();
    }
    await expectCancelledWhenAbandoned();
  });
});

describe('the bus timeout', () => {
  it('holds for an answer in-process: the caller hears 503 when the actor is slower', async () => {
    const started = Date.now();
    const answer = await hurried.query({ type: 'run_sql', args: { sql: 'select pg_sleep(4)' } });
    expect(Date.now() - started).toBeLessThan(3500);
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ code: 'unavailable', error: expect.stringContaining('within 2000 ms') });
  });
});

describe('JIT', () => {
  it('is off on the engine connections unless SERVICE_GRAPHQL_PG_JIT is set', async () => {
    const setting = "select current_setting('jit') as jit";
    expect((await engine.query({ type: 'run_sql', args: { sql: setting } })).json.result).toEqual([['jit'], ['off']]);
    const jitted = await startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_PG_JIT: 'true' } });
    try {
      expect((await jitted.query({ type: 'run_sql', args: { sql: setting } })).json.result).toEqual([['jit'], ['on']]);
    } finally {
      await jitted.stop();
    }
  });
});

describe('fair pools', () => {
  it('a session whose writes wait on a lock holds at most its share: another session is answered meanwhile', async () => {
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query('select * from item where id = 2 for update');
    const blocked = Array.from({ length: 10 }, (_, index) =>
      engine.graphql({ query: `mutation { update_item_by_pk(pk_columns: {id: 2}, _set: {label: "w${index}"}) { id } }` }, asUser('7')),
    );
    try {
      // Half the pool of 4 waits on the lock; the rest of the session's writes queue behind them.
      await waitUntil(async () => (await engineStatements('%update%item%')).length === 2, 2000);
      const other = await engine.graphql({ query: '{ item_by_pk(id: 1) { id } }' }, asUser('8'));
      expect(other.json).toEqual({ data: { item_by_pk: { id: 1 } } });
      expect(await engineStatements('%update%item%')).toHaveLength(2);
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    const written = await Promise.all(blocked);
    expect(written.map((answer) => answer.json)).toEqual(Array(10).fill({ data: { update_item_by_pk: { id: 2 } } }));
  });
});

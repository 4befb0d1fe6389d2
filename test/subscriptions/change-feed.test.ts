import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Heartbeat } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { modernClient } from './clients.js';

/**
 * Subscriptions follow the change feed: with a refetch delay of an hour, only a change
 * notice from logical replication can make a live query fetch again, and nothing is
 * fetched while nothing changes.
 */
const SECRET = 'feed-secret';
const admin = { 'x-service-admin-secret': SECRET };
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table item (id int primary key, name text not null)');
  await db.sql("insert into item values (1, 'one')");
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_DELAY: '3600', SERVICE_GRAPHQL_HEARTBEAT_MS: '200' } });
  expect((await engine.query({ type: 'track_table', args: { table: 'item' } })).status).toBe(200);
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

async function subscriptionGauges(): Promise<Record<string, unknown>> {
  const replies = await engine.engine.bus.gather<Heartbeat>(engine.engine.bus.subjects.monitorPing, {}, 300);
  return replies.find((reply) => reply.actor === 'subscriptions')!.gauges;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the change feed', () => {
  it('puts a tracked table in the publication', async () => {
    const published = await db.sql("select tablename from pg_publication_tables where pubname = 'service_graphql_events' order by 1");
    expect(published.rows.map((row) => row.tablename)).toEqual(['item', 'metadata']);
  });

  it('refreshes a live query on a change made by plain SQL, and fetches nothing while nothing changes', async () => {
    const { subscribe, close } = modernClient(engine.url, admin);
    const watch = subscribe('subscription { item(order_by: {id: asc}) { id name } }');
    expect((await watch.waitFor(1))[0]).toEqual({ data: { item: [{ id: 1, name: 'one' }] } });
    await until(async () => (await subscriptionGauges()).pollers_change_driven === 1, 'the poller to follow the change feed');
    // What the monitor view shows of this instance's subscriptions.
    expect(await subscriptionGauges()).toMatchObject({ subscribed_sockets: 1, subscriptions: 1, cohorts: 1, pollers_change_driven: 1, pollers_polling: 0, change_feed_live: true, refetches_per_s: expect.any(Number), push_latency_p99_ms: expect.any(Number) });

    await db.sql("insert into item values (2, 'two')");
    expect((await watch.waitFor(2))[1]).toEqual({ data: { item: [{ id: 1, name: 'one' }, { id: 2, name: 'two' }] } });

    const before = (await subscriptionGauges()).subscription_statements;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await subscriptionGauges()).subscription_statements).toBe(before);

    await db.sql("update item set name = 'uno' where id = 1");
    expect((await watch.waitFor(3))[2]).toEqual({ data: { item: [{ id: 1, name: 'uno' }, { id: 2, name: 'two' }] } });
    // A change to another table (not tracked here) fetches nothing.
    await db.sql('create table other (id int); insert into other values (1)');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(watch.results).toHaveLength(3);
    watch.stop();
    await close();
  });

  it('keeps its subscribers through a database outage, and catches up when it ends', async () => {
    const { subscribe, close } = modernClient(engine.url, admin);
    const ids = async () => ({ data: { item: (await db.sql('select id from item order by id')).rows } });
    const watch = subscribe('subscription { item(order_by: {id: asc}) { id } }');
    expect((await watch.waitFor(1))[0]).toEqual(await ids());
    await until(async () => (await subscriptionGauges()).pollers_change_driven === 1, 'the poller to follow the change feed');
    const database = new URL(db.url).pathname.slice(1);
    const server = new pg.Client({ connectionString: inject('postgresUrl') });
    await server.connect();
    await server.query(`alter database ${database} allow_connections false`);
    try {
      // The subscriptions' connections go and no new one can be opened: their fetches fail.
      await server.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name like 'service-graphql-subscriptions-%'", [database]);
      await db.sql("insert into item values (30, 'thirty')");
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect({ results: watch.results.length, error: watch.error, completed: watch.completed }).toEqual({ results: 1, error: undefined, completed: false });
    } finally {
      await server.query(`alter database ${database} allow_connections true`);
      await server.end();
    }
    expect((await watch.waitFor(2))[1]).toEqual(await ids());
    expect(watch.results[1]!.data).toMatchObject({ item: expect.arrayContaining([{ id: 30 }]) });
    await close();
  });
});

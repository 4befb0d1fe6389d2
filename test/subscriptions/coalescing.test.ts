import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { eventually } from '../triggers/fixtures.js';
import { modernClient } from './clients.js';

/**
 * The settings of live queries are what the server uses: a coalescing window bounds what
 * a busy table costs (however fast its changes come, a poller fetches its cohorts at most
 * once per window, and the last fetch sees the last change), and the batch size is how
 * many cohorts one statement fetches. The config API reports them.
 */
const SECRET = 'coalescing-secret';
const admin = { 'x-service-admin-secret': SECRET };
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table counter (id int primary key, n int not null); insert into counter values (1, 0)');
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_DELAY: '3600', SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_COALESCE_MS: '1000', SERVICE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE: '2', SERVICE_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_BATCH_SIZE: '7', SERVICE_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_REFETCH_DELAY: '9' } });
  expect((await engine.query({ type: 'track_table', args: { table: 'counter' } })).status).toBe(200);
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

async function gauges(): Promise<Heartbeat['gauges']> {
  const replies = await engine.engine.bus.gather<Heartbeat>(engine.engine.bus.subjects.monitorPing, {}, 300);
  return replies.find((reply) => reply.actor === 'subscriptions')!.gauges;
}

describe('coalescing changes', () => {
  it('fetches a busy table at most once per window, and ends on its last change', async () => {
    const { subscribe, close } = modernClient(engine.url, admin);
    const watch = subscribe('subscription { counter { n } }');
    expect((await watch.waitFor(1))[0]).toEqual({ data: { counter: [{ n: 0 }] } });
    await eventually(async () => (await gauges()).pollers_change_driven === 1, 20_000, 'the poller to follow the change feed');
    const before = Number((await gauges()).subscription_statements);
    const started = performance.now();
    for (let n = 1; n <= 20; n++) {
      await db.sql('update counter set n = $1', [n]);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await eventually(() => JSON.stringify(watch.results.at(-1)) === JSON.stringify({ data: { counter: [{ n: 20 }] } }), 10_000, 'the last change');
    const seconds = (performance.now() - started) / 1000;
    const fetches = Number((await gauges()).subscription_statements) - before;
    // 20 changes in about a second: one fetch per started window, not one per change.
    expect(fetches).toBeGreaterThanOrEqual(1);
    expect(fetches).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(watch.results.length).toBeLessThanOrEqual(fetches + 1);
    await close();
  });

  it('fetch at most batch_size cohorts per statement, and the config API says so', async () => {
    const { json } = await engine.get('/v1alpha1/config');
    expect({ live: json.live_queries, streaming: json.streaming_queries }).toEqual({ live: { batch_size: 2, refetch_delay: 3600 }, streaming: { batch_size: 7, refetch_delay: 9 } });
    const { subscribe, close } = modernClient(engine.url, admin);
    const watches = [1, 2, 3, 4, 5].map((floor) => subscribe('subscription Q($floor: Int!) { counter(where: {n: {_gte: $floor}}) { n } }', { floor }));
    for (const watch of watches) await watch.waitFor(1);
    await eventually(async () => (await gauges()).cohorts === 5 && (await gauges()).pollers_change_driven === 1, 20_000, 'five cohorts of one change-driven poller');
    const before = Number((await gauges()).subscription_statements);
    await db.sql('update counter set n = n + 1');
    await eventually(() => watches.every((watch) => watch.results.length === 2), 10_000, 'every cohort fetched again');
    // Five cohorts, two per statement.
    expect(Number((await gauges()).subscription_statements) - before).toBe(3);
    await close();
  });
});

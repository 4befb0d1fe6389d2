import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { eventually } from '../triggers/fixtures.js';
import { modernClient } from './clients.js';

/**
 * SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_COALESCE_MS bounds what a busy table costs: however
 * fast its changes come, a poller fetches its cohorts at most once per window, and the
 * last fetch sees the last change.
 */
const SECRET = 'coalescing-secret';
const admin = { 'x-service-admin-secret': SECRET };
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table counter (id int primary key, n int not null); insert into counter values (1, 0)');
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_DELAY: '3600', SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_COALESCE_MS: '1000' } });
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
});

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Bus } from '../../src/bus/bus.js';
import { createLogger } from '../../src/log/logger.js';
import type { Heartbeat } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { engineEnv, http, spawnEngineProcess, testPrefix, type EngineProcess } from '../harness/engine.js';
import { eventually } from '../triggers/fixtures.js';
import { modernClient, legacyClient, type Watch } from './clients.js';

/**
 * Two engine processes on one database and one NATS prefix. A subscription lives on the
 * instance that holds its socket; the change feed reaches both. With a refetch delay of an
 * hour nothing but the feed (or a take-over's poll) can refresh a live query, so a result
 * that arrives proves the feed carried the change across processes, and across the death
 * of the one reading the slot.
 */
const SECRET = 'cluster-subscriptions-secret';
const admin = { 'x-service-admin-secret': SECRET };
const prefix = testPrefix();
let db: TestDatabase;
let engines: EngineProcess[] = [];
let monitor: Bus;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql("create table item (id int primary key, name text not null); insert into item values (1, 'one')");
  const env = engineEnv(db.url, prefix, { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_DELAY: '3600', SERVICE_GRAPHQL_HEARTBEAT_MS: '300' });
  engines = await Promise.all([spawnEngineProcess(env), spawnEngineProcess(env)]);
  monitor = await Bus.connect({ servers: inject('natsUrl'), prefix, name: 'subscriptions-cluster-monitor', log: createLogger('silent') });
  expect((await http('POST', `${engines[0]!.url}/v1/query`, { type: 'track_table', args: { table: 'item' } }, admin)).status).toBe(200);
  // The other instance adopts the change when its broadcast arrives, a moment later.
  for (const engine of engines) {
    await eventually(async () => (await http('POST', `${engine.url}/v1/graphql`, { query: '{ item { id } }' }, admin)).json?.data !== undefined, 30_000, 'both instances serving item');
  }
}, 120_000);

afterAll(async () => {
  await monitor?.close();
  await Promise.all(engines.map((engine) => engine.stop()));
  await db?.drop();
});

const ITEMS = 'subscription { item(order_by: {id: asc}) { id name } }';
const items = (...rows: [number, string][]) => ({ data: { item: rows.map(([id, name]) => ({ id, name })) } });

async function settlesTo(watch: Watch, expected: unknown, timeoutMs: number): Promise<void> {
  await eventually(() => JSON.stringify(watch.results.at(-1)) === JSON.stringify(expected), timeoutMs, `a result of ${JSON.stringify(expected)}; got ${JSON.stringify(watch.results)}`);
}

async function slotReaderPid(): Promise<number> {
  return eventually(async () => {
    const replies = await monitor.gather<Heartbeat>(monitor.subjects.monitorPing, {}, 300);
    return replies.find((reply) => reply.actor === 'triggers' && reply.gauges.reading_slot === true)?.pid;
  }, 30_000, 'an instance reading the slot');
}

describe('subscriptions across two engine processes', () => {
  it('deliver a change made through either instance to the subscribers of both', async () => {
    const [first, second] = engines as [EngineProcess, EngineProcess];
    const onFirst = modernClient(first.url, admin);
    const onSecond = legacyClient(second.url, admin);
    const [watchFirst, watchSecond] = [onFirst.subscribe(ITEMS), onSecond.subscribe(ITEMS)];
    expect((await watchFirst.waitFor(1))[0]).toEqual(items([1, 'one']));
    expect((await watchSecond.waitFor(1))[0]).toEqual(items([1, 'one']));

    const viaFirst = await http('POST', `${first.url}/v1/graphql`, { query: 'mutation { insert_item_one(object: {id: 2, name: "two"}) { id } }' }, admin);
    expect(viaFirst.json).toEqual({ data: { insert_item_one: { id: 2 } } });
    await settlesTo(watchSecond, items([1, 'one'], [2, 'two']), 20_000);
    await settlesTo(watchFirst, items([1, 'one'], [2, 'two']), 20_000);

    const viaSecond = await http('POST', `${second.url}/v1/graphql`, { query: 'mutation { update_item_by_pk(pk_columns: {id: 1}, _set: {name: "uno"}) { id } }' }, admin);
    expect(viaSecond.json).toEqual({ data: { update_item_by_pk: { id: 1 } } });
    await settlesTo(watchFirst, items([1, 'uno'], [2, 'two']), 20_000);
    await settlesTo(watchSecond, items([1, 'uno'], [2, 'two']), 20_000);
    await onFirst.close();
    onSecond.close();
  }, 60_000);

  it('leave no subscriber stale when the slot reader is killed and the other takes over', async () => {
    const readerPid = await slotReaderPid();
    const victim = engines.find((engine) => engine.child.pid === readerPid)!;
    const survivor = engines.find((engine) => engine !== victim)!;
    expect(victim).toBeDefined();
    const client = modernClient(survivor.url, admin);
    const watch = client.subscribe(ITEMS);
    expect((await watch.waitFor(1))[0]).toEqual(items([1, 'uno'], [2, 'two']));

    victim.child.kill('SIGKILL');
    // Changes while no instance reads the slot, then after the survivor has taken it over.
    await db.sql("insert into item values (3, 'three')");
    await settlesTo(watch, items([1, 'uno'], [2, 'two'], [3, 'three']), 45_000);
    expect(await slotReaderPid()).toBe(survivor.child.pid);
    await db.sql("delete from item where id = 2");
    await settlesTo(watch, items([1, 'uno'], [3, 'three']), 20_000);
    await client.close();
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataStore } from '../../src/metadata/store.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { sleep, startWebhook, stopAll, trackTables, type Webhook } from './fixtures.js';

/**
 * Capture follows the metadata in the WAL; delivery knows it from `metadata.changed`,
 * which can come later (another instance's change, a busy process). The first events of
 * a new trigger can so reach delivery before it heard of the trigger: they must be
 * delivered, not archived as if the trigger had been deleted.
 */
let db: TestDatabase;
let engine: TestEngine;
let hook: Webhook;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table item (id int primary key); create table other (id int primary key)');
  hook = await startWebhook();
  engine = await startTestEngine({ databaseUrl: db.url });
  await trackTables(engine, ['item']);
  const created = await engine.query({
    type: 'create_event_trigger',
    args: { name: 'item_known', table: 'item', webhook: hook.url, insert: { columns: '*' }, retry_conf: { num_retries: 3, interval_sec: 1, timeout_sec: 10 } },
  });
  expect(created.json).toEqual({ message: 'success' });
}, 60_000);

afterAll(async () => {
  await stopAll({ engine, hook, db });
});

const deliveredIds = (trigger: string) => hook.received.filter((request) => request.body?.trigger?.name === trigger).map((request) => request.body.event.data.new.id as number);

describe('a trigger delivery has not heard of yet', { timeout: 60_000 }, () => {
  it('gets its first events delivered, not archived', async () => {
    await db.sql('insert into item values (1)');
    await hook.waitFor(1, 20_000, (request) => request.body?.trigger?.name === 'item_known');
    // A metadata change this instance hears of: it has just read the metadata.
    await trackTables(engine, ['other']);
    // Then another writer's change whose broadcast has not arrived: a second trigger on the table.
    // Written whole, as an older engine or a restore would.
    const metadata = (await new MetadataStore(db.pool).read()).metadata as any;
    const table = metadata.sources[0].tables.find((entry: any) => entry.table.name === 'item');
    table.event_triggers.push({ ...table.event_triggers[0], name: 'item_unheard' });
    await db.sql('update service_catalog.metadata set metadata = $1, resource_version = resource_version + 1 where id = 1', [JSON.stringify(metadata)]);
    await db.sql('insert into item values (2)');

    const deadline = Date.now() + 20_000;
    while (!deliveredIds('item_unheard').includes(2) && Date.now() < deadline) await sleep(25);
    expect(new Set(deliveredIds('item_unheard'))).toEqual(new Set([2]));
    expect(new Set(deliveredIds('item_known'))).toEqual(new Set([1, 2]));
  });
});

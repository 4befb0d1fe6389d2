import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, testPrefix, type TestEngine } from '../harness/engine.js';
import { eventually, sleep, startWebhook, type Webhook } from './fixtures.js';

/**
 * A reader that starts behind (after a take-over, a restart) reads WAL written before
 * later metadata changes: it must match those changes against the triggers of their
 * time, not the triggers of now (issue 8, "WAL order for metadata").
 */
let db: TestDatabase;
let hook: Webhook;
const prefix = testPrefix();
const running: TestEngine[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table item (id int primary key, n int)');
  hook = await startWebhook();
}, 60_000);

afterAll(async () => {
  for (const engine of running) await engine.stop();
  await hook?.close();
  if (db !== undefined) {
    await db.drop();
  }
});

async function engine(actors?: string): Promise<TestEngine> {
  const started = await startTestEngine({ databaseUrl: db.url, prefix, env: actors === undefined ? {} : { SERVICE_GRAPHQL_ACTORS: actors } });
  running.push(started);
  return started;
}

async function stop(target: TestEngine): Promise<void> {
  running.splice(running.indexOf(target), 1);
  await target.stop();
}

const insertsOf = (trigger: string) => hook.received.filter((request) => request.body.trigger.name === trigger).map((request) => request.body.event.data.new.id as number);

describe('a reader that resumes behind a metadata change', () => {
  it('fires a trigger only for the changes made after it was created', async () => {
    const first = await engine();
    expect((await first.query({ type: 'track_table', args: { table: 'item' } })).status).toBe(200);
    const updates = await first.query({ type: 'create_event_trigger', args: { name: 'item_update', table: 'item', webhook: hook.url, update: { columns: '*' } } });
    expect(updates.json).toEqual({ message: 'success' });
    await db.sql('insert into item values (0, 0)');
    await db.sql('update item set n = 1 where id = 0');
    await hook.waitFor(1, 20_000, (request) => request.body.trigger.name === 'item_update');
    await stop(first);

    // Nobody reads the slot now. Rows 1-5 are inserted while no insert trigger exists...
    await db.sql('insert into item select g, g from generate_series(1, 5) g');
    // ...then one is created (by an instance without the triggers actor), then rows 6-8.
    const schemaOnly = await engine('schema,edge,auth,remote-schema');
    const inserts = await schemaOnly.query({ type: 'create_event_trigger', args: { name: 'item_insert', table: 'item', webhook: hook.url, insert: { columns: '*' } } });
    expect(inserts.json).toEqual({ message: 'success' });
    await db.sql('insert into item select g, g from generate_series(6, 8) g');

    // A reader starts behind all of it: rows 1-5 predate item_insert and must not fire it.
    await engine('triggers');
    await eventually(() => insertsOf('item_insert').length >= 3, 30_000, 'the inserts after the trigger was created');
    await sleep(1_000);
    expect(insertsOf('item_insert').sort((a, b) => a - b)).toEqual([6, 7, 8]);
  });
});

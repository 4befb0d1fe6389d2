import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../harness/database.js';
import { startTestEngine, type TestEngine } from '../../harness/engine.js';
import { startWebhook, stopAll, type Webhook } from '../../triggers/fixtures.js';

/** An event trigger keeps firing after run_sql renames its table and the column it listens on. */
let db: TestDatabase;
let engine: TestEngine;
let hook: Webhook;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table note (id int primary key, body text, status text)');
  hook = await startWebhook();
  engine = await startTestEngine({ databaseUrl: db.url });
  expect((await engine.query({ type: 'track_table', args: 'note' })).json).toEqual({ message: 'success' });
  const created = await engine.query({ type: 'create_event_trigger', args: { name: 'note_body', table: 'note', webhook: hook.url, update: { columns: ['body'], payload: ['id', 'body'] } } });
  expect(created.json).toEqual({ message: 'success' });
}, 60_000);

afterAll(async () => {
  await stopAll({ engine, hook, db });
});

describe('event triggers through a run_sql rename', () => {
  it('listens on the renamed column of the renamed table and delivers it by its new names', async () => {
    const renamed = await engine.query({ type: 'run_sql', args: { sql: 'alter table note rename column body to text; alter table note rename to memo' } });
    expect(renamed.json).toEqual({ result_type: 'CommandOk', result: null });
    const exported = (await engine.query({ type: 'export_metadata', args: {} })).json.sources[0].tables;
    expect(exported).toMatchObject([{ table: { schema: 'public', name: 'memo' }, event_triggers: [{ name: 'note_body', definition: { update: { columns: ['text'], payload: ['id', 'text'] } } }] }]);
    await db.sql("insert into memo (id, text, status) values (1, 'a', 'new')");
    await db.sql("update memo set status = 'seen' where id = 1");
    await db.sql("update memo set text = 'b' where id = 1");
    const [event] = await hook.waitFor(1, 20_000, (request) => request.body?.trigger?.name === 'note_body');
    expect(event!.body.table).toEqual({ schema: 'public', name: 'memo' });
    expect(event!.body.event.data).toEqual({ old: { id: 1, text: 'a' }, new: { id: 1, text: 'b' } });
  });
});

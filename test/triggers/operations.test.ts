import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { stopAll, trackTables } from './fixtures.js';

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table author (id serial primary key, name text); create table untracked (id int primary key); create view author_view as select * from author');
  engine = await startTestEngine({ databaseUrl: db.url });
  await trackTables(engine, ['author', 'author_view']);
}, 60_000);

afterAll(async () => {
  await stopAll({ engine, db });
});

const create = (args: Record<string, unknown>) =>
  engine.query({ type: 'create_event_trigger', args: { name: 't1', table: { schema: 'public', name: 'author' }, webhook: 'http://127.0.0.1:1/hook', insert: { columns: '*' }, ...args } });

describe('create_event_trigger validation (compat-facts 4.5)', () => {
  const parseFailures: [string, Record<string, unknown>, string][] = [
    ['a name with other characters', { name: 'bad name!' }, 'only alphanumeric and underscore and hyphens allowed for name'],
    ['a name longer than 42 characters', { name: 'n'.repeat(43) }, 'event trigger name can be at most 42 characters'],
    ['no operation and no manual mode', { insert: undefined }, 'atleast one amongst insert/update/delete/enable_manual spec must be provided'],
    ['both webhook and webhook_from_env', { webhook_from_env: 'X' }, 'only one of webhook or webhook_from_env should be given'],
    ['neither webhook nor webhook_from_env', { webhook: undefined }, 'must provide webhook or webhook_from_env'],
    ['an empty column list', { update: { columns: [] } }, 'found empty column specification'],
    ['an empty payload list', { update: { columns: '*', payload: [] } }, 'found empty payload specification'],
  ];
  for (const [what, args, text] of parseFailures) {
    it(`refuses ${what}`, async () => {
      const result = await create(args);
      expect(result.status).toBe(400);
      expect(result.json).toEqual({ path: '$', error: text, code: 'parse-failed' });
    });
  }

  it('accepts exactly 42 characters', async () => {
    const name = 'n'.repeat(42);
    expect((await create({ name })).json).toEqual({ message: 'success' });
    expect((await engine.query({ type: 'delete_event_trigger', args: { name } })).json).toEqual({ message: 'success' });
  });

  it('refuses a table that is not tracked, and a column that does not exist', async () => {
    const table = await create({ table: { schema: 'public', name: 'untracked' } });
    expect(table.json).toEqual({ path: '$.args.table', error: 'table "untracked" does not exist', code: 'not-exists' });
    const column = await create({ update: { columns: ['nope'] } });
    expect(column.json.code).toBe('not-exists');
    expect(column.json.path).toBe('$.args.update.columns[0]');
    const view = await create({ table: 'author_view' });
    expect(view.json.code).toBe('not-supported');
  });

  it('refuses webhook_from_env naming an unset variable with not-found', async () => {
    const result = await create({ webhook: undefined, webhook_from_env: 'SURELY_UNSET_VARIABLE_XYZ' });
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('not-found');
  });

  it('refuses a name in use, and replaces only an existing trigger on the same table', async () => {
    expect((await create({})).json).toEqual({ message: 'success' });
    expect((await create({})).json).toEqual({ path: '$.args.name', error: 'Event trigger with name "t1" already exists', code: 'already-exists' });
    expect((await create({ name: 'other', replace: true })).json).toEqual({ path: '$.args.name', error: 'event trigger "other" does not exist', code: 'not-exists' });
    expect((await create({ table: 'author_view', replace: true })).json).toMatchObject({ error: 'cannot replace table or schema for trigger', code: 'not-supported' });
    expect((await create({ replace: true, retry_conf: { num_retries: 5 } })).json).toEqual({ message: 'success' });
    const exported = await engine.query({ type: 'export_metadata', args: {} });
    const triggers = exported.json.sources[0].tables.find((t: any) => t.table.name === 'author').event_triggers;
    expect(triggers).toEqual([{ name: 't1', definition: { enable_manual: false, insert: { columns: '*' } }, retry_conf: { num_retries: 5, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://127.0.0.1:1/hook' }]);
  });

  it('puts the table in the publication with REPLICA IDENTITY FULL, in the same transaction', async () => {
    const published = await db.sql(`select tablename from pg_publication_tables where pubname = 'service_graphql_events' order by 1`);
    expect(published.rows.map((row) => row.tablename)).toEqual(['author', 'metadata']);
    const identity = await db.sql(`select relreplident from pg_class where relname = 'author'`);
    expect(identity.rows[0].relreplident).toBe('f');
    const slot = await db.sql('select slot_type, plugin from pg_replication_slots where database = current_database()');
    expect(slot.rows).toEqual([{ slot_type: 'logical', plugin: 'pgoutput' }]);
  });

  it('takes a tracked table without triggers back into the publication at the next metadata change, from the stored table entries', async () => {
    const published = async () => (await db.sql(`select tablename from pg_publication_tables where pubname = 'service_graphql_events' order by 1`)).rows.map((row) => row.tablename);
    await db.sql('create table reader (id int primary key)');
    await trackTables(engine, ['reader']);
    expect(await published()).toEqual(['author', 'metadata', 'reader']);
    await db.sql('alter publication service_graphql_events drop table reader');
    expect((await engine.query({ type: 'create_select_permission', args: { table: 'author', role: 'reader', permission: { columns: '*', filter: {} } } })).json).toEqual({ message: 'success' });
    const deadline = Date.now() + 15_000;
    while (!(await published()).includes('reader') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await published()).toEqual(['author', 'metadata', 'reader']);
    expect((await engine.query({ type: 'untrack_table', args: { table: 'reader' } })).json).toEqual({ message: 'success' });
    expect(await published()).toEqual(['author', 'metadata']);
  });
});

describe('delete_event_trigger, invoke_event_trigger, redeliver_event (compat-facts 4.6)', () => {
  it('refuses unknown triggers and events with not-exists', async () => {
    expect((await engine.query({ type: 'delete_event_trigger', args: { name: 'nope' } })).json).toEqual({ path: '$.args.name', error: 'event trigger "nope" does not exist', code: 'not-exists' });
    expect((await engine.query({ type: 'invoke_event_trigger', args: { name: 'nope', payload: {} } })).json).toMatchObject({ error: 'event trigger "nope" does not exist', code: 'not-exists' });
    expect((await engine.query({ type: 'redeliver_event', args: { event_id: '00000000-0000-0000-0000-000000000000' } })).json).toMatchObject({ error: 'event not found', code: 'not-exists' });
    expect((await engine.query({ type: 'get_event_by_id', args: { event_id: '00000000-0000-0000-0000-000000000000' } })).json).toMatchObject({ error: 'event not found', code: 'not-exists' });
  });

  it('refuses invoke on a trigger without manual mode with not-supported', async () => {
    const result = await engine.query({ type: 'invoke_event_trigger', args: { name: 't1', payload: { id: 1 } } });
    expect(result.json).toEqual({ path: '$.args.name', error: 'manual mode is not enabled for event trigger', code: 'not-supported' });
  });

  it('refuses invoke_event_trigger without a payload, naming the path', async () => {
    const result = await engine.query({ type: 'invoke_event_trigger', args: { name: 't1' } });
    expect(result.json).toMatchObject({ path: '$.args', code: 'parse-failed' });
  });

  it('keeps the tracked table in the publication without its last trigger; clear_metadata takes it out and drops the slot', async () => {
    expect((await engine.query({ type: 'delete_event_trigger', args: { name: 't1' } })).json).toEqual({ message: 'success' });
    const published = async () => (await db.sql(`select tablename from pg_publication_tables where pubname = 'service_graphql_events' order by 1`)).rows.map((row) => row.tablename);
    expect(await published()).toEqual(['author', 'metadata']);
    await create({ name: 't2' });
    expect((await engine.query({ type: 'clear_metadata', args: {} })).json).toEqual({ message: 'success' });
    expect(await published()).toEqual(['metadata']);
    const deadline = Date.now() + 15_000;
    let slots = 1;
    while (slots > 0 && Date.now() < deadline) {
      slots = (await db.sql('select 1 from pg_replication_slots where database = current_database()')).rowCount ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(slots).toBe(0);
  });
});

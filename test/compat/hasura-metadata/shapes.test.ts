import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../harness/database.js';
import { http, startTestEngine, type TestEngine } from '../../harness/engine.js';

/** The older metadata shapes a Hasura v2 user's setup still sends: bare table names, add_existing_table_or_view, foreign key forms, set_table_custom_fields. */
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id serial primary key, name text not null, age int);
    create table article (id serial primary key, title text not null, author_id int not null references author(id));
    create schema other;
    create table other.thing (id int primary key);
    insert into author (name, age) values ('Clarke', 23), ('Bellamy', null);
    insert into article (title, author_id) values ('A1', 1), ('A2', 2), ('A3', 1);
  `);
  engine = await startTestEngine({ databaseUrl: db.url });
});
afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});
beforeEach(async () => {
  await engine.query({ type: 'clear_metadata', args: {} });
});

const metadata = (body: unknown) => http('POST', `${engine.url}/v1/metadata`, body, { 'x-service-admin-secret': 'secret' });
const tables = async () => (await engine.query({ type: 'export_metadata', args: {} })).json.sources[0].tables;

describe('track_table with a bare table name', () => {
  it('tracks public.<name> from /v1/query track_table and add_existing_table_or_view, and /v1/metadata pg_track_table', async () => {
    expect((await engine.query({ type: 'track_table', args: 'author' })).json).toEqual({ message: 'success' });
    expect((await engine.query({ type: 'add_existing_table_or_view', args: { name: 'article' } })).json).toEqual({ message: 'success' });
    expect((await engine.query({ type: 'add_existing_table_or_view', args: { schema: 'other', name: 'thing' } })).json).toEqual({ message: 'success' });
    expect((await tables()).map((entry: { table: unknown }) => entry.table)).toEqual([
      { schema: 'public', name: 'article' }, { schema: 'public', name: 'author' }, { schema: 'other', name: 'thing' },
    ]);
    await engine.query({ type: 'clear_metadata', args: {} });
    expect((await metadata({ type: 'pg_track_table', args: 'author' })).json).toEqual({ message: 'success' });
    expect((await metadata({ type: 'pg_track_table', args: { table: 'article' } })).json).toEqual({ message: 'success' });
    const rows = await engine.graphql({ query: '{ author(order_by: {id: asc}) { name articles: id } }' });
    expect(rows.json.data.author).toHaveLength(2);
  });

  it('refuses a bare name that is no table, one tracked twice, and a value of the wrong shape', async () => {
    const missing = await engine.query({ type: 'track_table', args: 'nope' });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ code: 'not-exists', error: 'no such table/view exists in source: "nope"' });
    await engine.query({ type: 'add_existing_table_or_view', args: 'author' });
    const twice = await engine.query({ type: 'add_existing_table_or_view', args: 'author' });
    expect(twice.json).toMatchObject({ code: 'already-tracked' });
    const number = await engine.query({ type: 'track_table', args: 12 });
    expect(number.status).toBe(400);
    expect(number.json.code).toBe('parse-failed');
  });
});

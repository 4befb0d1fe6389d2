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

describe('foreign_key_constraint_on forms', () => {
  beforeEach(async () => {
    await engine.query({ type: 'bulk', args: [{ type: 'track_table', args: 'author' }, { type: 'track_table', args: 'article' }] });
  });
  const relationships = async (name: string) => {
    const entry = (await tables()).find((table: { table: { name: string } }) => table.table.name === name);
    return { object: entry.object_relationships, array: entry.array_relationships };
  };

  it('takes {column} and {columns} on the table itself for an object relationship, stored as Hasura exports them', async () => {
    const one = await engine.query({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: { column: 'author_id' } } } });
    expect(one.json).toEqual({ message: 'success' });
    const two = await metadata({ type: 'pg_create_object_relationship', args: { table: 'article', name: 'writer', using: { foreign_key_constraint_on: { columns: ['author_id'] } } } });
    expect(two.json).toEqual({ message: 'success' });
    expect((await relationships('article')).object).toEqual([
      { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
      { name: 'writer', using: { foreign_key_constraint_on: 'author_id' } },
    ]);
    const rows = await engine.graphql({ query: '{ article(order_by: {id: asc}, limit: 1) { author { name } writer { name } } }' });
    expect(rows.json).toEqual({ data: { article: [{ author: { name: 'Clarke' }, writer: { name: 'Clarke' } }] } });
  });

  it('takes {table, columns} with columns a string or a list for an array relationship', async () => {
    expect((await engine.query({ type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', columns: 'author_id' } } } })).json).toEqual({ message: 'success' });
    expect((await engine.query({ type: 'create_array_relationship', args: { table: 'author', name: 'posts', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, columns: ['author_id'] } } } })).json).toEqual({ message: 'success' });
    expect((await relationships('author')).array).toEqual([
      { name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
      { name: 'posts', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, columns: ['author_id'] } } },
    ]);
    const rows = await engine.graphql({ query: '{ author(order_by: {id: asc}) { articles(order_by: {id: asc}) { title } posts_aggregate { aggregate { count } } } }' });
    expect(rows.json.data.author[0]).toEqual({ articles: [{ title: 'A1' }, { title: 'A3' }], posts_aggregate: { aggregate: { count: 2 } } });
  });

  it('reads the older forms in replace_metadata too', async () => {
    const replaced = await engine.query({
      type: 'replace_metadata',
      args: {
        version: 2,
        tables: [
          { table: { schema: 'public', name: 'author' }, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', columns: 'author_id' } } }] },
          { table: { schema: 'public', name: 'article' }, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: { column: 'author_id' } } }] },
        ],
      },
    });
    expect(replaced.json).toEqual({ message: 'success' });
    expect((await relationships('article')).object).toEqual([{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }]);
    expect((await relationships('author')).array).toEqual([{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }]);
  });

  it('refuses both column and columns, an array relationship without the other table, and a key that does not exist', async () => {
    const both = await engine.query({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: { column: 'author_id', columns: ['author_id'] } } } });
    expect(both.status).toBe(400);
    expect(both.json.code).toBe('parse-failed');
    const noTable = await engine.query({ type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { columns: ['author_id'] } } } });
    expect(noTable.json).toMatchObject({ code: 'parse-failed', path: '$.args.using.foreign_key_constraint_on' });
    const noKey = await engine.query({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: { column: 'title' } } } });
    expect(noKey.status).toBe(400);
    expect(noKey.json.error).toContain('no foreign constraint exists on the given column(s) title');
    expect((await relationships('article')).object).toBeUndefined();
  });
});

describe('set_table_custom_fields', () => {
  beforeEach(async () => {
    await engine.query({ type: 'bulk', args: [{ type: 'track_table', args: 'author' }, { type: 'track_table', args: 'article' }] });
  });

  it('sets root fields and column names, as version 1 and 2, and unsets them', async () => {
    const set = await engine.query({ type: 'set_table_custom_fields', version: 2, args: { table: 'author', custom_root_fields: { select: 'Authors' }, custom_column_names: { id: 'AuthorId', name: 'AuthorName' } } });
    expect(set.json).toEqual({ message: 'success' });
    expect((await tables()).find((entry: { table: { name: string } }) => entry.table.name === 'author').configuration).toEqual({ custom_root_fields: { select: 'Authors' }, custom_column_names: { id: 'AuthorId', name: 'AuthorName' } });
    const rows = await engine.graphql({ query: '{ Authors(order_by: {AuthorId: asc}) { AuthorId AuthorName } }' });
    expect(rows.json).toEqual({ data: { Authors: [{ AuthorId: 1, AuthorName: 'Clarke' }, { AuthorId: 2, AuthorName: 'Bellamy' }] } });
    expect((await engine.query({ type: 'set_table_custom_fields', args: { table: 'author', custom_root_fields: {}, custom_column_names: {} } })).json).toEqual({ message: 'success' });
    expect((await tables()).find((entry: { table: { name: string } }) => entry.table.name === 'author').configuration).toBeUndefined();
    expect((await engine.graphql({ query: '{ author(limit: 1) { id } }' })).json.data.author).toHaveLength(1);
  });

  it('swaps two columns\' names (Hasura\'s column_field_swap case)', async () => {
    const swapped = await engine.query({ type: 'set_table_custom_fields', version: 2, args: { table: 'article', custom_root_fields: {}, custom_column_names: { title: 'author_id', author_id: 'title' } } });
    expect(swapped.json).toEqual({ message: 'success' });
    const rows = await engine.graphql({ query: '{ article(order_by: {id: asc}, limit: 1) { title author_id } }' });
    expect(rows.json).toEqual({ data: { article: [{ title: 1, author_id: 'A1' }] } });
  });

  it('refuses an untracked table and a name that is no GraphQL name', async () => {
    const untracked = await engine.query({ type: 'set_table_custom_fields', version: 2, args: { table: 'nope', custom_root_fields: {}, custom_column_names: {} } });
    expect(untracked.json).toEqual({ path: '$.args', code: 'not-exists', error: 'table "nope" does not exist' });
    const badName = await engine.query({ type: 'set_table_custom_fields', version: 2, args: { table: 'author', custom_column_names: { id: 'not a name' } } });
    expect(badName.status).toBe(400);
    expect(badName.json.code).toBe('parse-failed');
  });
});

describe('a custom column name and a relationship of the same name', () => {
  beforeEach(async () => {
    await engine.query({
      type: 'bulk',
      args: [
        { type: 'track_table', version: 2, args: { table: 'author', configuration: { custom_column_names: { id: 'AuthorId' } } } },
        { type: 'track_table', args: 'article' },
        { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      ],
    });
  });

  it('refuses custom column names that a relationship holds, through set_table_custom_fields and set_table_customization', async () => {
    const older = await engine.query({ type: 'set_table_custom_fields', version: 2, args: { table: 'author', custom_root_fields: {}, custom_column_names: { name: 'articles' } } });
    expect(older.status).toBe(400);
    expect(older.json).toMatchObject({ path: '$.args', code: 'unexpected', error: 'cannot continue due to new inconsistent metadata' });
    expect(older.json.internal[0]).toMatchObject({ type: 'array_relation', reason: 'field definition conflicts with custom field name for postgres column "name"' });
    const newer = await engine.query({ type: 'set_table_customization', args: { table: 'author', configuration: { column_config: { age: { custom_name: 'articles' } } } } });
    expect(newer.status).toBe(400);
    expect(newer.json.internal[0].reason).toBe('field definition conflicts with custom field name for postgres column "age"');
    const kept = await engine.query({ type: 'set_table_customization', args: { table: 'author', configuration: { column_config: { age: { custom_name: 'years' } } } } });
    expect(kept.json).toEqual({ message: 'success' });
  });

  it('refuses a relationship named as a custom column name, and replace_metadata holding both', async () => {
    const created = await engine.query({ type: 'create_array_relationship', args: { name: 'AuthorId', table: 'author', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } });
    expect(created.json).toEqual({ path: '$.args', error: 'custom column name "AuthorId" of table "author" already exists', code: 'already-exists' });
    const renamed = await engine.query({ type: 'rename_relationship', args: { table: 'author', name: 'articles', new_name: 'AuthorId' } });
    expect(renamed.json.code).toBe('already-exists');
    const exported = (await engine.query({ type: 'export_metadata', args: {} })).json;
    const author = exported.sources[0].tables.find((entry: { table: { name: string } }) => entry.table.name === 'author');
    author.configuration = { custom_column_names: { id: 'AuthorId', name: 'articles' } };
    const replaced = await engine.query({ type: 'replace_metadata', args: exported });
    expect(replaced.status).toBe(400);
    expect(replaced.json.internal[0].reason).toBe('field definition conflicts with custom field name for postgres column "name"');
  });
});

describe('a permission for the admin role', () => {
  it('is refused as already defined, as Hasura answers', async () => {
    await engine.query({ type: 'track_table', args: 'author' });
    for (const kind of ['select', 'insert', 'update', 'delete']) {
      const permission = kind === 'insert' ? { check: {}, columns: '*' } : kind === 'delete' ? { filter: {} } : { columns: '*', filter: {} };
      const refused = await engine.query({ type: `create_${kind}_permission`, args: { table: 'author', role: 'admin', permission } });
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ path: '$.args', error: `${kind} permission already defined on table "author" with role "admin"`, code: 'already-exists' });
    }
    const user = await engine.query({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: '*', filter: {} } } });
    expect(user.json).toEqual({ message: 'success' });
  });
});

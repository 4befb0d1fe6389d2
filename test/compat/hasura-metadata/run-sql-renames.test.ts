import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../harness/database.js';
import { startTestEngine, type TestEngine } from '../../harness/engine.js';

/** run_sql renaming tracked tables and columns carries the names into the metadata; a type change a permission depends on is refused and rolled back. */
let db: TestDatabase;
let engine: TestEngine;

const SCHEMA = `
  drop table if exists post, article, writer, author cascade;
  create table author (id serial primary key, name text not null, owner_id text, rank int not null default 0);
  create table article (id serial primary key, title text not null, author_id int not null references author(id));
  insert into author (name, owner_id, rank) values ('Ann', '1', 1), ('Bob', '2', 2);
  insert into article (title, author_id) values ('First', 1), ('Second', 2);
`;

beforeAll(async () => {
  db = await createTestDatabase();
  engine = await startTestEngine({ databaseUrl: db.url });
});
afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});
beforeEach(async () => {
  await engine.query({ type: 'clear_metadata', args: {} });
  await db.sql(SCHEMA);
  const setup = await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', version: 2, args: { table: 'author', configuration: { custom_column_names: { owner_id: 'ownerId' } } } },
      { type: 'track_table', args: 'article' },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'manual_articles', using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'author_id' } } } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name', 'owner_id'], filter: { owner_id: { _eq: 'X-Service-User-Id' } } } } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { $or: [{ author: { owner_id: { $eq: 'X-Service-User-Id' } } }, { _exists: { _table: 'author', _where: { rank: { _gt: 5 } } } }] } } } },
      { type: 'create_update_permission', args: { table: 'author', role: 'user', permission: { columns: ['name'], filter: { owner_id: { _ceq: 'owner_id' } }, set: { owner_id: 'X-Service-User-Id' } } } },
      { type: 'create_event_trigger', args: { name: 'author_changed', table: 'author', webhook: 'http://127.0.0.1:1/hook', update: { columns: ['name', 'owner_id'] } } },
    ],
  });
  expect(setup.status).toBe(200);
});

const runSql = (sql: string) => engine.query({ type: 'run_sql', args: { sql } });
const tables = async () => (await engine.query({ type: 'export_metadata', args: {} })).json.sources[0].tables;
const user = { 'x-service-admin-secret': 'secret', 'x-service-role': 'user', 'x-service-user-id': '1' };

describe('run_sql renaming what the metadata tracks', () => {
  it('renames a column in permissions, presets, filters across relationships, relationships, custom names and event triggers', async () => {
    expect((await runSql('alter table author rename column owner_id to owner; alter table article rename column author_id to writer_id')).json).toEqual({ result_type: 'CommandOk', result: null });
    const [article, author] = await tables();
    expect(author.configuration).toEqual({ custom_column_names: { owner: 'ownerId' } });
    expect(author.select_permissions[0].permission).toEqual({ columns: ['id', 'name', 'owner'], filter: { owner: { _eq: 'X-Service-User-Id' } } });
    expect(author.update_permissions[0].permission).toMatchObject({ columns: ['name'], filter: { owner: { _ceq: 'owner' } }, set: { owner: 'X-Service-User-Id' } });
    expect(author.array_relationships).toEqual([
      { name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'writer_id' } } },
      { name: 'manual_articles', using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'writer_id' } } } },
    ]);
    expect(author.event_triggers[0].definition.update.columns).toEqual(['name', 'owner']);
    expect(article.object_relationships).toEqual([{ name: 'author', using: { foreign_key_constraint_on: 'writer_id' } }]);
    expect(article.select_permissions[0].permission).toEqual({
      columns: ['id', 'title', 'writer_id'],
      filter: { $or: [{ author: { owner: { $eq: 'X-Service-User-Id' } } }, { _exists: { _table: 'author', _where: { rank: { _gt: 5 } } } }] },
    });
    const rows = await engine.graphql({ query: '{ article { title writer_id author { ownerId } } }' }, user);
    expect(rows.json).toEqual({ data: { article: [{ title: 'First', writer_id: 1, author: { ownerId: '1' } }] } });
    expect((await engine.query({ type: 'get_inconsistent_metadata', args: {} })).json).toEqual([]);
  });

  it('renames a table in its entry and in the relationships and _exists that name it', async () => {
    expect((await runSql('alter table author rename to writer')).json.result_type).toBe('CommandOk');
    const [article, writer] = await tables();
    expect(writer.table).toEqual({ schema: 'public', name: 'writer' });
    expect(writer.array_relationships.map((item: { name: string }) => item.name)).toEqual(['articles', 'manual_articles']);
    expect(article.select_permissions[0].permission.filter.$or[1]).toEqual({ _exists: { _table: 'writer', _where: { rank: { _gt: 5 } } } });
    const rows = await engine.graphql({ query: '{ writer { name articles { title } } }' }, user);
    expect(rows.json).toEqual({ data: { writer: [{ name: 'Ann', articles: [{ title: 'First' }] }] } });
    expect((await runSql('alter table article rename to post')).json.result_type).toBe('CommandOk');
    const renamed = (await tables()).find((entry: { table: { name: string } }) => entry.table.name === 'writer');
    expect(renamed.array_relationships[0].using).toEqual({ foreign_key_constraint_on: { table: 'post', column: 'author_id' } });
    expect(renamed.array_relationships[1].using.manual_configuration.remote_table).toBe('post');
    expect((await engine.graphql({ query: '{ post { title author { name } } }' }, user)).json).toEqual({ data: { post: [{ title: 'First', author: { name: 'Ann' } }] } });
  });

  it('refuses a type change of a column a permission compares, rolling the SQL back, and allows one nothing compares', async () => {
    const refused = await runSql("alter table author add column extra int; alter table author alter column rank type bigint");
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      path: '$.args',
      code: 'dependency-error',
      error: 'cannot change type of column "rank" in table "author" because of the following dependencies : permission article.user.select',
    });
    const columns = await db.sql("select column_name, data_type from information_schema.columns where table_name = 'author' and column_name in ('rank', 'extra')");
    expect(columns.rows).toEqual([{ column_name: 'rank', data_type: 'integer' }]);
    const direct = await runSql('alter table author alter column owner_id type varchar(20)');
    expect(direct.json.error).toBe('cannot change type of column "owner_id" in table "author" because of the following dependencies : permission article.user.select, permission author.user.select, permission author.user.update');
    const free = await runSql('alter table article alter column title type varchar(100)');
    expect(free.json).toEqual({ result_type: 'CommandOk', result: null });
  });

  it('keeps custom column names through a rename and forgets those of a dropped column (Hasura\'s alter_column case)', async () => {
    await runSql('alter table author add column nickname text');
    await engine.query({ type: 'set_table_custom_fields', version: 2, args: { table: 'author', custom_root_fields: { select: 'Authors' }, custom_column_names: { id: 'AuthorId', nickname: 'Nick' } } });
    const altered = await runSql('alter table author drop column nickname; alter table author rename column id to author_id');
    expect(altered.json).toEqual({ result_type: 'CommandOk', result: null });
    const author = (await tables()).find((entry: { table: { name: string } }) => entry.table.name === 'author');
    expect(author.configuration).toEqual({ custom_root_fields: { select: 'Authors' }, custom_column_names: { author_id: 'AuthorId' } });
    const rows = await engine.graphql({ query: '{ Authors(order_by: {AuthorId: asc}) { AuthorId name } }' });
    expect(rows.json).toEqual({ data: { Authors: [{ AuthorId: 1, name: 'Ann' }, { AuthorId: 2, name: 'Bob' }] } });
  });

  it('still refuses dropping a column the metadata needs', async () => {
    const dropped = await runSql('alter table author drop column owner_id');
    expect(dropped.status).toBe(400);
    expect(dropped.json.code).toBe('dependency-error');
  });
});

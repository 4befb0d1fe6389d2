import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create schema music;
    create table author (id serial primary key, name text not null);
    create table article (id serial primary key, author_id int references author(id), editor_id int, title text);
    create table music.album (id serial primary key, title text);
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

async function tables() {
  const exported = await engine.query({ type: 'export_metadata', args: {} });
  return exported.json.sources[0].tables;
}

async function ok(body: unknown) {
  const result = await engine.query(body);
  expect(result.json).toEqual({ message: 'success' });
  expect(result.status).toBe(200);
}

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };

describe('track_table', () => {
  it('tracks a table given as {schema, name}, as {name} and as {table}', async () => {
    await ok({ type: 'track_table', args: { schema: 'public', name: 'author' } });
    await ok({ type: 'track_table', args: { name: 'article' } });
    await ok({ type: 'track_table', args: { table: { schema: 'music', name: 'album' } } });
    expect(await tables()).toEqual([{ table: { schema: 'music', name: 'album' } }, { table: article }, { table: author }]);
  });

  it('version 2 keeps the configuration', async () => {
    const configuration = { custom_name: 'writer', custom_root_fields: { select: 'writers' }, column_config: { name: { custom_name: 'fullName' } } };
    await ok({ type: 'track_table', version: 2, args: { table: author, configuration } });
    expect(await tables()).toEqual([{ table: author, configuration }]);
  });

  it('refuses a table tracked twice, one that does not exist, and args naming neither or both', async () => {
    await ok({ type: 'track_table', args: { name: 'author' } });
    const twice = await engine.query({ type: 'track_table', args: { name: 'author' } });
    expect(twice.status).toBe(400);
    expect(twice.json).toEqual({ path: '$.args.table', error: 'view/table already tracked: "author"', code: 'already-tracked' });

    const missing = await engine.query({ type: 'track_table', args: { table: 'nope' } });
    expect(missing.json).toEqual({ path: '$.args.table', error: 'no such table/view exists in source: "nope"', code: 'not-exists' });

    const neither = await engine.query({ type: 'track_table', args: {} });
    expect(neither.json.code).toBe('parse-failed');
    const both = await engine.query({ type: 'track_table', args: { name: 'a', table: 'b' } });
    expect(both.json.code).toBe('parse-failed');
  });

  it('refuses root field names another table already answers to, and custom ones given twice', async () => {
    await ok({ type: 'track_table', args: { name: 'author' } });
    const clash = (configuration: unknown) => engine.query({ type: 'track_table', version: 2, args: { table: article, configuration } });
    const byName = await clash({ custom_name: 'author' });
    expect(byName.status).toBe(400);
    expect(byName.json).toEqual({ path: '$.args', error: 'node author already exists in current graphql schema', code: 'remote-schema-conflicts' });
    expect((await clash({ custom_root_fields: { select_aggregate: 'author_by_pk' } })).json.error).toBe('node author_by_pk already exists in current graphql schema');
    const twice = await clash({ custom_root_fields: { select: 'posts', select_by_pk: 'posts', delete: 'gone', update: 'gone' } });
    expect(twice.json).toEqual({ path: '$.args.configuration.custom_root_fields', error: 'the following custom root field names are duplicated: posts and gone', code: 'parse-failed' });
    expect(await tables()).toEqual([{ table: author }]);
    // A query field and a mutation field live in different roots.
    await ok({ type: 'track_table', version: 2, args: { table: article, configuration: { custom_root_fields: { select: 'insert_author' } } } });
    const customized = await engine.query({ type: 'set_table_customization', args: { table: 'article', configuration: { custom_root_fields: { select_by_pk: 'author' } } } });
    expect(customized.json).toEqual({ path: '$.args', error: 'node author already exists in current graphql schema', code: 'remote-schema-conflicts' });
    const served = await engine.graphql({ query: '{ author { id } insert_author { id } }' });
    expect(served.json).toEqual({ data: { author: [], insert_author: [] } });
  });

  it('leaves out, as inconsistent, a replaced table whose names another table already answers to', async () => {
    const exported = (await engine.query({ type: 'export_metadata', args: {} })).json;
    const clashing = { ...exported, sources: [{ ...exported.sources[0], tables: [{ table: author }, { table: article, configuration: { custom_name: 'author' } }] }] };
    const refused = await engine.query({ type: 'replace_metadata', args: clashing });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'unexpected', error: 'cannot continue due to inconsistent metadata' });
    expect(refused.json.internal).toEqual([{ type: 'table', definition: article, reason: 'the GraphQL name "author" of table "article" is already used by table "author"' }]);
    const allowed = await engine.query({ type: 'replace_metadata', version: 2, args: { allow_inconsistent_metadata: true, metadata: clashing } });
    expect(allowed.json.is_consistent).toBe(false);
    const inconsistent = await engine.query({ type: 'get_inconsistent_metadata', args: {} });
    expect(inconsistent.json).toEqual([
      { type: 'table', definition: article, reason: 'the GraphQL name "author" of table "article" is already used by table "author"' },
    ]);
    expect((await engine.graphql({ query: '{ author { name } }' })).json).toEqual({ data: { author: [] } });
  });

  it('sees a table created in psql without a reload', async () => {
    await db.sql('create table fresh (id int primary key)');
    await ok({ type: 'track_table', args: { name: 'fresh' } });
    await db.sql('drop table fresh');
    await engine.query({ type: 'reload_metadata', args: {} });
  });
});

describe('set_table_customization and untrack_table', () => {
  it('sets and clears the configuration', async () => {
    await ok({ type: 'track_table', args: { name: 'author' } });
    await ok({ type: 'set_table_customization', args: { table: 'author', configuration: { custom_name: 'writer' } } });
    expect(await tables()).toEqual([{ table: author, configuration: { custom_name: 'writer' } }]);
    await ok({ type: 'set_table_customization', args: { table: 'author', configuration: {} } });
    expect(await tables()).toEqual([{ table: author }]);
  });

  it('refuses to untrack a table another relationship needs, unless cascade', async () => {
    await ok({ type: 'track_table', args: { name: 'author' } });
    await ok({ type: 'track_table', args: { name: 'article' } });
    await ok({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });

    const refused = await engine.query({ type: 'untrack_table', args: { table: author } });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ path: '$.args', error: 'cannot drop due to the following dependent objects : relationship article.author', code: 'dependency-error' });

    await ok({ type: 'untrack_table', args: { table: author, cascade: true } });
    expect(await tables()).toEqual([{ table: article }]);

    const again = await engine.query({ type: 'untrack_table', args: { table: author } });
    expect(again.json).toEqual({ path: '$.args.table', error: 'view/table already untracked: "author"', code: 'already-untracked' });
  });
});

describe('relationships', () => {
  beforeEach(async () => {
    await ok({ type: 'track_table', args: { name: 'author' } });
    await ok({ type: 'track_table', args: { name: 'article' } });
  });

  it('creates object and array relationships by foreign key and by manual configuration', async () => {
    await ok({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await ok({ type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } }, comment: 'by author' } });
    await ok({ type: 'create_object_relationship', args: { table: 'article', name: 'editor', using: { manual_configuration: { remote_table: author, column_mapping: { editor_id: 'id' } } } } });
    expect(await tables()).toEqual([
      {
        table: article,
        object_relationships: [
          { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
          { name: 'editor', using: { manual_configuration: { remote_table: author, column_mapping: { editor_id: 'id' } } } },
        ],
      },
      { table: author, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } }, comment: 'by author' }] },
    ]);
  });

  it('refuses a name taken by a column or another relationship', async () => {
    await ok({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    const twice = await engine.query({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    expect(twice.json).toEqual({ path: '$.args.name', error: 'field with name "author" already exists in table "article"', code: 'already-exists' });
    const column = await engine.query({ type: 'create_object_relationship', args: { table: 'article', name: 'title', using: { foreign_key_constraint_on: 'author_id' } } });
    expect(column.json.code).toBe('already-exists');
  });

  it('refuses a relationship the database cannot back, with the reason', async () => {
    const noKey = await engine.query({ type: 'create_object_relationship', args: { table: 'article', name: 'editor', using: { foreign_key_constraint_on: 'editor_id' } } });
    expect(noKey.status).toBe(400);
    expect(noKey.json.code).toBe('invalid-configuration');
    expect(noKey.json.error).toBe('Inconsistent object: no foreign constraint exists on the given column(s) editor_id');
    expect(noKey.json.internal[0].type).toBe('object_relation');

    const noColumn = await engine.query({ type: 'create_object_relationship', args: { table: 'article', name: 'x', using: { manual_configuration: { remote_table: 'author', column_mapping: { nope: 'id' } } } } });
    expect(noColumn.json.error).toBe('Inconsistent object: column "nope" does not exist in table "article"');

    const untracked = await engine.query({ type: 'create_object_relationship', args: { table: 'article', name: 'y', using: { manual_configuration: { remote_table: { schema: 'music', name: 'album' }, column_mapping: { id: 'id' } } } } });
    expect(untracked.json.error).toBe('Inconsistent object: table "music.album" is not tracked');

    const arrayByColumn = await engine.query({ type: 'create_array_relationship', args: { table: 'author', name: 'z', using: { foreign_key_constraint_on: 'id' } } });
    expect(arrayByColumn.json.code).toBe('parse-failed');

    const onUntracked = await engine.query({ type: 'create_object_relationship', args: { table: 'nope', name: 'y', using: { foreign_key_constraint_on: 'author_id' } } });
    expect(onUntracked.json).toEqual({ path: '$.args.table', error: 'table "nope" does not exist', code: 'not-exists' });
  });

  it('renames and drops relationships', async () => {
    await ok({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await ok({ type: 'rename_relationship', args: { table: 'article', name: 'author', new_name: 'writer' } });
    expect((await tables())[0].object_relationships[0].name).toBe('writer');
    const missing = await engine.query({ type: 'drop_relationship', args: { table: 'article', relationship: 'author' } });
    expect(missing.json).toEqual({ path: '$.args.relationship', error: 'relationship "author" does not exist in table "article"', code: 'not-exists' });
    await ok({ type: 'drop_relationship', args: { table: 'article', relationship: 'writer' } });
    expect(await tables()).toEqual([{ table: article }, { table: author }]);
  });
});

describe('select permissions', () => {
  beforeEach(async () => {
    await ok({ type: 'track_table', args: { name: 'author' } });
  });

  it('creates and drops a permission, carried by export', async () => {
    const permission = { columns: ['id', 'name'], filter: { id: { _eq: 'X-Service-User-Id' } }, limit: 10, allow_aggregations: true };
    await ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission, comment: 'own row' } });
    expect(await tables()).toEqual([{ table: author, select_permissions: [{ role: 'user', permission, comment: 'own row' }] }]);
    await ok({ type: 'drop_select_permission', args: { table: 'author', role: 'user' } });
    expect(await tables()).toEqual([{ table: author }]);
  });

  it('refuses duplicates, unknown columns, the admin role and unknown permissions', async () => {
    const permission = { columns: '*', filter: {} };
    await ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission } });
    const twice = await engine.query({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission } });
    expect(twice.json).toEqual({ path: '$.args', error: 'select permission already defined on table "author" with role "user"', code: 'already-exists' });

    const column = await engine.query({ type: 'create_select_permission', args: { table: 'author', role: 'guest', permission: { columns: ['id', 'secret'], filter: {} } } });
    expect(column.json).toEqual({ path: '$.args.permission.columns[1]', error: 'Inconsistent object: in table "author": column "secret" does not exist', code: 'invalid-configuration' });

    const admin = await engine.query({ type: 'create_select_permission', args: { table: 'author', role: 'admin', permission } });
    expect(admin.json).toEqual({ path: '$.args', error: 'select permission already defined on table "author" with role "admin"', code: 'already-exists' });

    const badShape = await engine.query({ type: 'create_select_permission', args: { table: 'author', role: 'guest', permission: { columns: 'id', filter: {} } } });
    expect(badShape.json.code).toBe('parse-failed');

    const drop = await engine.query({ type: 'drop_select_permission', args: { table: 'author', role: 'nobody' } });
    expect(drop.json).toEqual({ path: '$.args.role', error: 'select permission for role "nobody" is not defined on table "author"', code: 'not-exists' });
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id serial primary key, name text not null, secret text);
    create table article (id serial primary key, author_id int references author(id), title text);
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

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };
const trigger = (name: string) => ({ name, definition: { enable_manual: true }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://127.0.0.1:1/hook' });

function metadata(tables: unknown[], extra: Record<string, unknown> = {}, sourceExtra: Record<string, unknown> = {}) {
  return { version: 3, sources: [{ name: 'default', kind: 'postgres', tables, configuration: { connection_info: { database_url: { from_env: 'SERVICE_GRAPHQL_DATABASE_URL' } } }, ...sourceExtra }], ...extra };
}

/** After a refusal: the engine still answers, and the metadata is what it was. */
async function expectUnchanged(before: unknown): Promise<void> {
  const exported = await engine.query({ type: 'export_metadata', args: {} });
  expect(exported.status).toBe(200);
  expect(exported.json).toEqual(before);
  const typename = await engine.graphql({ query: '{ __typename }' });
  expect(typename.json).toEqual({ data: { __typename: 'query_root' } });
}

async function exported(): Promise<unknown> {
  return (await engine.query({ type: 'export_metadata', args: {} })).json;
}

describe('replace_metadata refuses duplicate declarations', () => {
  const narrow = { role: 'user', permission: { columns: ['id', 'name'], filter: {} } };
  const wide = { role: 'user', permission: { columns: ['id', 'name', 'secret'], filter: {} } };

  it('refuses two select permissions of one role on one table, which would let the later, wider one win', async () => {
    const before = await exported();
    const result = await engine.query({ type: 'replace_metadata', args: metadata([{ table: author, select_permissions: [narrow, wide] }]) });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.args.sources[0].tables[0].select_permissions', error: 'multiple declarations exist for the following select permissions: user', code: 'already-exists' });
    await expectUnchanged(before);
  });

  it('takes the same permissions for two roles', async () => {
    const result = await engine.query({ type: 'replace_metadata', args: metadata([{ table: author, select_permissions: [narrow, { ...wide, role: 'admin_reader' }] }]) });
    expect(result.json).toEqual({ message: 'success' });
  });

  it.each([
    ['tables', [{ table: author }, { table: author }], '$.args.sources[0].tables', 'tables: author'],
    ['insert permissions', [{ table: author, insert_permissions: [{ role: 'u', permission: { check: {} } }, { role: 'u', permission: { check: {} } }] }], '$.args.sources[0].tables[0].insert_permissions', 'insert permissions: u'],
    ['update permissions', [{ table: author, update_permissions: [{ role: 'u', permission: { columns: '*', filter: {} } }, { role: 'u', permission: { columns: [], filter: {} } }] }], '$.args.sources[0].tables[0].update_permissions', 'update permissions: u'],
    ['delete permissions', [{ table: author, delete_permissions: [{ role: 'u', permission: { filter: {} } }, { role: 'u', permission: { filter: {} } }] }], '$.args.sources[0].tables[0].delete_permissions', 'delete permissions: u'],
    ['object relationships', [{ table: article, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }, { name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] }, { table: author }], '$.args.sources[0].tables[0].object_relationships', 'object relationships: author'],
    [
      'an object and an array relationship of one name',
      [{ table: article, object_relationships: [{ name: 'rel', using: { foreign_key_constraint_on: 'author_id' } }], array_relationships: [{ name: 'rel', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }] }],
      '$.args.sources[0].tables[0]',
      'relationships: rel',
    ],
  ])('refuses duplicate %s', async (_what, tables, path, things) => {
    const before = await exported();
    const result = await engine.query({ type: 'replace_metadata', args: metadata(tables) });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path, error: `multiple declarations exist for the following ${things}`, code: 'already-exists' });
    await expectUnchanged(before);
  });

  it('refuses two event triggers of one name, on two tables, in the words of compat-facts', async () => {
    const before = await exported();
    const result = await engine.query({ type: 'replace_metadata', args: metadata([{ table: author, event_triggers: [trigger('changed')] }, { table: article, event_triggers: [trigger('changed')] }]) });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.args.sources[0].tables', error: 'Event trigger with duplicate names not allowed: "changed"', code: 'not-supported' });
    await expectUnchanged(before);
  });

  it('refuses duplicate remote schemas before calling either', async () => {
    const remote = { name: 'countries', definition: { url: 'http://127.0.0.1:1/graphql' } };
    const result = await engine.query({ type: 'replace_metadata', args: metadata([], { remote_schemas: [remote, remote] }) });
    expect(result.json).toEqual({ path: '$.args.remote_schemas', error: 'multiple declarations exist for the following remote schemas: countries', code: 'already-exists' });
  });

  it('refuses them in version 2 too, at the path under metadata', async () => {
    const result = await engine.query({ type: 'replace_metadata', version: 2, args: { metadata: metadata([{ table: author, select_permissions: [narrow, wide] }]) } });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.args.metadata.sources[0].tables[0].select_permissions', error: 'multiple declarations exist for the following select permissions: user', code: 'already-exists' });
  });
});

describe('names in the metadata', () => {
  const refused = async (body: unknown, path: string, error: string) => {
    const before = await exported();
    const result = await engine.query(body);
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path, error, code: 'parse-failed' });
    await expectUnchanged(before);
  };

  it.each([
    ['__typename as a custom table name', { custom_name: '__typename' }, '.custom_name', '"__typename" is not a valid GraphQL name: names starting with "__" are reserved for introspection'],
    ['a custom root field with a space', { custom_root_fields: { select: 'all authors' } }, '.custom_root_fields.select', '"all authors" is not a valid GraphQL name'],
    ['a custom root field object naming __schema', { custom_root_fields: { select_by_pk: { name: '__schema' } } }, '.custom_root_fields.select_by_pk.name', '"__schema" is not a valid GraphQL name: names starting with "__" are reserved for introspection'],
    ['a column name with a hyphen', { column_config: { name: { custom_name: 'full-name' } } }, '.column_config.name.custom_name', '"full-name" is not a valid GraphQL name'],
    ['a custom column name starting with a digit', { custom_column_names: { name: '1name' } }, '.custom_column_names.name', '"1name" is not a valid GraphQL name'],
    ['a name of 129 characters', { custom_name: `a${'b'.repeat(128)}` }, '.custom_name', 'a GraphQL name can be at most 128 characters'],
  ])('refuses %s in a table configuration, in replace_metadata and in set_table_customization', async (_what, configuration, at, error) => {
    await refused({ type: 'replace_metadata', args: metadata([{ table: author, configuration }]) }, `$.args.sources[0].tables[0].configuration${at}`, error);
    await engine.query({ type: 'track_table', args: { name: 'author' } });
    await refused({ type: 'set_table_customization', args: { table: author, configuration } }, `$.args.configuration${at}`, error);
  });

  it('takes valid custom names', async () => {
    const configuration = { custom_name: 'writer', custom_root_fields: { select: 'writers', select_by_pk: { name: 'writer_by_id', comment: 'one' } }, column_config: { name: { custom_name: 'fullName' } } };
    const result = await engine.query({ type: 'replace_metadata', args: metadata([{ table: author, configuration }]) });
    expect(result.json).toEqual({ message: 'success' });
    const typename = await engine.graphql({ query: '{ writers { fullName } }' });
    expect(typename.json).toEqual({ data: { writers: [] } });
  });

  it('refuses a relationship name that is not a GraphQL name, in replace_metadata and create_object_relationship', async () => {
    const using = { foreign_key_constraint_on: 'author_id' };
    await refused({ type: 'replace_metadata', args: metadata([{ table: article, object_relationships: [{ name: 'the author', using }] }, { table: author }]) }, '$.args.sources[0].tables[0].object_relationships[0].name', '"the author" is not a valid GraphQL name');
    await engine.query({ type: 'track_table', args: { name: 'article' } });
    await refused({ type: 'create_object_relationship', args: { table: 'article', name: '__typename', using } }, '$.args.name', '"__typename" is not a valid GraphQL name: names starting with "__" are reserved for introspection');
  });

  it.each([
    ['a name starting with a digit', '1changed', 'only alphanumeric and underscore and hyphens allowed for name'],
    ['a name starting with an underscore', '_changed', 'only alphanumeric and underscore and hyphens allowed for name'],
    ['a name with a dollar', 'weird$name', 'only alphanumeric and underscore and hyphens allowed for name'],
    ['a name of 43 characters', `a${'b'.repeat(42)}`, 'event trigger name can be at most 42 characters'],
  ])('refuses an event trigger with %s', async (_what, name, error) => {
    await refused({ type: 'replace_metadata', args: metadata([{ table: author, event_triggers: [trigger(name)] }]) }, '$.args.sources[0].tables[0].event_triggers[0].name', error);
    await engine.query({ type: 'track_table', args: { name: 'author' } });
    await refused({ type: 'create_event_trigger', args: { name, table: 'author', webhook: 'http://127.0.0.1:1/hook', enable_manual: true } }, '$', error);
  });

  it('takes an event trigger name of 42 characters with hyphens and underscores', async () => {
    const result = await engine.query({ type: 'replace_metadata', args: metadata([{ table: author, event_triggers: [trigger(`a-b_${'c'.repeat(38)}`)] }]) });
    expect(result.json).toEqual({ message: 'success' });
  });

  it('refuses a role name of 129 characters', async () => {
    const role = 'r'.repeat(129);
    await refused({ type: 'replace_metadata', args: metadata([{ table: author, select_permissions: [{ role, permission: { columns: '*', filter: {} } }] }]) }, '$.args.sources[0].tables[0].select_permissions[0].role', 'expected at most 128 characters, got 129');
  });

  it('refuses a function custom name that shadows __typename', async () => {
    const withFunction = metadata([{ table: author }], {}, { functions: [{ function: { schema: 'public', name: 'f' }, configuration: { custom_name: '__typename' } }] });
    await refused({ type: 'replace_metadata', args: withFunction }, '$.args.sources[0].functions[0].configuration.custom_name', '"__typename" is not a valid GraphQL name: names starting with "__" are reserved for introspection');
  });
});

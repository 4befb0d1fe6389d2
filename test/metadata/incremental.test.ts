import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

/**
 * A metadata operation reuses what it did not touch: the introspected catalog while the
 * database's catalogs are unchanged, and each untouched table's model and names. Whatever
 * it reuses, the schema each role is served and the exported metadata must be what a full
 * reload_metadata builds, on the instance that ran the operation and on another one.
 */
let db: TestDatabase;
let first: TestEngine;
let second: TestEngine;

const ROLES = ['admin', 'user', 'editor'];
const INTROSPECTION = getIntrospectionQuery();
const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };
const tag = { schema: 'public', name: 'tag' };

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id serial primary key, name text not null);
    create table article (id serial primary key, author_id int references author(id), title text);
    create table tag (id serial primary key, article_id int references article(id), label text);
  `);
  first = await startTestEngine({ databaseUrl: db.url });
  second = await startTestEngine({ databaseUrl: db.url, prefix: first.prefix });
  await first.query({ type: 'clear_metadata', args: {} });
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  await db?.drop();
});

async function ok(engine: TestEngine, type: string, args: unknown): Promise<void> {
  const result = await engine.query({ type, args });
  expect({ type, status: result.status, body: result.json }).toEqual({ type, status: 200, body: { message: 'success' } });
}

/** What an instance serves: its export, its inconsistencies and every role's introspection. */
async function served(engine: TestEngine): Promise<unknown> {
  // A metadata request first: it brings the instance up to the stored version (read-your-writes).
  const exported = (await engine.query({ type: 'export_metadata', args: {} })).json;
  const inconsistent = (await engine.query({ type: 'get_inconsistent_metadata', args: {} })).json;
  const schemas: Record<string, unknown> = {};
  for (const role of ROLES) schemas[role] = (await engine.graphql({ query: INTROSPECTION }, { 'x-service-role': role })).json;
  return { exported, inconsistent, schemas };
}

/** Both instances serve the same, and what a full reload builds. */
async function expectAsAfterReload(): Promise<void> {
  const before = await served(first);
  expect(await served(second)).toEqual(before);
  const reloaded = await second.query({ type: 'reload_metadata', args: {} });
  expect(reloaded.json).toEqual({ message: 'success', is_consistent: true });
  expect(await served(first)).toEqual(before);
  expect(await served(second)).toEqual(before);
}

function typeFields(snapshot: unknown, role: string, type: string): string[] {
  const schema = (snapshot as { schemas: Record<string, { data: { __schema: { types: { name: string; fields: { name: string }[] | null }[] } } }> }).schemas[role]!;
  return (schema.data.__schema.types.find((candidate) => candidate.name === type)?.fields ?? []).map((field) => field.name).sort();
}

describe('metadata operations on two instances', () => {
  it('serve what a full reload serves after tracking, relationships and permissions', async () => {
    await ok(first, 'track_table', { table: author });
    await ok(second, 'track_table', { table: article });
    await ok(first, 'track_table', { table: tag });
    await ok(second, 'create_object_relationship', { table: article, name: 'author', using: { foreign_key_constraint_on: 'author_id' } });
    await ok(first, 'create_array_relationship', { table: author, name: 'articles', using: { foreign_key_constraint_on: { table: article, column: 'author_id' } } });
    await ok(first, 'create_array_relationship', { table: article, name: 'tags', using: { foreign_key_constraint_on: { table: tag, column: 'article_id' } } });
    await ok(second, 'create_select_permission', { table: author, role: 'user', permission: { columns: ['id', 'name'], filter: {} } });
    await ok(first, 'create_select_permission', { table: article, role: 'user', permission: { columns: ['id', 'title'], filter: { author: { name: { _eq: 'X-Service-User-Id' } } } } });
    await ok(second, 'create_select_permission', { table: tag, role: 'editor', permission: { columns: ['id', 'label'], filter: {}, allow_aggregations: true } });
    await expectAsAfterReload();
    const snapshot = await served(second);
    expect(typeFields(snapshot, 'user', 'article')).toEqual(['author', 'id', 'title']);
    expect(typeFields(snapshot, 'editor', 'query_root')).toEqual(['tag', 'tag_aggregate', 'tag_by_pk']);
  });

  it('see a column added in psql on the next operation, for the table it touches and for the others', async () => {
    await db.sql('alter table author add column bio text; alter table tag add column colour text');
    // Touches author only: tag's model must still be built again from the new catalog.
    await ok(second, 'create_select_permission', { table: author, role: 'editor', permission: { columns: ['id', 'bio'], filter: {} } });
    await expectAsAfterReload();
    const snapshot = await served(first);
    expect(typeFields(snapshot, 'editor', 'author')).toEqual(['bio', 'id']);
    expect(typeFields(snapshot, 'admin', 'tag')).toContain('colour');
  });

  it('serve what a full reload serves after renames, drops, customisation and untracking', async () => {
    await ok(first, 'rename_relationship', { table: author, name: 'articles', new_name: 'writings' });
    await ok(second, 'set_table_customization', { table: article, configuration: { custom_name: 'post' } });
    await expectAsAfterReload();
    expect(typeFields(await served(first), 'admin', 'query_root')).toContain('post_by_pk');
    await ok(first, 'drop_relationship', { table: article, relationship: 'tags' });
    await ok(second, 'drop_select_permission', { table: author, role: 'user' });
    await ok(first, 'untrack_table', { table: tag, cascade: true });
    await expectAsAfterReload();
    const snapshot = await served(second);
    expect(typeFields(snapshot, 'admin', 'post')).toEqual(['author', 'author_id', 'id', 'title']);
    expect(typeFields(snapshot, 'editor', 'query_root')).toEqual(['author', 'author_by_pk']);
    expect(typeFields(snapshot, 'user', 'query_root')).toEqual(['post', 'post_by_pk']);
  });

  it('write only the table entries an operation changed, also right after reading the other instance\'s change', async () => {
    const versions = async () => new Map((await db.sql('select table_name, xmin::text as xmin from service_catalog.metadata_tables')).rows.map((row) => [row.table_name as string, row.xmin as string]));
    await ok(first, 'create_select_permission', { table: author, role: 'reader', permission: { columns: ['id'], filter: {} } });
    const before = await versions();
    expect([...before.keys()].sort()).toEqual(['article', 'author']);
    // The second instance reads the first one's change, then changes the article entry alone.
    await ok(second, 'create_select_permission', { table: article, role: 'reader', permission: { columns: ['id'], filter: {} } });
    const after = await versions();
    expect(after.get('author')).toBe(before.get('author'));
    expect(after.get('article')).not.toBe(before.get('article'));
  });

  it('apply an operation again in order where a table came in psql, or the stored version moved unheard, since the catalog and state it was applied to ahead', async () => {
    // The operation is applied to the catalog kept from the last one while its transaction
    // begins: tracking a table made a moment ago first fails there, and must not say so.
    await db.sql('create table fresh (id serial primary key, label text)');
    await ok(first, 'track_table', { table: { schema: 'public', name: 'fresh' } });
    await ok(first, 'create_select_permission', { table: { schema: 'public', name: 'fresh' }, role: 'user', permission: { columns: ['id', 'label'], filter: {} } });
    // Another writer's version this instance never heard of: its draft was of the version before.
    const stored = async () => Number((await db.sql('select resource_version from service_catalog.metadata where id = 1')).rows[0]!.resource_version);
    await db.sql('update service_catalog.metadata set resource_version = resource_version + 1 where id = 1');
    const moved = await stored();
    await ok(first, 'create_select_permission', { table: { schema: 'public', name: 'fresh' }, role: 'editor', permission: { columns: ['id'], filter: {} } });
    expect(await stored()).toBe(moved + 1);
    // Applied ahead, the column dropped a moment ago is still there: the answer is the catalog's as it is now.
    await db.sql('alter table fresh add column note text');
    await ok(first, 'create_select_permission', { table: { schema: 'public', name: 'fresh' }, role: 'auditor', permission: { columns: ['id', 'note'], filter: {} } });
    await db.sql('alter table fresh drop column note');
    const refused = await first.query({ type: 'create_select_permission', args: { table: { schema: 'public', name: 'fresh' }, role: 'reader', permission: { columns: ['id', 'note'], filter: {} } } });
    expect(refused.status).toBe(400);
    await ok(first, 'drop_select_permission', { table: { schema: 'public', name: 'fresh' }, role: 'auditor' });
    await expectAsAfterReload();
    const snapshot = await served(second);
    expect(typeFields(snapshot, 'user', 'fresh')).toEqual(['id', 'label']);
    expect(typeFields(snapshot, 'editor', 'fresh')).toEqual(['id']);
  });
  it('apply again in order, written in steps, an operation applied ahead whose write takes more than one statement', async () => {
    // The trigger view last written by an older engine: the write and COMMIT sent together
    // must not commit without it. The transaction rolls back and the operation is applied again.
    const viewCurrent = async () => (await db.sql('select trigger_view_version = resource_version and trigger_view is not null as current from service_catalog.metadata where id = 1')).rows[0]!.current as boolean;
    await db.sql('update service_catalog.metadata set trigger_view_kept = null where id = 1');
    await ok(first, 'create_select_permission', { table: author, role: 'steps', permission: { columns: ['id', 'name'], filter: {} } });
    expect(await viewCurrent()).toBe(true);
    await db.sql('create table stepped (id serial primary key)');
    await db.sql('update service_catalog.metadata set trigger_view_kept = null where id = 1');
    await ok(first, 'track_table', { table: { schema: 'public', name: 'stepped' } });
    expect(await viewCurrent()).toBe(true);
    const exported = (await second.query({ type: 'export_metadata', args: {} })).json as { sources: { tables: { table: { name: string }; select_permissions?: { role: string }[] }[] }[] };
    const tables = exported.sources[0]!.tables;
    expect(tables.some((entry) => entry.table.name === 'stepped')).toBe(true);
    expect(tables.find((entry) => entry.table.name === 'author')!.select_permissions!.map((permission) => permission.role)).toContain('steps');
    await expectAsAfterReload();
  });

  it('apply a bulk with a data write in order, so that a state changed meanwhile does not make it write twice', async () => {
    await db.sql('create table counted (id serial primary key, label text)');
    await ok(first, 'track_table', { table: { schema: 'public', name: 'counted' } });
    // A table made in psql since: a bulk applied ahead would find the catalog changed and apply again.
    await db.sql('create table later (id serial primary key)');
    const bulk = await first.query({
      type: 'bulk',
      args: [
        { type: 'track_table', args: { table: { schema: 'public', name: 'later' } } },
        { type: 'insert', args: { table: { schema: 'public', name: 'counted' }, objects: [{ label: 'first' }], returning: ['id'] } },
      ],
    });
    expect(bulk.json).toEqual([{ message: 'success' }, { affected_rows: 1, returning: [{ id: 1 }] }]);
    const duplicate = await first.query({
      type: 'bulk',
      args: [
        { type: 'create_select_permission', args: { table: { schema: 'public', name: 'later' }, role: 'user', permission: { columns: ['id'], filter: {} } } },
        { type: 'insert', args: { table: { schema: 'public', name: 'counted' }, objects: [{ id: 1, label: 'again' }] } },
      ],
    });
    expect({ status: duplicate.status, code: (duplicate.json as { code?: string }).code }).toEqual({ status: 400, code: 'constraint-violation' });
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

/** create/drop_insert_permission, create/drop_update_permission, create/drop_delete_permission, and their place in the metadata. */
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id serial primary key, name text not null, owner_id text);
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
  await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: 'author' } },
      { type: 'track_table', args: { name: 'article' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    ],
  });
});

const table = async (name: string) => {
  const exported = await engine.query({ type: 'export_metadata', args: {} });
  return exported.json.sources[0].tables.find((entry: { table: { name: string } }) => entry.table.name === name);
};

describe('create_insert_permission, create_update_permission, create_delete_permission', () => {
  it('store the permissions in export form, in Hasura key order', async () => {
    const created = await engine.query({
      type: 'bulk',
      args: [
        { type: 'create_insert_permission', args: { table: 'article', role: 'user', permission: { columns: ['title', 'author_id'], set: {}, check: { author: { owner_id: { _eq: 'X-Service-User-Id' } } }, backend_only: false } } },
        { type: 'create_update_permission', args: { table: 'article', role: 'user', permission: { set: { title: 'x' }, filter: { author_id: { _eq: 1 } }, columns: ['title'] } } },
        { type: 'create_delete_permission', args: { table: 'article', role: 'user', permission: { filter: { id: { _gt: 0 } } }, comment: 'why' } },
      ],
    });
    expect(created.json).toEqual([{ message: 'success' }, { message: 'success' }, { message: 'success' }]);
    const entry = await table('article');
    expect(JSON.stringify(entry.insert_permissions)).toBe(JSON.stringify([{ role: 'user', permission: { check: { author: { owner_id: { _eq: 'X-Service-User-Id' } } }, columns: ['title', 'author_id'] } }]));
    expect(JSON.stringify(entry.update_permissions)).toBe(JSON.stringify([{ role: 'user', permission: { columns: ['title'], filter: { author_id: { _eq: 1 } }, check: null, set: { title: 'x' } } }]));
    expect(entry.delete_permissions).toEqual([{ role: 'user', permission: { filter: { id: { _gt: 0 } } }, comment: 'why' }]);
    expect(Object.keys(entry)).toEqual(['table', 'object_relationships', 'insert_permissions', 'update_permissions', 'delete_permissions']);
  });

  it('refuse a column that does not exist, in columns and in set', async () => {
    const columns = await engine.query({ type: 'create_insert_permission', args: { table: 'author', role: 'user', permission: { check: {}, columns: ['nope'] } } });
    expect(columns.status).toBe(400);
    expect(columns.json).toMatchObject({ path: '$.args.permission.columns[0]', code: 'invalid-configuration' });
    const preset = await engine.query({ type: 'create_update_permission', args: { table: 'author', role: 'user', permission: { columns: ['name'], filter: {}, set: { nope: 1 } } } });
    expect(preset.json).toMatchObject({ path: '$.args.permission.set[0]', code: 'invalid-configuration' });
  });

  it('refuse a filter or check naming what does not exist', async () => {
    const check = await engine.query({ type: 'create_insert_permission', args: { table: 'author', role: 'user', permission: { check: { missing: { _eq: 1 } } } } });
    expect(check.status).toBe(400);
    expect(check.json.code).toBe('invalid-configuration');
    expect(check.json.error).toContain('no such column or relationship exists: "missing"');
    const filter = await engine.query({ type: 'create_delete_permission', args: { table: 'author', role: 'user', permission: { filter: { name: { _nope: 1 } } } } });
    expect(filter.json.code).toBe('invalid-configuration');
    expect((await table('author')).insert_permissions).toBeUndefined();
  });

  it('refuse a second permission of the same kind for a role, an untracked table and the admin role', async () => {
    const args = { table: 'author', role: 'user', permission: { filter: {} } };
    expect((await engine.query({ type: 'create_delete_permission', args })).status).toBe(200);
    expect((await engine.query({ type: 'create_delete_permission', args })).json).toMatchObject({ code: 'already-exists', error: 'delete permission already defined on table "author" with role "user"' });
    expect((await engine.query({ type: 'create_delete_permission', args: { ...args, table: 'nope' } })).json.code).toBe('not-exists');
    expect((await engine.query({ type: 'create_delete_permission', args: { ...args, role: 'admin' } })).json.code).toBe('already-exists');
    expect((await engine.query({ type: 'create_delete_permission', args: { table: 'author', role: 'user', permission: { filter: {}, extra: 1 } } })).json.code).toBe('parse-failed');
  });
});

describe('drop_insert_permission, drop_update_permission, drop_delete_permission', () => {
  it('drop a permission, and refuse one that is not defined', async () => {
    await engine.query({ type: 'create_update_permission', args: { table: 'author', role: 'user', permission: { columns: '*', filter: {} } } });
    expect((await engine.query({ type: 'drop_update_permission', args: { table: 'author', role: 'user' } })).json).toEqual({ message: 'success' });
    expect((await table('author')).update_permissions).toBeUndefined();
    const again = await engine.query({ type: 'drop_update_permission', args: { table: 'author', role: 'user' } });
    expect(again.json).toMatchObject({ code: 'not-exists', path: '$.args.role' });
    expect((await engine.query({ type: 'drop_insert_permission', args: { table: 'author', role: 'user' } })).json.code).toBe('not-exists');
  });
});

describe('write permissions in the metadata', () => {
  it('are carried by export and replace_metadata', async () => {
    await engine.query({ type: 'create_insert_permission', args: { table: 'author', role: 'user', permission: { check: {}, set: { owner_id: 'X-Service-User-Id' }, columns: ['name'] } } });
    const exported = (await engine.query({ type: 'export_metadata', args: {} })).json;
    await engine.query({ type: 'clear_metadata', args: {} });
    expect((await engine.query({ type: 'replace_metadata', args: exported })).json).toEqual({ message: 'success' });
    expect((await engine.query({ type: 'export_metadata', args: {} })).json).toEqual(exported);
  });

  it('depend on the columns they use: dropping one is refused, or drops them with cascade', async () => {
    await engine.query({ type: 'create_insert_permission', args: { table: 'author', role: 'user', permission: { check: {}, columns: ['name', 'owner_id'] } } });
    await engine.query({ type: 'create_update_permission', args: { table: 'author', role: 'user', permission: { columns: ['name'], filter: { owner_id: { _eq: 'X-Service-User-Id' } } } } });
    const refused = await engine.query({ type: 'run_sql', args: { sql: 'alter table author drop column owner_id' } });
    expect(refused.json.code).toBe('dependency-error');
    expect(refused.json.error).toMatch(/^cannot drop due to the following dependent objects : .*author/);
    const cascaded = await engine.query({ type: 'run_sql', args: { sql: 'alter table author drop column owner_id', cascade: true } });
    expect(cascaded.status).toBe(200);
    const entry = await table('author');
    expect(entry.insert_permissions).toBeUndefined();
    expect(entry.update_permissions).toBeUndefined();
    await engine.query({ type: 'run_sql', args: { sql: 'alter table author add column owner_id text' } });
  });
});

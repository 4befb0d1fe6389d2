import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

let db: TestDatabase;
let engine: TestEngine;

const CONNECTION = { connection_info: { database_url: { from_env: 'SERVICE_GRAPHQL_DATABASE_URL' }, isolation_level: 'read-committed', use_prepared_statements: true } };

function metadataWith(tables: unknown[]) {
  return { version: 3, sources: [{ name: 'default', kind: 'postgres', tables, configuration: CONNECTION }] };
}

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id serial primary key, name text not null);
    create table article (id serial primary key, author_id int references author(id), title text);
  `);
  engine = await startTestEngine({ databaseUrl: db.url });
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

async function exportMetadata() {
  const result = await engine.query({ type: 'export_metadata', args: {} });
  expect(result.status).toBe(200);
  return result.json;
}

describe('export_metadata and replace_metadata', () => {
  it('exports the empty version 3 metadata of a new engine', async () => {
    await engine.query({ type: 'clear_metadata', args: {} });
    expect(await exportMetadata()).toEqual(metadataWith([]));
  });

  it('replaces the metadata and exports it back in Hasura order, empty lists left out', async () => {
    const articles = [{ name: 'articles', using: { foreign_key_constraint_on: { table: article, column: 'author_id' } } }];
    const given = metadataWith([
      { table: author, array_relationships: articles, object_relationships: [] },
      { table: article, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
    ]);
    const result = await engine.query({ type: 'replace_metadata', args: given });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ message: 'success' });
    const exported = await exportMetadata();
    expect(exported.sources[0].tables.map((t: { table: { name: string } }) => t.table.name)).toEqual(['article', 'author']);
    expect(exported.sources[0].tables[1]).toEqual({ table: author, array_relationships: articles });
    expect(Object.keys(exported)).toEqual(['version', 'sources']);
  });

  it('accepts version 2 metadata (tables at the top level) into the default source', async () => {
    const result = await engine.query({ type: 'replace_metadata', args: { version: 2, tables: [{ table: author }] } });
    expect(result.status).toBe(200);
    expect((await exportMetadata()).sources[0].tables).toEqual([{ table: author }]);
  });

  it('refuses metadata naming a table that does not exist, committing nothing', async () => {
    const before = await exportMetadata();
    const result = await engine.query({ type: 'replace_metadata', args: metadataWith([{ table: { schema: 'public', name: 'orders' } }]) });
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('unexpected');
    expect(result.json.error).toBe('cannot continue due to inconsistent metadata');
    expect(result.json.internal).toEqual([{ type: 'table', definition: { schema: 'public', name: 'orders' }, reason: 'no such table/view exists in source: "orders"' }]);
    expect(await exportMetadata()).toEqual(before);
  });

  it('refuses a source other than the default one', async () => {
    const result = await engine.query({ type: 'replace_metadata', args: { version: 3, sources: [{ name: 'other', kind: 'postgres', tables: [] }] } });
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('not-supported');
    expect(result.json.path).toBe('$.args.sources[0].name');
  });

  it('exports version 2 of export_metadata with the resource_version, which grows with every change', async () => {
    const first = (await engine.query({ type: 'export_metadata', version: 2, args: {} })).json;
    await engine.query({ type: 'clear_metadata', args: {} });
    const second = (await engine.query({ type: 'export_metadata', version: 2, args: {} })).json;
    expect(second.resource_version).toBe(first.resource_version + 1);
    expect(second.metadata).toEqual(metadataWith([]));
  });
});

describe('inconsistent metadata', () => {
  it('keeps inconsistent objects with allow_inconsistent_metadata and reports them', async () => {
    const missing = { schema: 'public', name: 'orders' };
    const result = await engine.query({
      type: 'replace_metadata',
      version: 2,
      args: { allow_inconsistent_metadata: true, metadata: metadataWith([{ table: author }, { table: missing }]) },
    });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ is_consistent: false, inconsistent_objects: [{ type: 'table', definition: missing, reason: 'no such table/view exists in source: "orders"' }] });

    const listed = await engine.query({ type: 'get_inconsistent_metadata', args: {} });
    expect(listed.json).toEqual([{ type: 'table', definition: missing, reason: 'no such table/view exists in source: "orders"' }]);

    expect((await engine.get('/healthz', {})).text).toBe('WARN: inconsistent objects in schema');
    const strict = await engine.get('/healthz?strict=true', {});
    expect(strict.status).toBe(500);
    expect(strict.text).toBe('ERROR: inconsistent objects in schema');

    expect((await engine.query({ type: 'drop_inconsistent_metadata', args: {} })).json).toEqual({ message: 'success' });
    expect((await engine.query({ type: 'get_inconsistent_metadata', args: {} })).json).toEqual([]);
    expect((await exportMetadata()).sources[0].tables).toEqual([{ table: author }]);
    expect((await engine.get('/healthz', {})).text).toBe('OK');
  });

  it('after reload_metadata lists a relationship whose column was dropped, and keeps serving the rest', async () => {
    await db.sql('create table review (id serial primary key, article_id int references article(id))');
    const relationship = { name: 'article', using: { foreign_key_constraint_on: 'article_id' } };
    await engine.query({ type: 'replace_metadata', args: metadataWith([{ table: article }, { table: { schema: 'public', name: 'review' }, object_relationships: [relationship] }]) }).then((r) => expect(r.status).toBe(200));

    await db.sql('alter table review drop column article_id');
    const reloaded = await engine.query({ type: 'reload_metadata', args: {} });
    expect(reloaded.status).toBe(200);
    expect(reloaded.json).toEqual({
      message: 'success',
      is_consistent: false,
      inconsistent_objects: [
        {
          type: 'object_relation',
          definition: { ...relationship, source: 'default', table: { schema: 'public', name: 'review' } },
          reason: 'column "article_id" does not exist in table "review"',
        },
      ],
    });
    expect((await engine.graphql({ query: '{ __typename }' })).json).toEqual({ data: { __typename: 'query_root' } });

    await db.sql('drop table review');
    const again = await engine.query({ type: 'reload_metadata', args: {} });
    expect(again.json.inconsistent_objects.map((o: { type: string }) => o.type)).toEqual(['table']);
    await engine.query({ type: 'drop_inconsistent_metadata', args: {} });
    expect((await engine.query({ type: 'reload_metadata', args: {} })).json).toEqual({ message: 'success', is_consistent: true });
  });

  it('refuses a change that would add an inconsistency: relationship to an untracked table', async () => {
    const result = await engine.query({ type: 'replace_metadata', args: metadataWith([{ table: article, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] }]) });
    expect(result.status).toBe(400);
    expect(result.json.internal[0]).toMatchObject({ type: 'object_relation', reason: 'table "author" is not tracked' });
  });
});

describe('bulk', () => {
  it('applies operations in order and answers one result per operation', async () => {
    const result = await engine.query({
      type: 'bulk',
      args: [
        { type: 'replace_metadata', args: metadataWith([{ table: author }]) },
        { type: 'export_metadata', args: {} },
      ],
    });
    expect(result.status).toBe(200);
    expect(result.json).toEqual([{ message: 'success' }, metadataWith([{ table: author }])]);
  });

  it('stops at the first error, with its path in the batch, and commits nothing', async () => {
    const before = await exportMetadata();
    const result = await engine.query({
      type: 'bulk',
      args: [
        { type: 'clear_metadata', args: {} },
        { type: 'replace_metadata', args: { version: 3 } },
        { type: 'clear_metadata', args: {} },
      ],
    });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.args[1].args', error: 'key "sources" not found', code: 'parse-failed' });
    expect(await exportMetadata()).toEqual(before);
  });

  it('names an unknown operation inside the batch by its path', async () => {
    const result = await engine.query({ type: 'bulk', args: [{ type: 'export_metadata', args: {} }, { type: 'frobnicate', args: {} }] });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.args[1].type', error: 'unknown operation type: "frobnicate"', code: 'parse-failed' });
  });
});

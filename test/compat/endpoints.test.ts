import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { http, startTestEngine, type HttpResult, type TestEngine } from '../harness/engine.js';

const SECRET = 'endpoints-test-secret';
const admin = { 'x-service-admin-secret': SECRET };
let db: TestDatabase;
let engine: TestEngine;

const post = (path: string, body: unknown, headers: Record<string, string> = admin): Promise<HttpResult> => http('POST', `${engine.url}${path}`, body, headers);
const metadata = (body: unknown, headers?: Record<string, string>) => post('/v1/metadata', body, headers);
const queryV2 = (body: unknown, headers?: Record<string, string>) => post('/v2/query', body, headers);

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id int primary key, name text not null);
    create table article (id int primary key, author_id int not null references author (id), title text not null);
    create table tag (id int primary key, label text not null);
    insert into author values (1, 'Ada'), (2, 'Brian');
    insert into article values (10, 1, 'On engines'), (11, 2, 'On C');
    create table badge (id integer primary key);
    create function search_articles(q text) returns setof article language sql stable as $$ select * from article where title ilike '%' || q || '%' $$;
    create function name_length(person author) returns int language sql stable as $$ select length(person.name) $$;
  `);
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET } });
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

function expectError(result: HttpResult, status: number, body: { path: string; code: string; error?: string | RegExp }): void {
  expect(result.status, result.text).toBe(status);
  expect(result.json.path).toBe(body.path);
  expect(result.json.code).toBe(body.code);
  if (typeof body.error === 'string') expect(result.json.error).toBe(body.error);
  if (body.error instanceof RegExp) expect(result.json.error).toMatch(body.error);
}

describe('POST /v1/metadata: the metadata operations under Hasura\'s pg_ names', () => {
  it('tracks a table by pg_track_table with source and configuration, as Hasura\'s metadata API takes them', async () => {
    const tracked = await metadata({ type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'author' }, configuration: { custom_name: 'writer' } } });
    expect(tracked.status, tracked.text).toBe(200);
    expect(tracked.json).toEqual({ message: 'success' });
    const read = await engine.graphql({ query: '{ writer(order_by: {id: asc}) { name } }' });
    expect(read.json).toEqual({ data: { writer: [{ name: 'Ada' }, { name: 'Brian' }] } });
  });

  it('serves the same operation under its own name, source defaulting to the one database', async () => {
    const tracked = await metadata({ type: 'track_table', args: { table: 'article' } });
    expect(tracked.status, tracked.text).toBe(200);
    const exported = await metadata({ type: 'export_metadata', args: {} });
    const tables = exported.json.sources[0].tables.map((entry: { table: { name: string } }) => entry.table.name);
    expect(tables).toEqual(expect.arrayContaining(['author', 'article']));
  });

  it('takes the bare table name form of pg_track_table too', async () => {
    expect((await metadata({ type: 'pg_track_table', args: { schema: 'public', name: 'tag' } })).status).toBe(200);
    expect((await metadata({ type: 'pg_untrack_table', args: { source: 'default', table: { schema: 'public', name: 'tag' } } })).json).toEqual({ message: 'success' });
  });

  it('creates relationships and permissions by their pg_ names, and a role reads only within its permission', async () => {
    const steps = await metadata({
      type: 'bulk',
      args: [
        { type: 'pg_create_object_relationship', args: { source: 'default', table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
        { type: 'pg_create_select_permission', args: { source: 'default', table: 'article', role: 'reader', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Service-User-Id' } } } } },
      ],
    });
    expect(steps.status, steps.text).toBe(200);
    expect(steps.json).toEqual([{ message: 'success' }, { message: 'success' }]);
    const asReader = await engine.graphql({ query: '{ article { id title } }' }, { ...admin, 'x-service-role': 'reader', 'x-service-user-id': '2' });
    expect(asReader.json).toEqual({ data: { article: [{ id: 11, title: 'On C' }] } });
    const dropped = await metadata({ type: 'pg_drop_select_permission', args: { source: 'default', table: 'article', role: 'reader' } });
    expect(dropped.json).toEqual({ message: 'success' });
  });

  it('tracks a function by pg_track_function with Hasura\'s {function, configuration} arguments', async () => {
    const tracked = await metadata({ type: 'pg_track_function', args: { source: 'default', function: { schema: 'public', name: 'search_articles' }, configuration: { exposed_as: 'query' } } });
    expect(tracked.status, tracked.text).toBe(200);
    const found = await engine.graphql({ query: '{ search_articles(args: {q: "engines"}) { id } }' });
    expect(found.json).toEqual({ data: { search_articles: [{ id: 10 }] } });
    expect((await metadata({ type: 'pg_untrack_function', args: { source: 'default', function: { schema: 'public', name: 'search_articles' } } })).status).toBe(200);
  });

  it('adds computed fields and event triggers by their pg_ names', async () => {
    const added = await metadata({ type: 'pg_add_computed_field', args: { source: 'default', table: 'author', name: 'name_length', definition: { function: 'name_length' } } });
    expect(added.status, added.text).toBe(200);
    const read = await engine.graphql({ query: '{ writer(where: {id: {_eq: 1}}) { name_length } }' });
    expect(read.json).toEqual({ data: { writer: [{ name_length: 3 }] } });
    expect((await metadata({ type: 'pg_drop_computed_field', args: { source: 'default', table: 'author', name: 'name_length' } })).json).toEqual({ message: 'success' });

    const created = await metadata({ type: 'pg_create_event_trigger', args: { source: 'default', name: 'author_added', table: { schema: 'public', name: 'author' }, insert: { columns: '*' }, webhook: 'http://127.0.0.1:9/hook' } });
    expect(created.status, created.text).toBe(200);
    expect((await metadata({ type: 'pg_delete_event_trigger', args: { source: 'default', name: 'author_added' } })).json).toEqual({ message: 'success' });
  });

  it('refuses a source other than the one database with not-supported', async () => {
    const result = await metadata({ type: 'pg_track_table', args: { source: 'analytics', table: 'tag' } });
    expectError(result, 400, { path: '$.args.source', code: 'not-supported', error: /"analytics"/ });
  });

  it('refuses another database engine\'s prefix with not-supported', async () => {
    expectError(await metadata({ type: 'mssql_track_table', args: { table: 'tag' } }), 400, { path: '$.type', code: 'not-supported', error: /"mssql"/ });
    expectError(await metadata({ type: 'mysqlx', args: {} }), 400, { path: '$', code: 'parse-failed' });
  });

  it('refuses a command Hasura has and the engine does not with not-supported', async () => {
    expectError(await metadata({ type: 'pg_add_source', args: { name: 'other' } }), 400, { path: '$.type', code: 'not-supported', error: /"pg_add_source"/ });
    expectError(await metadata({ type: 'create_cron_trigger', args: { name: 'nightly' } }), 400, { path: '$.type', code: 'not-supported', error: /"create_cron_trigger"/ });
  });

  it('answers an unknown pg_ command as Hasura does', async () => {
    expectError(await metadata({ type: 'pg_run_sql', args: { sql: 'select 1' } }), 400, { path: '$', code: 'parse-failed', error: 'unknown metadata command "run_sql" for backend postgres' });
  });

  it('refuses the data operations as Hasura does (they are not metadata commands)', async () => {
    expectError(await metadata({ type: 'run_sql', args: { sql: 'select 1' } }), 400, {
      path: '$',
      code: 'parse-failed',
      error: 'unknown metadata command "run_sql"; "run" was not recognized as a valid backend name',
    });
    for (const type of ['select', 'insert', 'update', 'delete', 'count']) {
      expectError(await metadata({ type, args: { table: 'author' } }), 400, {
        path: '$',
        code: 'parse-failed',
        error: `unknown metadata command "${type}"; "${type}" was not recognized as a valid backend name`,
      });
    }
  });

  it('refuses a data operation inside a bulk at its path, and applies nothing of the bulk', async () => {
    const result = await metadata({ type: 'bulk', args: [{ type: 'pg_track_table', args: { table: 'tag' } }, { type: 'run_sql', args: { sql: 'select 1' } }] });
    expectError(result, 400, { path: '$.args[1]', code: 'parse-failed' });
    const exported = await metadata({ type: 'export_metadata', args: {} });
    expect(exported.json.sources[0].tables.map((entry: { table: { name: string } }) => entry.table.name)).not.toContain('tag');
  });

  it('answers an unknown type as Hasura does', async () => {
    expectError(await metadata({ type: 'track_everything', args: {} }), 400, {
      path: '$',
      code: 'parse-failed',
      error: 'unknown metadata command "track_everything"; "track" was not recognized as a valid backend name',
    });
  });

  it('takes version 1 or 2 only, version 2 for replace_metadata and export_metadata alone', async () => {
    expectError(await metadata({ type: 'export_metadata', version: 3, args: {} }), 400, { path: '$.version', code: 'parse-failed', error: 'expected 1 or 2, encountered 3' });
    expectError(await metadata({ type: 'pg_track_table', version: 2, args: { table: 'tag' } }), 400, { path: '$.type', code: 'parse-failed', error: /replace_metadata/ });
  });

  it('answers export_metadata version 2 with the resource_version, and refuses a change based on another one with 409', async () => {
    const exported = await metadata({ type: 'export_metadata', version: 2, args: {} });
    expect(exported.status).toBe(200);
    const version: number = exported.json.resource_version;
    expect(Number.isInteger(version)).toBe(true);
    expect(exported.json.metadata.version).toBe(3);

    const based = await metadata({ type: 'pg_track_table', resource_version: version, args: { table: 'tag' } });
    expect(based.status, based.text).toBe(200);

    const stale = await metadata({ type: 'pg_untrack_table', resource_version: version, args: { table: 'tag' } });
    expect(stale.status).toBe(409);
    expect(stale.json).toEqual({ path: '$', error: `metadata resource version referenced (${version}) did not match current version`, code: 'conflict' });
    const after = await metadata({ type: 'export_metadata', args: {} });
    expect(after.json.sources[0].tables.map((entry: { table: { name: string } }) => entry.table.name)).toContain('tag');

    const read = await metadata({ type: 'export_metadata', resource_version: version, args: {} });
    expect(read.status).toBe(200);
  });

  it('refuses a body that is not a request object', async () => {
    for (const body of [[{ type: 'export_metadata', args: {} }], 'export_metadata', 7]) {
      const result = await metadata(body === 'export_metadata' ? JSON.stringify(body) : body);
      expectError(result, 400, { path: '$', code: 'parse-failed' });
    }
    expectError(await metadata('{"type": '), 400, { path: '$', code: 'invalid-json' });
  });

  it('is admin only', async () => {
    expectError(await metadata({ type: 'export_metadata', args: {} }, { ...admin, 'x-service-role': 'reader' }), 400, { path: '$.args', code: 'access-denied' });
    expect((await metadata({ type: 'export_metadata', args: {} }, {})).status).toBe(401);
  });
});

describe('POST /v2/query: the data operations only', () => {
  it('runs run_sql, with or without source', async () => {
    const plain = await queryV2({ type: 'run_sql', args: { sql: 'select count(*) from author' } });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.json).toEqual({ result_type: 'TuplesOk', result: [['count'], ['2']] });
    const sourced = await queryV2({ type: 'run_sql', args: { source: 'default', sql: 'select 1 as one' } });
    expect(sourced.json.result).toEqual([['one'], ['1']]);
  });

  it('runs a bulk of data operations, and ignores version as Hasura does', async () => {
    const result = await queryV2({ type: 'bulk', version: 2, args: [{ type: 'run_sql', args: { sql: 'select 1 as a' } }, { type: 'run_sql', version: 5, args: { sql: 'select 2 as b' } }] });
    expect(result.status, result.text).toBe(200);
    expect(result.json.map((item: { result: unknown }) => item.result)).toEqual([[['a'], ['1']], [['b'], ['2']]]);
  });

  it('refuses a metadata operation as Hasura refuses a type /v2/query does not have', async () => {
    for (const type of ['track_table', 'pg_track_table', 'export_metadata']) {
      expectError(await queryV2({ type, args: { table: 'tag' } }), 400, { path: '$', code: 'parse-failed', error: new RegExp(`one of \\[select, insert, update, delete, count, run_sql, bulk\\], but got ${type}\\.$`) });
    }
  });

  it('refuses a metadata operation inside a bulk at its path', async () => {
    const result = await queryV2({ type: 'bulk', args: [{ type: 'run_sql', args: { sql: 'create table made_by_bulk (id int)' } }, { type: 'track_table', args: { table: 'made_by_bulk' } }] });
    expectError(result, 400, { path: '$.args[1]', code: 'parse-failed' });
    const exists = await db.sql(`select to_regclass('public.made_by_bulk') is not null as present`);
    expect(exists.rows[0].present).toBe(false);
  });

  it('serves the v1 data API: an admin\'s reads and writes, and a role only within its permission', async () => {
    await post('/v1/query', { type: 'bulk', args: [{ type: 'track_table', args: { table: 'badge' } }, { type: 'create_select_permission', args: { table: 'badge', role: 'reader', permission: { columns: ['id'], filter: { id: { _lt: 3 } } } } }] });
    expect((await queryV2({ type: 'insert', args: { table: 'badge', objects: [{ id: 1 }, { id: 2 }, { id: 5 }] } })).json).toEqual({ affected_rows: 3 });
    expect((await queryV2({ type: 'count', args: { table: 'badge' } })).json).toEqual({ count: 3 });
    const reader = { ...admin, 'x-service-role': 'reader' };
    expect((await queryV2({ type: 'select', args: { table: 'badge', columns: ['id'], order_by: '+id' } }, reader)).json).toEqual([{ id: 1 }, { id: 2 }]);
    expectError(await queryV2({ type: 'delete', args: { table: 'badge', where: {} } }, reader), 400, { path: '$.args', code: 'permission-denied' });
  });

  it('refuses a source other than the one database, and other engines\' run_sql', async () => {
    expectError(await queryV2({ type: 'run_sql', args: { source: 'warehouse', sql: 'select 1' } }), 400, { path: '$.args.source', code: 'not-supported' });
    expectError(await queryV2({ type: 'citus_run_sql', args: { sql: 'select 1' } }), 400, { path: '$.type', code: 'not-supported' });
  });

  it('refuses a body that is not a request object, and non-admin callers', async () => {
    expectError(await queryV2([{ type: 'run_sql', args: { sql: 'select 1' } }]), 400, { path: '$', code: 'parse-failed' });
    expectError(await queryV2({ type: 'run_sql', args: { sql: 'select 1' } }, { ...admin, 'x-service-role': 'reader' }), 400, { path: '$.args', code: 'access-denied' });
  });
});

describe('POST /v1/query: unchanged, every operation by its own name', () => {
  it('serves metadata and data operations alike, and knows no pg_ names', async () => {
    expect((await engine.query({ type: 'run_sql', args: { sql: 'select 1' } })).status).toBe(200);
    expect((await engine.query({ type: 'export_metadata', args: {} })).status).toBe(200);
    expectError(await engine.query({ type: 'pg_track_table', args: { table: 'tag' } }), 400, { path: '$.type', code: 'parse-failed', error: 'unknown operation type: "pg_track_table"' });
  });
});

describe('GraphQL routes and health', () => {
  it('serves POST /v1alpha1/graphql as /v1/graphql', async () => {
    const query = { query: '{ writer(where: {id: {_eq: 1}}) { name } }' };
    const legacy = await post('/v1alpha1/graphql', query);
    expect(legacy.status).toBe(200);
    expect(legacy.json).toEqual((await engine.graphql(query)).json);
  });

  it('serves subscriptions over WebSocket on /v1alpha1/graphql too', async () => {
    const client = createClient({ url: `${engine.url.replace(/^http/, 'ws')}/v1alpha1/graphql`, webSocketImpl: WebSocket, connectionParams: { headers: admin }, retryAttempts: 0, lazy: true });
    try {
      const first = await new Promise((resolve, reject) => {
        const stop = client.subscribe({ query: 'subscription { writer(order_by: {id: asc}) { name } }' }, {
          next: (value) => {
            stop();
            resolve(value);
          },
          error: reject,
          complete: () => undefined,
        });
      });
      expect(first).toEqual({ data: { writer: [{ name: 'Ada' }, { name: 'Brian' }] } });
    } finally {
      await client.dispose();
    }
  });

  it('answers GET /v1/graphql as Hasura: HTTP 200, not-supported PersistedQueryNotSupported', async () => {
    const result = await engine.get('/v1/graphql?query=%7B__typename%7D');
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ errors: [{ message: 'PersistedQueryNotSupported', extensions: { path: '$', code: 'not-supported' } }] });
  });

  it('authenticates a GET on /v1/graphql first, as Hasura', async () => {
    const result = await engine.get('/v1/graphql', { 'x-service-admin-secret': 'wrong' });
    expect(result.status).toBe(200);
    expect(result.json.errors[0].extensions.code).toBe('access-denied');
  });

  it('serves health under /healthz and the neutral /service/healthz', async () => {
    for (const path of ['/healthz', '/service/healthz']) {
      const result = await engine.get(path, {});
      expect(result.status).toBe(200);
      expect(result.text).toBe('OK');
    }
  });
});

describe('--enabled-apis, as Hasura groups the routes', () => {
  const started: { engine: TestEngine; db: TestDatabase }[] = [];
  const startWith = async (apis: string): Promise<TestEngine> => {
    const database = await createTestDatabase();
    const running = await startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_ENABLED_APIS: apis } });
    started.push({ engine: running, db: database });
    return running;
  };
  afterAll(async () => {
    for (const { engine: running, db: database } of started) {
      await running.stop();
      await database.drop();
    }
  });
  const notFound = { path: '$', error: 'resource does not exist', code: 'not-found' };

  it('without metadata: /v1/metadata, /v2/query and /v1/query are not there; GraphQL and health are', async () => {
    const graphqlOnly = await startWith('graphql');
    for (const path of ['/v1/metadata', '/v2/query', '/v1/query']) {
      const result = await http('POST', `${graphqlOnly.url}${path}`, { type: 'run_sql', args: { sql: 'select 1' } });
      expect(result.status).toBe(404);
      expect(result.json).toEqual(notFound);
    }
    expect((await http('POST', `${graphqlOnly.url}/v1alpha1/graphql`, { query: '{ __typename }' })).json).toEqual({ data: { __typename: 'query_root' } });
    expect((await graphqlOnly.get('/healthz')).status).toBe(200);
  });

  it('without graphql: /v1alpha1/graphql and /v1/graphql are not there; the metadata API is', async () => {
    const metadataOnly = await startWith('metadata');
    for (const [method, path] of [['POST', '/v1alpha1/graphql'], ['POST', '/v1/graphql'], ['GET', '/v1/graphql']] as const) {
      const result = await http(method, `${metadataOnly.url}${path}`, method === 'POST' ? { query: '{ __typename }' } : undefined);
      expect(result.status).toBe(404);
      expect(result.json).toEqual(notFound);
    }
    expect((await http('POST', `${metadataOnly.url}/v1/metadata`, { type: 'export_metadata', args: {} })).status).toBe(200);
    expect((await http('POST', `${metadataOnly.url}/v2/query`, { type: 'run_sql', args: { sql: 'select 1' } })).status).toBe(200);
  });
});

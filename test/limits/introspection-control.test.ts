import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { modernClient } from '../subscriptions/clients.js';

/**
 * set_graphql_schema_introspection_options: the roles named may not run `__schema` or
 * `__type` (Hasura's "Introspection disabled", access-denied); everything else they may
 * do stays as it was, and admin always may. Over HTTP and WebSocket, on a real engine.
 */
let db: TestDatabase;
let engine: TestEngine;

const as = (role: string) => ({ 'x-service-role': role });
const DISABLED = { errors: [{ extensions: { path: '$', code: 'access-denied' }, message: 'Introspection disabled' }] };
const SCHEMA = 'query { __schema { queryType { name } } }';
const TYPE = 'query { __type(name: "author") { name } }';

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql("create table author (id serial primary key, name text not null); insert into author (name) values ('Ann')");
  engine = await startTestEngine({ databaseUrl: db.url });
  for (const role of ['user', 'guest']) {
    const permission = { type: 'create_select_permission', args: { table: 'author', role, permission: { columns: ['id', 'name'], filter: {} } } };
    if (role === 'user') expect((await engine.query({ type: 'track_table', args: { table: 'author' } })).status).toBe(200);
    expect((await engine.query(permission)).status).toBe(200);
  }
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

beforeEach(async () => {
  expect((await setDisabled(['user'])).json).toEqual({ message: 'success' });
});

const setDisabled = (roles: unknown) => engine.query({ type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: roles } });
const exported = async () => (await engine.query({ type: 'export_metadata', args: {} })).json;

describe('set_graphql_schema_introspection_options', () => {
  it('is exported as graphql_schema_introspection, sorted, and left out once no role is named', async () => {
    await setDisabled(['user', 'anonymous', 'user']);
    expect((await exported()).graphql_schema_introspection).toEqual({ disabled_for_roles: ['anonymous', 'user'] });
    await setDisabled([]);
    expect(await exported()).not.toHaveProperty('graphql_schema_introspection');
  });

  it('refuses args without the list, or with something else than role names', async () => {
    expect((await engine.query({ type: 'set_graphql_schema_introspection_options', args: {} })).json).toEqual({ path: '$.args', error: 'key "disabled_for_roles" not found', code: 'parse-failed' });
    const notAList = await setDisabled('user');
    expect(notAList.status).toBe(400);
    expect(notAList.json).toEqual({ path: '$.args.disabled_for_roles', error: 'expected Array, but encountered String', code: 'parse-failed' });
    expect((await setDisabled([''])).json.code).toBe('parse-failed');
    expect((await exported()).graphql_schema_introspection).toEqual({ disabled_for_roles: ['user'] });
  });

  it('is carried by replace_metadata and forgotten by clear_metadata', async () => {
    const before = await exported();
    expect((await engine.query({ type: 'replace_metadata', args: { ...before, graphql_schema_introspection: { disabled_for_roles: ['guest'] } } })).json).toEqual({ message: 'success' });
    expect((await exported()).graphql_schema_introspection).toEqual({ disabled_for_roles: ['guest'] });
    expect((await engine.graphql({ query: SCHEMA }, as('guest'))).json).toEqual(DISABLED);
    expect((await engine.query({ type: 'clear_metadata', args: {} })).json).toEqual({ message: 'success' });
    expect(await exported()).not.toHaveProperty('graphql_schema_introspection');
    expect((await engine.query({ type: 'replace_metadata', args: before })).json).toEqual({ message: 'success' });
    expect(await exported()).toEqual(before);
  });
});

describe('a role with introspection disabled', () => {
  it('is refused __schema and __type with Hasura\'s error', async () => {
    for (const query of [SCHEMA, TYPE]) {
      const refused = await engine.graphql({ query }, as('user'));
      expect(refused.status).toBe(200);
      expect(refused.json).toEqual(DISABLED);
    }
  });

  it('is refused them beside other fields, under an alias and through fragments', async () => {
    const disguised = [
      'query { author { name } types: __schema { types { name } } }',
      'query { ...Root } fragment Root on query_root { __type(name: "author") { name } }',
      'query { ... on query_root { __schema { queryType { name } } } }',
    ];
    for (const query of disguised) expect((await engine.graphql({ query }, as('user'))).json).toEqual(DISABLED);
  });

  it('still queries its data and __typename', async () => {
    expect((await engine.graphql({ query: 'query { __typename author { __typename name } }' }, as('user'))).json).toEqual({
      data: { __typename: 'query_root', author: [{ __typename: 'author', name: 'Ann' }] },
    });
  });

  it('is refused over WebSocket too', async () => {
    const client = modernClient(engine.url, as('user'));
    try {
      const watch = client.subscribe(SCHEMA);
      await watch.waitFor(1);
      expect(watch.error).toEqual(DISABLED.errors);
    } finally {
      await client.close();
    }
  });
});

describe('roles that may introspect', () => {
  it('include every other role and admin, even when admin is named', async () => {
    await setDisabled(['user', 'admin']);
    expect((await engine.graphql({ query: SCHEMA }, as('guest'))).json).toEqual({ data: { __schema: { queryType: { name: 'query_root' } } } });
    expect((await engine.graphql({ query: TYPE })).json).toEqual({ data: { __type: { name: 'author' } } });
  });

  it('include the role again once it is no longer named', async () => {
    await setDisabled([]);
    expect((await engine.graphql({ query: TYPE }, as('user'))).json).toEqual({ data: { __type: { name: 'author' } } });
  });
});

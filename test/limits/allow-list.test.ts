import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { http, startTestEngine, type TestEngine } from '../harness/engine.js';
import { legacyClient, modernClient } from '../subscriptions/clients.js';

/**
 * Query collections and the allowlist (Hasura's QueryCollection.hs, Allowlist.hs and
 * checkQueryInAllowlist), end to end over HTTP and WebSocket, on an engine run with
 * SERVICE_GRAPHQL_ENABLE_ALLOWLIST. Without an admin secret every request is admin, or
 * the role its X-Service-Role names.
 */
let db: TestDatabase;
let engine: TestEngine;

const as = (role: string) => ({ 'x-service-role': role });
const NOT_ALLOWED = { errors: [{ extensions: { path: '$', code: 'validation-failed' }, message: 'query is not allowed' }] };

const AUTHORS = 'query { author(order_by: {id: asc}) { id name } }';
const AUTHOR_IDS = 'query AuthorIds { author(order_by: {id: asc}) { id } }';
const ADD_AUTHOR = 'mutation AddAuthor($name: String!) { insert_author_one(object: {name: $name}) { name } }';
const WATCH_AUTHORS = 'subscription { author(order_by: {id: asc}) { id } }';
const AUTHOR_BY_ID = 'query AuthorById($id: Int!) { author(where: {id: {_eq: $id}}, limit: 1) { name } }';

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql("create table author (id serial primary key, name text not null); insert into author (name) values ('Ann'), ('Bob')");
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ENABLE_ALLOWLIST: 'true' } });
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

/** The schema every case starts from: one table that two roles read and one role writes. */
beforeEach(async () => {
  await ok({ type: 'clear_metadata', args: {} });
  await ok({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'editor', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'create_insert_permission', args: { table: 'author', role: 'editor', permission: { check: {}, columns: ['name'] } } },
    ],
  });
});

async function ok(body: unknown) {
  const result = await engine.query(body);
  expect(result.json, JSON.stringify(result.json)).toEqual(Array.isArray((body as { args?: unknown }).args) ? expect.any(Array) : { message: 'success' });
  expect(result.status).toBe(200);
}

async function refused(body: unknown, expected: { path: string; error: string; code: string }) {
  const result = await engine.query(body);
  expect(result.json).toEqual(expected);
  expect(result.status).toBe(400);
}

async function exported() {
  return (await engine.query({ type: 'export_metadata', args: {} })).json;
}

const collection = (name: string, queries: Record<string, string>) => ({
  type: 'create_query_collection',
  args: { name, definition: { queries: Object.entries(queries).map(([queryName, query]) => ({ name: queryName, query })) } },
});

describe('query collections', () => {
  it('are created, grown and shrunk, and exported sorted by name with their queries in order', async () => {
    await ok({ ...collection('zeta', { ids: AUTHOR_IDS }), args: { ...collection('zeta', { ids: AUTHOR_IDS }).args, comment: 'last' } });
    await ok(collection('alpha', { authors: AUTHORS }));
    await ok({ type: 'add_query_to_collection', args: { collection_name: 'alpha', query_name: 'add', query: ADD_AUTHOR } });
    await ok({ type: 'add_query_to_collection', args: { collection_name: 'alpha', query_name: 'ids', query: AUTHOR_IDS } });
    await ok({ type: 'drop_query_from_collection', args: { collection_name: 'alpha', query_name: 'add' } });
    expect((await exported()).query_collections).toEqual([
      { name: 'alpha', definition: { queries: [{ name: 'authors', query: AUTHORS }, { name: 'ids', query: AUTHOR_IDS }] } },
      { name: 'zeta', definition: { queries: [{ name: 'ids', query: AUTHOR_IDS }] }, comment: 'last' },
    ]);
    await ok({ type: 'drop_query_collection', args: { collection: 'zeta', cascade: false } });
    expect((await exported()).query_collections.map((entry: { name: string }) => entry.name)).toEqual(['alpha']);
  });

  it('refuses a name taken, queries named twice and a query that is not GraphQL, with Hasura\'s messages', async () => {
    await ok(collection('c', { authors: AUTHORS }));
    await refused(collection('c', { other: AUTHOR_IDS }), { path: '$.args.name', error: 'query collection with name "c" already exists', code: 'already-exists' });
    await refused(
      { type: 'create_query_collection', args: { name: 'd', definition: { queries: [{ name: 'q', query: AUTHORS }, { name: 'q', query: AUTHOR_IDS }] } } },
      { path: '$.args.definition.queries', error: 'found duplicate query names "q"', code: 'not-supported' },
    );
    await refused(collection('d', { good: AUTHORS, bad: 'query { author { id }' }), { path: '$.args.definition.queries[1].query', error: 'parsing the graphql query failed', code: 'parse-failed' });
    await refused(collection('d', { schema: 'type Query { a: Int }' }), { path: '$.args.definition.queries[0].query', error: 'parsing the graphql query failed', code: 'parse-failed' });
    await refused({ type: 'create_query_collection', args: { name: 'd', definition: {} } }, { path: '$.args.definition', error: 'key "queries" not found', code: 'parse-failed' });
    expect((await exported()).query_collections.map((entry: { name: string }) => entry.name)).toEqual(['c']);
  });

  it('refuses adding to or dropping from what does not exist', async () => {
    await ok(collection('c', { authors: AUTHORS }));
    const add = (args: Record<string, unknown>) => ({ type: 'add_query_to_collection', args: { collection_name: 'c', query_name: 'ids', query: AUTHOR_IDS, ...args } });
    await refused(add({ collection_name: 'nope' }), { path: '$.args', error: 'query collection with name "nope" does not exist', code: 'not-exists' });
    await refused(add({ query_name: 'authors' }), { path: '$.args', error: 'query with name "authors" already exists in collection "c"', code: 'already-exists' });
    await refused(add({ query: '{ author { id ' }), { path: '$.args.query', error: 'parsing the graphql query failed', code: 'parse-failed' });
    await refused({ type: 'drop_query_from_collection', args: { collection_name: 'c', query_name: 'ids' } }, { path: '$.args', error: 'query with name "ids" not found in collection "c"', code: 'not-found' });
    await refused({ type: 'drop_query_from_collection', args: { collection_name: 'nope', query_name: 'ids' } }, { path: '$.args', error: 'query collection with name "nope" does not exist', code: 'not-exists' });
    await refused({ type: 'drop_query_collection', args: { collection: 'nope', cascade: true } }, { path: '$.args.collection', error: 'query collection with name "nope" does not exist', code: 'not-exists' });
    await refused({ type: 'drop_query_collection', args: { collection: 'c' } }, { path: '$.args', error: 'key "cascade" not found', code: 'parse-failed' });
  });

  it('drops an allowlisted collection only with cascade, which drops its allowlist entry too', async () => {
    await ok(collection('c', { authors: AUTHORS }));
    await ok({ type: 'add_collection_to_allowlist', args: { collection: 'c' } });
    await refused(
      { type: 'drop_query_collection', args: { collection: 'c', cascade: false } },
      {
        path: '$.args.collection',
        error: 'query collection with name "c" is present in the allowlist; cannot proceed to drop. please use cascade to confirm you wish to drop it from the allowlist as well',
        code: 'dependency-error',
      },
    );
    await ok({ type: 'drop_query_collection', args: { collection: 'c', cascade: true } });
    const metadata = await exported();
    expect(metadata.query_collections).toBeUndefined();
    expect(metadata.allowlist).toBeUndefined();
  });
});

describe('the allowlist', () => {
  beforeEach(async () => {
    await ok(collection('one', { authors: AUTHORS }));
    await ok(collection('two', { ids: AUTHOR_IDS }));
  });

  it('adds (global by default), re-scopes and drops entries, exported sorted with their scope', async () => {
    await ok({ type: 'add_collection_to_allowlist', args: { collection: 'two', scope: { global: false, roles: ['user', 'editor'] } } });
    await ok({ type: 'add_collection_to_allowlist', args: { collection: 'one' } });
    expect((await exported()).allowlist).toEqual([
      { collection: 'one', scope: { global: true } },
      { collection: 'two', scope: { global: false, roles: ['user', 'editor'] } },
    ]);
    await ok({ type: 'update_scope_of_collection_in_allowlist', args: { collection: 'one', scope: { global: false, roles: ['editor'] } } });
    await ok({ type: 'update_scope_of_collection_in_allowlist', args: { collection: 'two', scope: { global: true } } });
    expect((await exported()).allowlist).toEqual([
      { collection: 'one', scope: { global: false, roles: ['editor'] } },
      { collection: 'two', scope: { global: true } },
    ]);
    await ok({ type: 'drop_collection_from_allowlist', args: { collection: 'one' } });
    await ok({ type: 'drop_collection_from_allowlist', args: { collection: 'two' } });
    expect((await exported()).allowlist).toBeUndefined();
  });

  it('answers a second add with a message and keeps the first scope', async () => {
    await ok({ type: 'add_collection_to_allowlist', args: { collection: 'one', scope: { global: true } } });
    const again = await engine.query({ type: 'add_collection_to_allowlist', args: { collection: 'one', scope: { global: false, roles: ['user'] } } });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ message: 'collection "one" already exists in the allowlist, scope ignored; to change scope, use update_scope_of_collection_in_allowlist' });
    expect((await exported()).allowlist).toEqual([{ collection: 'one', scope: { global: true } }]);
  });

  it('refuses unknown collections and entries, and malformed scopes, as Hasura does', async () => {
    const add = (args: unknown) => ({ type: 'add_collection_to_allowlist', args });
    await refused(add({ collection: 'nope' }), { path: '$.args.collection', error: 'query collection with name "nope" does not exist', code: 'not-exists' });
    await refused(add({ scope: { global: true } }), { path: '$.args', error: 'key "collection" not found', code: 'parse-failed' });
    await refused(add({ collection: 'one', scope: { global: false } }), { path: '$.args.scope', error: 'key "roles" not found', code: 'parse-failed' });
    await refused(add({ collection: 'one', scope: { global: false, roles: [] } }), { path: '$.args.scope.roles', error: 'parsing NonEmpty failed, unexpected empty list', code: 'parse-failed' });
    await refused(add({ collection: 'one', scope: { global: true, roles: ['user'] } }), { path: '$.args.scope', error: 'roles are not allowed when global is true', code: 'parse-failed' });
    await refused(add({ collection: 'one', scope: { global: false, roles: ['user', 'user'] } }), { path: '$.args.scope', error: 'duplicate roles are not allowed', code: 'parse-failed' });
    await refused(add({ collection: 'one', scope: {} }), { path: '$.args.scope', error: 'key "global" not found', code: 'parse-failed' });

    const update = (args: unknown) => ({ type: 'update_scope_of_collection_in_allowlist', args });
    await refused(update({ collection: 'one' }), { path: '$.args', error: 'key "scope" not found', code: 'parse-failed' });
    await refused(update({ collection: 'one', scope: { global: true } }), { path: '$.args', error: 'collection "one" doesn\'t exist in the allowlist', code: 'not-found' });
    await refused(update({ collection: 'nope', scope: { global: true } }), { path: '$.args.collection', error: 'query collection with name "nope" does not exist', code: 'not-exists' });
    await refused({ type: 'drop_collection_from_allowlist', args: { collection: 'one' } }, { path: '$.args', error: 'collection "one" doesn\'t exist in the allowlist', code: 'not-found' });
    await refused({ type: 'drop_collection_from_allowlist', args: { collection: 'nope' } }, { path: '$.args.collection', error: 'query collection with name "nope" does not exist', code: 'not-exists' });
    expect((await exported()).allowlist).toBeUndefined();
  });
});

describe('replace_metadata with query collections and an allowlist', () => {
  it('round-trips through export, replace and clear', async () => {
    await ok(collection('one', { authors: AUTHORS, add: ADD_AUTHOR }));
    await ok({ type: 'add_collection_to_allowlist', args: { collection: 'one', scope: { global: false, roles: ['user'] } } });
    const before = await exported();
    await ok({ type: 'clear_metadata', args: {} });
    const cleared = await exported();
    expect(cleared.query_collections).toBeUndefined();
    expect(cleared.allowlist).toBeUndefined();
    await ok({ type: 'replace_metadata', args: before });
    expect(await exported()).toEqual(before);
    const v2 = await engine.query({ type: 'replace_metadata', version: 2, args: { metadata: before } });
    expect(v2.json).toEqual({ is_consistent: true });
    expect(await exported()).toEqual(before);
  });

  it('refuses unknown collections, names declared twice, bad queries and bad scopes, and keeps what was there', async () => {
    await ok(collection('one', { authors: AUTHORS }));
    const base = await exported();
    const replace = (extra: Record<string, unknown>) => ({ type: 'replace_metadata', args: { ...base, ...extra } });
    const queries = [{ name: 'authors', query: AUTHORS }];
    await refused(replace({ allowlist: [{ collection: 'missing' }] }), { path: '$.args.allowlist[0].collection', error: 'query collection with name "missing" does not exist', code: 'not-exists' });
    await refused(replace({ allowlist: [{ collection: 'one' }, { collection: 'one', scope: { global: true } }] }), {
      path: '$.args.allowlist',
      error: 'multiple declarations exist for the following allowlist entries: one',
      code: 'already-exists',
    });
    await refused(replace({ query_collections: [{ name: 'one', definition: { queries } }, { name: 'one', definition: { queries } }] }), {
      path: '$.args.query_collections',
      error: 'multiple declarations exist for the following query collections: one',
      code: 'already-exists',
    });
    await refused(replace({ query_collections: [{ name: 'one', definition: { queries: [{ name: 'bad', query: 'query {' }] } }] }), {
      path: '$.args.query_collections[0].definition.queries[0].query',
      error: 'parsing the graphql query failed',
      code: 'parse-failed',
    });
    await refused(replace({ allowlist: [{ collection: 'one', scope: { global: false, roles: [] } }] }), { path: '$.args.allowlist[0].scope.roles', error: 'parsing NonEmpty failed, unexpected empty list', code: 'parse-failed' });
    await refused(replace({ allowlist: [{ collection: 'one', scope: { global: 'yes' } }] }), { path: '$.args.allowlist[0].scope.global', error: 'expected Boolean, but encountered String', code: 'parse-failed' });
    const v2 = await engine.query({ type: 'replace_metadata', version: 2, args: { metadata: { ...base, allowlist: [{ collection: 'missing' }] } } });
    expect(v2.json).toEqual({ path: '$.args.metadata.allowlist[0].collection', error: 'query collection with name "missing" does not exist', code: 'not-exists' });
    expect(await exported()).toEqual(base);
  });

  it('takes version 2 metadata with collections and an allowlist entry without scope', async () => {
    const v2 = { version: 2, tables: [{ table: { schema: 'public', name: 'author' } }], query_collections: [{ name: 'one', definition: { queries: [{ name: 'authors', query: AUTHORS }] } }], allowlist: [{ collection: 'one' }] };
    await ok({ type: 'replace_metadata', args: v2 });
    const metadata = await exported();
    expect(metadata.query_collections).toEqual(v2.query_collections);
    expect(metadata.allowlist).toEqual([{ collection: 'one', scope: { global: true } }]);
  });
});

describe('with SERVICE_GRAPHQL_ENABLE_ALLOWLIST', () => {
  beforeEach(async () => {
    await ok(collection('everyone', { authors: AUTHORS, byId: AUTHOR_BY_ID }));
    await ok(collection('editors', { ids: AUTHOR_IDS, add: ADD_AUTHOR, watch: WATCH_AUTHORS }));
    await ok({ type: 'add_collection_to_allowlist', args: { collection: 'everyone' } });
    await ok({ type: 'add_collection_to_allowlist', args: { collection: 'editors', scope: { global: false, roles: ['editor'] } } });
  });

  it('says so in the config API', async () => {
    expect((await engine.get('/v1alpha1/config')).json.is_allow_list_enabled).toBe(true);
  });

  it('keeps the v1 data API to the admin: a role cannot read around the allowlist', async () => {
    for (const path of ['/v1/query', '/v2/query']) {
      const refused = await http('POST', `${engine.url}${path}`, { type: 'select', args: { table: 'author', columns: ['id', 'name'] } }, as('user'));
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: 'access-denied' });
    }
    expect((await engine.query({ type: 'select', args: { table: 'author', columns: ['id'] } })).status).toBe(200);
  });

  it('serves a listed query whatever its whitespace, commas, comments and argument order, and refuses one that is not', async () => {
    const reformatted = `# the authors\nquery {\n  author(order_by: {id: asc},) {\n    id, name # both\n  }\n}`;
    expect((await engine.graphql({ query: reformatted }, as('user'))).json).toEqual({ data: { author: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Bob' }] } });
    const reordered = 'query AuthorById($id: Int!) { author(limit: 1, where: {id: {_eq: $id}}) { name } }';
    expect((await engine.graphql({ query: reordered, variables: { id: 2 } }, as('user'))).json).toEqual({ data: { author: [{ name: 'Bob' }] } });
    const notListed = await engine.graphql({ query: 'query { author { name } }' }, as('user'));
    expect(notListed.status).toBe(200);
    expect(notListed.json).toEqual(NOT_ALLOWED);
    // A different field order is a different document, as in Hasura.
    expect((await engine.graphql({ query: 'query { author(order_by: {id: asc}) { name id } }' }, as('user'))).json).toEqual(NOT_ALLOWED);
  });

  it('ignores __typename outside inline fragments, as Hasura normalises', async () => {
    const withTypename = 'query { __typename author(order_by: {id: asc}) { __typename id name } }';
    expect((await engine.graphql({ query: withTypename }, as('user'))).json.data.author[0]).toEqual({ __typename: 'author', id: 1, name: 'Ann' });
    const inInlineFragment = 'query { author(order_by: {id: asc}) { ... on author { __typename } id name } }';
    expect((await engine.graphql({ query: inInlineFragment }, as('user'))).json).toEqual(NOT_ALLOWED);
  });

  it('admits a role-scoped collection to its roles only, mutations included', async () => {
    expect((await engine.graphql({ query: AUTHOR_IDS }, as('editor'))).json).toEqual({ data: { author: [{ id: 1 }, { id: 2 }] } });
    expect((await engine.graphql({ query: AUTHOR_IDS }, as('user'))).json).toEqual(NOT_ALLOWED);
    expect((await engine.graphql({ query: ADD_AUTHOR, variables: { name: 'Cy' } }, as('editor'))).json).toEqual({ data: { insert_author_one: { name: 'Cy' } } });
    expect((await engine.graphql({ query: 'mutation { insert_author_one(object: {name: "Dee"}) { name } }' }, as('editor'))).json).toEqual(NOT_ALLOWED);
    expect((await db.sql("select count(*)::int as n from author where name = 'Dee'")).rows[0].n).toBe(0);
    await db.sql("delete from author where name = 'Cy'");
  });

  it('lets admin run anything, and refuses text that is not GraphQL as such', async () => {
    expect((await engine.graphql({ query: 'query { author(where: {id: {_eq: 2}}) { name } }' })).json).toEqual({ data: { author: [{ name: 'Bob' }] } });
    expect((await engine.graphql({ query: 'query { author { name }' }, as('user'))).json.errors[0].extensions.code).toBe('validation-failed');
    expect((await engine.graphql({ query: 'query { author { name }' }, as('user'))).json.errors[0].message).toBe('not a valid graphql query');
  });

  it('judges each request of a batch on its own', async () => {
    const batch = await engine.graphql([{ query: AUTHORS }, { query: AUTHOR_IDS }], as('user'));
    expect(batch.json).toEqual([{ data: { author: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Bob' }] } }, NOT_ALLOWED]);
  });

  it('follows the metadata: a collection dropped from the allowlist admits nothing more', async () => {
    expect((await engine.graphql({ query: AUTHORS }, as('user'))).json.data).toBeDefined();
    await ok({ type: 'drop_collection_from_allowlist', args: { collection: 'everyone' } });
    expect((await engine.graphql({ query: AUTHORS }, as('user'))).json).toEqual(NOT_ALLOWED);
  });

  it('holds over WebSocket, for subscriptions and queries alike', async () => {
    const editor = modernClient(engine.url, as('editor'));
    const user = modernClient(engine.url, as('user'));
    try {
      expect((await editor.subscribe(WATCH_AUTHORS).waitFor(1))[0]).toEqual({ data: { author: [{ id: 1 }, { id: 2 }] } });
      const refusedWatch = user.subscribe(WATCH_AUTHORS);
      await refusedWatch.waitFor(1);
      expect(refusedWatch.error).toEqual(NOT_ALLOWED.errors);
      expect((await user.subscribe(AUTHORS).waitFor(1))[0]).toEqual({ data: { author: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Bob' }] } });
      const refusedQuery = user.subscribe(AUTHOR_IDS);
      await refusedQuery.waitFor(1);
      expect(refusedQuery.error).toEqual(NOT_ALLOWED.errors);
    } finally {
      await editor.close();
      await user.close();
    }
  });

  it("holds on Apollo's legacy protocol too", async () => {
    const user = legacyClient(engine.url, as('user'));
    try {
      expect(await user.connected).toBeNull();
      const refusedWatch = user.subscribe(WATCH_AUTHORS);
      await refusedWatch.waitFor(1);
      // subscriptions-transport-ws hands the client the payload of Hasura's `error` frame: one error.
      expect(refusedWatch.error).toEqual(NOT_ALLOWED.errors[0]);
      expect((await user.subscribe(AUTHORS).waitFor(1))[0]).toEqual({ data: { author: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Bob' }] } });
    } finally {
      user.close();
    }
  });
});

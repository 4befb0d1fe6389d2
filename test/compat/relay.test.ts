import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { http, startTestEngine, type TestEngine } from '../harness/engine.js';

/**
 * The Relay API at POST /v1beta1/relay, end to end over HTTP, against the cases of
 * Hasura's own suite (server/tests-py/queries/graphql_query/relay): global ids and
 * cursors byte for byte as Hasura encodes them, pages both ways, per-role permissions,
 * and Hasura's errors for bad input.
 */
const SECRET = 'relay-secret';
const admin = { 'x-service-admin-secret': SECRET };
const asUser = (id: number) => ({ ...admin, 'x-service-role': 'user', 'x-service-user-id': String(id) });
let db: TestDatabase;
let engine: TestEngine;

const relay = (query: string, headers: Record<string, string> = admin, variables?: Record<string, unknown>) =>
  http('POST', `${engine.url}/v1beta1/relay`, { query, variables }, headers);
const base64 = (text: string) => Buffer.from(text).toString('base64');
/** A global id as Hasura v2 writes it: Postgres' json_build_array text, base64. */
const nodeId = (table: string, ...key: number[]) => base64(`[1, "public", "${table}", ${key.join(', ')}]`);
/** A cursor as Hasura writes it: Postgres' json_build_object text, base64. */
const idCursor = (id: number) => base64(`{"id" : ${id}}`);
const failure = (message: string, path: string, code = 'validation-failed') => ({ errors: [{ message, extensions: { path, code } }] });

beforeAll(async () => {
  db = await createTestDatabase();
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET } });
  const setup = await engine.query({
    type: 'bulk',
    args: [
      {
        type: 'run_sql',
        args: {
          sql: `
            create table author (id integer primary key, name text not null);
            create table article (id integer primary key, author_id integer not null references author(id), title text not null,
                                  content text not null, is_published boolean not null);
            create table audit (at integer not null, what text not null);
            insert into author values (1, 'Author 1'), (2, 'Author 2'), (3, 'Author 3'), (4, 'Author 4');
            insert into article values
              (1, 1, 'Article 1', 'Sample article content 1', true), (2, 1, 'Article 2', 'Sample article content 2', false),
              (3, 1, 'Article 3', 'Sample article content 3', true), (4, 2, 'Article 4', 'Sample article content 4', true),
              (5, 2, 'Article 5', 'Sample article content 5', false), (6, 3, 'Article 6', 'Sample article content 6', true);
            insert into audit values (1, 'created');
            create table ledger (id bigint primary key, label text not null);
            insert into ledger values (9007199254740992, 'below'), (9007199254740993, 'big'), (9007199254740994, 'above');
            alter table article add column rating integer;
            update article set rating = (array[3, null, 5, null, 3, 1])[id];
            create function search_articles(search text) returns setof article as $$
              select * from article where title ilike ('%' || search || '%') $$ language sql stable;
          `,
        },
      },
      { type: 'track_table', args: { name: 'author' } },
      { type: 'track_table', args: { name: 'article' } },
      { type: 'track_table', args: { name: 'audit' } },
      { type: 'track_table', args: { name: 'ledger' } },
      { type: 'track_function', args: { name: 'search_articles' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      // `user` reads authors' names but not their ids, so author is not a Node for it.
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['name'], filter: {} } } },
      {
        type: 'create_select_permission',
        args: {
          table: 'article',
          role: 'user',
          permission: { columns: ['id', 'title', 'author_id'], filter: { _or: [{ is_published: { _eq: true } }, { author_id: { _eq: 'X-Service-User-Id' } }] }, limit: 3 },
        },
      },
    ],
  });
  expect(setup.status).toBe(200);
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

describe('node(id)', () => {
  it('resolves a global id to its row, with Hasura\'s encoding of the id', async () => {
    const result = await relay(`query ($id: ID!) {
      author: node(id: $id) { __typename id ... on author { name } ... on article { title } }
      article: node(id: "${nodeId('article', 3)}") { ... on article { title author { id name } } }
    }`, admin, { id: nodeId('author', 2) });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({
      data: {
        author: { __typename: 'author', id: 'WzEsICJwdWJsaWMiLCAiYXV0aG9yIiwgMl0=', name: 'Author 2' },
        article: { title: 'Article 3', author: { id: nodeId('author', 1), name: 'Author 1' } },
      },
    });
  });

  it('expands fragments on the Node interface, as the Relay compiler writes them', async () => {
    const result = await relay(`query ($id: ID!) { node(id: $id) { __typename ...refetchable } }
      fragment refetchable on Node { id ... on author { name } }`, admin, { id: nodeId('author', 3) });
    expect(result.json).toEqual({ data: { node: { __typename: 'author', id: nodeId('author', 3), name: 'Author 3' } } });
  });

  it('keeps every digit of a bigint key: its id names its own row, its cursor its own place', async () => {
    const id = base64('[1, "public", "ledger", 9007199254740993]');
    expect((await relay(`{ node(id: "${id}") { ... on ledger { label } } }`)).json).toEqual({ data: { node: { label: 'big' } } });
    const cursor = base64('{"id" : 9007199254740993}');
    const after = await relay(`{ ledger_connection(first: 5, after: "${cursor}", order_by: {id: asc}) { edges { node { label } } } }`);
    expect(after.json).toEqual({ data: { ledger_connection: { edges: [{ node: { label: 'above' } }] } } });
    const before = await relay(`{ ledger_connection(last: 5, before: "${cursor}", order_by: {id: asc}) { edges { node { label } } } }`);
    expect(before.json).toEqual({ data: { ledger_connection: { edges: [{ node: { label: 'below' } }] } } });
  });

  it('answers null for an id whose row does not exist', async () => {
    const result = await relay(`{ node(id: "${nodeId('author', 99)}") { id } }`);
    expect(result.json).toEqual({ data: { node: null } });
  });
});

describe('<t>_connection', () => {
  const page = `pageInfo { startCursor endCursor hasPreviousPage hasNextPage } edges { cursor node { id title } }`;
  const edge = (id: number) => ({ cursor: idCursor(id), node: { id: nodeId('article', id), title: `Article ${id}` } });

  it('gives the first page and its pageInfo as Hasura\'s forward/page_1 case', async () => {
    const result = await relay(`{ article_connection(first: 3) { ${page} } }`);
    expect(result.json).toEqual({
      data: { article_connection: { pageInfo: { startCursor: 'eyJpZCIgOiAxfQ==', endCursor: 'eyJpZCIgOiAzfQ==', hasPreviousPage: false, hasNextPage: true }, edges: [edge(1), edge(2), edge(3)] } },
    });
  });

  it('goes on after the end cursor to the last page', async () => {
    const result = await relay(`query ($after: String) { article_connection(first: 3, after: $after) { ${page} } }`, admin, { after: idCursor(3) });
    expect(result.json.data.article_connection).toEqual({
      pageInfo: { startCursor: idCursor(4), endCursor: idCursor(6), hasPreviousPage: true, hasNextPage: false },
      edges: [edge(4), edge(5), edge(6)],
    });
  });

  it('pages backwards with last and before, edges still in order', async () => {
    const last = await relay(`{ article_connection(last: 2) { ${page} } }`);
    expect(last.json.data.article_connection).toEqual({
      pageInfo: { startCursor: idCursor(5), endCursor: idCursor(6), hasPreviousPage: true, hasNextPage: false },
      edges: [edge(5), edge(6)],
    });
    const before = await relay(`{ article_connection(last: 4, before: "${idCursor(5)}") { ${page} } }`);
    expect(before.json.data.article_connection).toEqual({
      pageInfo: { startCursor: idCursor(1), endCursor: idCursor(4), hasPreviousPage: false, hasNextPage: true },
      edges: [edge(1), edge(2), edge(3), edge(4)],
    });
  });

  it('answers an empty page past the end with null cursors', async () => {
    const result = await relay(`{ article_connection(first: 2, after: "${idCursor(6)}") { ${page} } }`);
    expect(result.json.data.article_connection).toEqual({
      pageInfo: { startCursor: null, endCursor: null, hasPreviousPage: true, hasNextPage: false },
      edges: [],
    });
  });

  it('filters with where and sorts with order_by, the cursor holding the sort columns', async () => {
    const query = `query ($after: String) {
      article_connection(where: {author_id: {_lt: 3}}, order_by: [{author_id: desc}, {title: asc}], first: 2, after: $after) {
        pageInfo { endCursor hasNextPage } edges { cursor node { title } }
      }
    }`;
    const first = await relay(query, admin, { after: null });
    const connection = first.json.data.article_connection;
    expect(connection.edges.map((item: { node: { title: string } }) => item.node.title)).toEqual(['Article 4', 'Article 5']);
    expect(Buffer.from(connection.edges[0].cursor, 'base64').toString()).toBe('{"author_id" : 2, "title" : "Article 4", "id" : 4}');
    expect(connection.pageInfo.hasNextPage).toBe(true);
    const next = await relay(query, admin, { after: connection.pageInfo.endCursor });
    expect(next.json.data.article_connection.edges.map((item: { node: { title: string } }) => item.node.title)).toEqual(['Article 1', 'Article 2']);
    expect(next.json.data.article_connection.pageInfo.hasNextPage).toBe(true);
  });

  describe('walks every row once, forwards and backwards, whatever the order and null placement', () => {
    const ratings: Record<number, number | null> = { 1: 3, 2: null, 3: 5, 4: null, 5: 3, 6: 1 };
    const expected = (direction: string): number[] => {
      const descending = direction.startsWith('desc');
      const nullsFirst = direction.endsWith('nulls_first') || direction === 'desc';
      const place = (rating: number | null) => (rating === null ? (nullsFirst ? -Infinity : Infinity) : descending ? -rating : rating);
      return [1, 2, 3, 4, 5, 6].sort((a, b) => place(ratings[a]!) - place(ratings[b]!) || a - b);
    };
    const walk = async (direction: string, backward: boolean): Promise<number[]> => {
      const seen: number[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 10; pages++) {
        const paging: string = backward ? `last: 2, before: $cursor` : `first: 2, after: $cursor`;
        const result = await relay(`query ($cursor: String) { article_connection(order_by: {rating: ${direction}}, ${paging}) {
          pageInfo { startCursor endCursor hasNextPage hasPreviousPage } edges { node { ... on article { title } } } } }`, admin, { cursor });
        const connection = result.json.data.article_connection;
        const ids = connection.edges.map((item: { node: { title: string } }) => Number(item.node.title.split(' ')[1]));
        if (backward) seen.unshift(...ids);
        else seen.push(...ids);
        if (!(backward ? connection.pageInfo.hasPreviousPage : connection.pageInfo.hasNextPage)) return seen;
        cursor = backward ? connection.pageInfo.startCursor : connection.pageInfo.endCursor;
      }
      throw new Error('the pages never ended');
    };
    for (const direction of ['asc', 'desc', 'asc_nulls_first', 'desc_nulls_last']) {
      it(`order_by rating: ${direction}`, async () => {
        expect(await walk(direction, false)).toEqual(expected(direction));
        expect(await walk(direction, true)).toEqual(expected(direction));
      });
    }
  });

  it('offers array relationships as connections inside nodes, with the plain list kept', async () => {
    const result = await relay(`{
      author_connection(first: 2) { edges { node { name articles { title } articles_connection(first: 1) { pageInfo { hasNextPage } edges { node { title } } } } } }
    }`);
    expect(result.json).toEqual({ data: expect.anything() });
    expect(result.json.data.author_connection.edges).toEqual([
      { node: { name: 'Author 1', articles: [{ title: 'Article 1' }, { title: 'Article 2' }, { title: 'Article 3' }], articles_connection: { pageInfo: { hasNextPage: true }, edges: [{ node: { title: 'Article 1' } }] } } },
      { node: { name: 'Author 2', articles: [{ title: 'Article 4' }, { title: 'Article 5' }], articles_connection: { pageInfo: { hasNextPage: true }, edges: [{ node: { title: 'Article 4' } }] } } },
    ]);
  });

  it('is served under /v1/relay too, the name Hasura gave it out of beta', async () => {
    const result = await http('POST', `${engine.url}/v1/relay`, { query: '{ author_connection(first: 1) { edges { cursor } } }' }, admin);
    expect(result.json).toEqual({ data: { author_connection: { edges: [{ cursor: idCursor(1) }] } } });
  });

  it('names its types as Hasura does, every Node table among Node\'s possible types', async () => {
    const result = await relay(`{
      article_connection(first: 1) { __typename pageInfo { __typename } edges { __typename } }
      node: __type(name: "Node") { kind possibleTypes { name } }
    }`);
    expect(result.json).toEqual({
      data: {
        article_connection: { __typename: 'articleConnection', pageInfo: { __typename: 'PageInfo' }, edges: [{ __typename: 'articleEdge' }] },
        node: { kind: 'INTERFACE', possibleTypes: [{ name: 'article' }, { name: 'author' }, { name: 'ledger' }] },
      },
    });
  });

  it('refuses after and before with an order through a relationship, which a cursor cannot place', async () => {
    const result = await relay(`{ article_connection(order_by: {author: {name: asc}}, after: "${idCursor(1)}") { edges { cursor } } }`);
    expect(result.json).toEqual(failure('"after" and "before" need an order_by on the table\'s own columns', '$.selectionSet.article_connection', 'not-supported'));
  });

  it('answers a batch in order, as /v1/graphql does', async () => {
    const result = await http('POST', `${engine.url}/v1beta1/relay`, [
      { query: '{ article_connection(last: 1) { edges { cursor } } }' },
      { query: `{ node(id: "${nodeId('article', 1)}") { ... on article { title } } }` },
    ], admin);
    expect(result.json).toEqual([{ data: { article_connection: { edges: [{ cursor: idCursor(6) }] } } }, { data: { node: { title: 'Article 1' } } }]);
  });

  it('pages through the rows a function returns, as <fn>_connection', async () => {
    const query = '{ search_articles_connection(args: {search: "article"}, order_by: {id: desc}, first: 2) { pageInfo { hasNextPage } edges { node { id title } } } }';
    const result = await relay(query);
    expect(result.json.data.search_articles_connection).toEqual({
      pageInfo: { hasNextPage: true },
      edges: [{ node: { id: nodeId('article', 6), title: 'Article 6' } }, { node: { id: nodeId('article', 5), title: 'Article 5' } }],
    });
    const asRole = await relay(query.replace('first: 2', 'first: 3'), asUser(1));
    expect(asRole.json.data.search_articles_connection.edges.map((item: { node: { title: string } }) => item.node.title)).toEqual(['Article 6', 'Article 4', 'Article 3']);
  });

  it('leaves /v1/graphql as it was: the id column is still the column there', async () => {
    const result = await engine.graphql({ query: '{ author(limit: 1, order_by: {id: asc}) { id } }' });
    expect(result.json).toEqual({ data: { author: [{ id: 1 }] } });
  });
});

describe('permissions, as on /v1/graphql', () => {
  it('resolves a node outside the role\'s filter to null and one inside to its row', async () => {
    const result = await relay(`{
      hidden: node(id: "${nodeId('article', 2)}") { id }
      own: node(id: "${nodeId('article', 5)}") { ... on article { title } }
    }`, asUser(2));
    expect(result.json).toEqual({ data: { hidden: null, own: { title: 'Article 5' } } });
  });

  it('pages only through the rows the role may read, capped by its limit', async () => {
    const result = await relay(`{ article_connection(first: 10) { pageInfo { hasNextPage } edges { node { title } } } }`, asUser(2));
    expect(result.json).toEqual({ data: expect.anything() });
    expect(result.json.data.article_connection).toEqual({
      pageInfo: { hasNextPage: true },
      edges: [{ node: { title: 'Article 1' } }, { node: { title: 'Article 3' } }, { node: { title: 'Article 4' } }],
    });
    const rest = await relay(`{ article_connection(after: "${idCursor(4)}") { edges { node { title } } } }`, asUser(2));
    expect(rest.json.data.article_connection.edges).toEqual([{ node: { title: 'Article 5' } }, { node: { title: 'Article 6' } }]);
  });

  it('offers no Node, connection or id for a table whose key the role may not read', async () => {
    const field = await relay('{ author_connection { edges { cursor } } }', asUser(2));
    expect(field.json).toEqual(failure("field 'author_connection' not found in type: 'query_root'", '$.selectionSet.author_connection'));
    const node = await relay(`{ node(id: "${nodeId('author', 1)}") { id } }`, asUser(2));
    expect(node.json).toEqual(failure('invalid node id: no such table found: "public.author"', '$.selectionSet.node.args.id'));
  });
});

describe('bad input, answered with Hasura\'s errors (HTTP 200)', () => {
  it('refuses a malformed global id', async () => {
    const result = await relay('{ node(id: "random") { id } }');
    expect(result.status).toBe(200);
    expect(result.json).toEqual(failure('invalid node id: Error in $: Failed reading: not a valid json value', '$.selectionSet.node.args.id'));
  });

  it('refuses ids of another shape or version', async () => {
    const object = await relay(`{ node(id: "${idCursor(4)}") { id } }`);
    expect(object.json).toEqual(failure('invalid node id: Error in $: parsing [] failed, expected Array, but encountered Object', '$.selectionSet.node.args.id'));
    const version = await relay(`{ node(id: "${base64('[2, "public", "author", 1]')}") { id } }`);
    expect(version.json).toEqual(failure('invalid node id: Error in $: unsupported GUID version: 2.0', '$.selectionSet.node.args.id'));
    const short = await relay(`{ node(id: "${base64('[1, "public", "author"]')}") { id } }`);
    expect(short.json).toEqual(failure('invalid node id: Error in $: GUID version 1: expecting schema name, table name and at least one column value', '$.selectionSet.node.args.id'));
    const extra = await relay(`{ node(id: "${base64('[1, "public", "author", 1, 2]')}") { id } }`);
    expect(extra.json).toEqual(failure('invalid node id: unexpected column values [2]', '$.selectionSet.node.args.id'));
  });

  it('refuses an id naming an unknown table, or a table without a primary key', async () => {
    const unknown = await relay(`{ node(id: "${base64('[1, "public", "nope", 1]')}") { id } }`);
    expect(unknown.json).toEqual(failure('invalid node id: no such table found: "public.nope"', '$.selectionSet.node.args.id'));
    const keyless = await relay(`{ node(id: "${base64('[1, "public", "audit", 1]')}") { id } }`);
    expect(keyless.json).toEqual(failure('invalid node id: no such table found: "public.audit"', '$.selectionSet.node.args.id'));
  });

  it('refuses first with last, and after with before', async () => {
    const both = await relay('{ author_connection(first: 1, last: 2) { edges { cursor } } }');
    expect(both.json).toEqual(failure('"first" and "last" are not allowed at once', '$.selectionSet.author_connection'));
    const cursors = await relay(`{ author_connection(after: "${idCursor(2)}", before: "${idCursor(4)}") { edges { cursor } } }`);
    expect(cursors.json).toEqual(failure('"after" and "before" are not allowed at once', '$.selectionSet.author_connection'));
  });

  it('refuses a negative first, literal or variable', async () => {
    const literal = await relay('{ author_connection(first: -1) { edges { cursor } } }');
    expect(literal.json).toEqual(failure('unexpected negative value', '$.selectionSet.author_connection.args.first', 'not-supported'));
    const variable = await relay('query ($n: Int) { author_connection(last: $n) { edges { cursor } } }', admin, { n: -2 });
    expect(variable.json).toEqual(failure('unexpected negative value', '$.selectionSet.author_connection.args.last', 'not-supported'));
  });

  it('refuses a cursor that is not one, or lacks a sort column', async () => {
    const invalid = failure('the "after" or "before" cursor is invalid', '$.selectionSet.author_connection');
    expect((await relay('{ author_connection(after: "random") { edges { cursor } } }')).json).toEqual(invalid);
    expect((await relay(`{ author_connection(order_by: {name: asc}, before: "${idCursor(2)}") { edges { cursor } } }`)).json).toEqual(invalid);
  });

  it('has no list, by-pk or aggregate root fields', async () => {
    const list = await relay('{ author { name } }');
    expect(list.json).toEqual(failure("field 'author' not found in type: 'query_root'", '$.selectionSet.author'));
    const byPk = await relay('{ author_by_pk(id: 1) { name } }');
    expect(byPk.json).toEqual(failure("field 'author_by_pk' not found in type: 'query_root'", '$.selectionSet.author_by_pk'));
  });
});

describe('mutations, as on /v1/graphql', () => {
  it('writes, and answers the written rows with their global ids', async () => {
    const inserted = await relay('mutation { insert_author_one(object: {id: 5, name: "Author 5"}) { id name } }');
    expect(inserted.json).toEqual({ data: { insert_author_one: { id: nodeId('author', 5), name: 'Author 5' } } });
    const found = await relay(`{ node(id: "${nodeId('author', 5)}") { ... on author { name } } }`);
    expect(found.json).toEqual({ data: { node: { name: 'Author 5' } } });
    const deleted = await relay('mutation { delete_author(where: {id: {_eq: 5}}) { affected_rows returning { id } } }');
    expect(deleted.json).toEqual({ data: { delete_author: { affected_rows: 1, returning: [{ id: nodeId('author', 5) }] } } });
  });

  it('offers a role only the mutations its permissions allow', async () => {
    const result = await relay('mutation { delete_article(where: {}) { affected_rows } }', asUser(2));
    expect(result.json).toEqual(failure('no mutations exist', '$'));
  });
});

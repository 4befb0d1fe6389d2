import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

/**
 * The read side end to end: tables created and tracked through /v1/query, permissions
 * with session variables, queries over /v1/graphql as admin and as a restricted role.
 */
const SECRET = 'e2e-secret';
let db: TestDatabase;
let engine: TestEngine;

const admin = { 'x-service-admin-secret': SECRET };
const asUser = (id: number) => ({ ...admin, 'x-service-role': 'user', 'X-Service-User-Id': String(id) });

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
            create table author (id integer primary key, name text not null, email text not null);
            create table article (id integer primary key, author_id integer not null references author(id), title text not null,
                                  is_published boolean not null default false, rating numeric(3,1), tags text[], meta jsonb);
            insert into author values (1, 'Ada', 'ada@example.com'), (2, 'Brian', 'brian@example.com'), (3, 'Cleo', 'cleo@example.com');
            insert into article values
              (10, 1, 'Engines', true, 4.5, '{math}', '{"lang": "en"}'),
              (11, 1, 'Notes', false, 3.0, '{}', '{"lang": "fr"}'),
              (12, 2, 'Pipes', true, 4.0, '{unix,c}', null),
              (13, 3, 'Draft', false, null, null, '{"lang": "en", "draft": true}');
          `,
        },
      },
      { type: 'track_table', args: { name: 'author' } },
      { type: 'track_table', args: { name: 'article' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      {
        type: 'create_select_permission',
        args: {
          table: 'article',
          role: 'user',
          permission: {
            columns: ['id', 'title', 'is_published', 'author_id'],
            filter: { _or: [{ is_published: { _eq: true } }, { author_id: { _eq: 'X-Service-User-Id' } }] },
            limit: 10,
          },
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

const gql = (query: string, headers: Record<string, string> = admin, variables?: Record<string, unknown>) => engine.graphql({ query, variables }, headers);

describe('the read side over HTTP, as admin', () => {
  it('lists rows with where, order_by and limit, nested through relationships', async () => {
    const result = await gql(`{
      author(order_by: {id: asc}, where: {articles: {is_published: {_eq: true}}}) {
        id name
        articles(order_by: {id: asc}) { title rating tags meta }
      }
    }`);
    expect(result.status).toBe(200);
    expect(result.json).toEqual({
      data: {
        author: [
          { id: 1, name: 'Ada', articles: [
            { title: 'Engines', rating: 4.5, tags: ['math'], meta: { lang: 'en' } },
            { title: 'Notes', rating: 3, tags: [], meta: { lang: 'fr' } },
          ] },
          { id: 2, name: 'Brian', articles: [{ title: 'Pipes', rating: 4, tags: ['unix', 'c'], meta: null }] },
        ],
      },
    });
  });

  it('answers by primary key, aggregates and object relationships', async () => {
    const result = await gql(`{
      article_by_pk(id: 12) { id title author { name email } }
      article_aggregate(where: {is_published: {_eq: true}}) { aggregate { count max { rating } } }
    }`);
    expect(result.json).toEqual({
      data: {
        article_by_pk: { id: 12, title: 'Pipes', author: { name: 'Brian', email: 'brian@example.com' } },
        article_aggregate: { aggregate: { count: 2, max: { rating: 4.5 } } },
      },
    });
  });

  it('filters on jsonb and text operators, with variables', async () => {
    const result = await gql(
      `query Q($meta: jsonb, $pattern: String) {
        article(where: {_and: [{meta: {_contains: $meta}}, {title: {_ilike: $pattern}}]}, order_by: {id: desc}) { id }
      }`,
      admin,
      { meta: { lang: 'en' }, pattern: '%r%' },
    );
    expect(result.json).toEqual({ data: { article: [{ id: 13 }] } });
  });
  it('filters by counts of related rows (aggregate predicates), with filter, arguments and distinct', async () => {
    const names = async (where: string) => (await gql(`{ author(where: ${where}, order_by: {id: asc}) { name } }`, admin)).json;
    expect(await names('{articles_aggregate: {count: {predicate: {_gt: 1}}}}')).toEqual({ data: { author: [{ name: 'Ada' }] } });
    expect(await names('{articles_aggregate: {count: {predicate: {_eq: 1}, filter: {is_published: {_eq: true}}}}}')).toEqual({ data: { author: [{ name: 'Ada' }, { name: 'Brian' }] } });
    expect(await names('{articles_aggregate: {count: {predicate: {_eq: 0}, arguments: [rating]}}}')).toEqual({ data: { author: [{ name: 'Cleo' }] } });
    expect(await names('{_not: {articles_aggregate: {count: {predicate: {_gte: 1}, arguments: [is_published], distinct: true}}}}')).toEqual({ data: { author: [] } });
    const missing = await gql('{ author(where: {articles_aggregate: {count: {filter: {}}}}) { id } }', admin);
    expect(missing.json.errors[0].extensions.code).toBe('validation-failed');
    // A permission may filter on counts too: the role sees authors with more than one article.
    const permitted = await engine.query({
      type: 'create_select_permission',
      args: { table: 'author', role: 'prolific', permission: { columns: ['name'], filter: { articles_aggregate: { count: { predicate: { _gt: 1 }, filter: { title: { _neq: '' } } } } } } },
    });
    expect(permitted.json).toEqual({ message: 'success' });
    expect((await gql('{ author { name } }', { ...admin, 'x-service-role': 'prolific' })).json).toEqual({ data: { author: [{ name: 'Ada' }] } });
    const unknownColumn = await engine.query({
      type: 'create_select_permission',
      args: { table: 'article', role: 'prolific', permission: { columns: ['id'], filter: { author: { articles_aggregate: { count: { predicate: { _gt: 1 }, arguments: ['nope'] } } } } } },
    });
    expect(unknownColumn.status).toBe(400);
    // Without allow_aggregations on article, the restricted role has no such filter.
    const hidden = await gql('{ author(where: {articles_aggregate: {count: {predicate: {_gt: 0}}}}) { id } }', asUser(1));
    expect(hidden.json.errors[0]).toEqual({ message: "field 'articles_aggregate' not found in type: 'author_bool_exp'", extensions: { path: '$.selectionSet.author.args.where.articles_aggregate', code: 'validation-failed' } });
  });

  it('selects inside json values with the path argument, refusing a malformed path', async () => {
    const result = await gql(
      `query Q($p: String) { article(where: {id: {_in: [10, 12, 13]}}, order_by: {id: asc}) { id lang: meta(path: "$.lang") draft: meta(path: "draft") whole: meta(path: "$") by: meta(path: $p) } }`,
      admin,
      { p: '$["lang"]' },
    );
    expect(result.json).toEqual({
      data: {
        article: [
          { id: 10, lang: 'en', draft: null, whole: { lang: 'en' }, by: 'en' },
          { id: 12, lang: null, draft: null, whole: null, by: null },
          { id: 13, lang: 'en', draft: true, whole: { lang: 'en', draft: true }, by: 'en' },
        ],
      },
    });
    const bad = await gql('{ article { meta(path: "lang..x") } }', admin);
    expect(bad.json).toEqual({
      errors: [{ message: 'parse json path error: expected a key after "." at position 4 of "lang..x"', extensions: { path: '$.selectionSet.article.selectionSet.meta.args.path', code: 'validation-failed' } }],
    });
    const noPath = await gql('{ article { title(path: "a") } }', admin);
    expect(noPath.json.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('the read side over HTTP, as a restricted role', () => {
  it('sees only permitted rows: published ones and its own, resolved from X-Service-User-Id', async () => {
    const result = await gql('{ article(order_by: {id: asc}) { id title } }', asUser(1));
    expect(result.json).toEqual({ data: { article: [{ id: 10, title: 'Engines' }, { id: 11, title: 'Notes' }, { id: 12, title: 'Pipes' }] } });
    const other = await gql('{ article(order_by: {id: asc}) { id } }', asUser(3));
    expect(other.json).toEqual({ data: { article: [{ id: 10 }, { id: 12 }, { id: 13 }] } });
  });

  it('cannot see a column outside its permission', async () => {
    const result = await gql('{ author { email } }', asUser(1));
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ errors: [{ message: "field 'email' not found in type: 'author'", extensions: { path: '$.selectionSet.author.selectionSet.email', code: 'validation-failed' } }] });
  });

  it('cannot filter or order by a hidden column, nor reach hidden rows through a relationship', async () => {
    expect((await gql('{ author(where: {email: {_eq: "ada@example.com"}}) { id } }', asUser(1))).json.errors[0].extensions.code).toBe('validation-failed');
    expect((await gql('{ article(order_by: {rating: desc}) { id } }', asUser(1))).json.errors[0].extensions.code).toBe('validation-failed');
    const nested = await gql('{ author(where: {id: {_eq: 3}}) { articles { id } } }', asUser(1));
    expect(nested.json).toEqual({ data: { author: [{ articles: [] }] } });
  });

  it('has no aggregate field without allow_aggregations', async () => {
    const result = await gql('{ article_aggregate { aggregate { count } } }', asUser(1));
    expect(result.json.errors[0]).toEqual({ message: "field 'article_aggregate' not found in type: 'query_root'", extensions: { path: '$.selectionSet.article_aggregate', code: 'validation-failed' } });
  });

  it('introspects only its own schema', async () => {
    const result = await gql('{ __type(name: "author") { fields { name } } }', asUser(1));
    expect(result.json.data.__type.fields.map((field: { name: string }) => field.name).sort()).toEqual(['articles', 'id', 'name']);
  });

  it('an unknown role sees only the placeholder', async () => {
    const result = await gql('{ __schema { queryType { fields { name } } } }', { ...admin, 'x-service-role': 'stranger' });
    expect(result.json).toEqual({ data: { __schema: { queryType: { fields: [{ name: 'no_queries_available' }] } } } });
  });
});

describe('a metadata change reaches GraphQL', () => {
  it('serves a table once tracked and stops once untracked', async () => {
    await engine.query({ type: 'run_sql', args: { sql: "create table tag (id integer primary key, label text); insert into tag values (1, 'x')" } });
    expect((await gql('{ tag { label } }')).json.errors[0].extensions.code).toBe('validation-failed');
    await engine.query({ type: 'track_table', args: { name: 'tag' } });
    expect((await gql('{ tag { label } }')).json).toEqual({ data: { tag: [{ label: 'x' }] } });
    await engine.query({ type: 'untrack_table', args: { table: 'tag' } });
    expect((await gql('{ tag { label } }')).json.errors[0].extensions.code).toBe('validation-failed');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, asUser, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** Tracked functions as query root fields (interface 2.4, compat-facts 6.2). */
let fx: FunctionsFixture;

beforeAll(async () => {
  fx = await startFunctionsFixture();
  const tracked = await fx.query({
    type: 'bulk',
    args: [
      { type: 'track_function', args: { schema: 'public', name: 'search_articles' } },
      { type: 'track_function', version: 2, args: { function: { schema: 'public', name: 'my_articles' }, configuration: { session_argument: 'service_session' } } },
      { type: 'track_function', version: 2, args: { function: 'whoami', configuration: { session_argument: 'service_session' } } },
      { type: 'track_function', args: 'top_article' },
      { type: 'track_function', args: 'paged_articles' },
      { type: 'track_function', args: 'unnamed_defaults' },
    ],
  });
  expect(tracked.json).toEqual(Array(6).fill({ message: 'success' }));
  await fx.query({ type: 'create_select_permission', args: { table: 'author', role: 'reader', permission: { columns: ['id', 'name'], filter: {}, allow_aggregations: true } } });
});

afterAll(async () => {
  await fx?.stop();
});

describe('a STABLE function as a query', () => {
  it('answers with args, where, order_by and limit as admin', async () => {
    const data = await fx.gql(`{
      search_articles(args: {search: "engine", min_rating: 2}, where: {is_published: {_eq: true}}, order_by: {rating: desc}, limit: 2) { id title rating }
    }`);
    expect(data).toEqual({ data: { search_articles: [{ id: 10, title: 'Engines', rating: 4.5 }, { id: 14, title: 'Engine room', rating: 2 }] } });
  });

  it('lets trailing arguments with defaults be left out', async () => {
    const data = await fx.gql('{ search_articles(args: {search: "engine"}, order_by: {id: asc}) { id } }');
    expect(data).toEqual({ data: { search_articles: [{ id: 10 }, { id: 11 }, { id: 13 }, { id: 14 }] } });
  });

  it('shows a restricted role only the rows the return table permits', async () => {
    const data = await fx.gql('{ search_articles(args: {search: "engine"}, where: {rating: {_gte: 2}}, order_by: {id: asc}, limit: 5) { id title } }', asUser(2));
    // 11 is unpublished and Ada's, 13 unpublished and Cleo's: user 2 sees neither.
    expect(data).toEqual({ data: { search_articles: [{ id: 10, title: 'Engines' }, { id: 14, title: 'Engine room' }] } });
    const own = await fx.gql('{ search_articles(args: {search: "engine"}, order_by: {id: asc}) { id } }', asUser(1));
    expect(own).toEqual({ data: { search_articles: [{ id: 10 }, { id: 11 }, { id: 14 }] } });
  });

  it('refuses a missing argument without a default', async () => {
    const data = await fx.gql('{ search_articles(args: {min_rating: 1}) { id } }');
    expect(data).toEqual({ errors: [{ message: 'Non default arguments cannot be omitted', extensions: { path: '$.selectionSet.search_articles.args.args', code: 'not-supported' } }] });
  });

  it('passes the arguments after a left-out one by name, and refuses that for unnamed ones', async () => {
    expect(await fx.gql('{ paged_articles(args: {take: 2}) { id } }')).toEqual({ data: { paged_articles: [{ id: 10 }, { id: 11 }] } });
    expect(await fx.gql('{ paged_articles { id } }')).toEqual({ data: { paged_articles: [{ id: 10 }, { id: 11 }, { id: 12 }, { id: 13 }, { id: 14 }] } });
    expect(await fx.gql('{ unnamed_defaults(args: {arg_1: 3}) { id } }')).toEqual({ data: { unnamed_defaults: [{ id: 13 }, { id: 14 }] } });
    expect(await fx.gql('{ unnamed_defaults(args: {arg_2: 1}) { id } }')).toEqual({
      errors: [{ message: 'Only last set of positional arguments can be omitted', extensions: { path: '$.selectionSet.unnamed_defaults.args.args', code: 'not-supported' } }],
    });
  });

  it('passes arguments from variables', async () => {
    const result = await fx.engine.graphql({ query: 'query Q($s: String) { search_articles(args: {search: $s}, limit: 1, order_by: {id: desc}) { id } }', variables: { s: 'pipe' } }, admin);
    expect(result.json).toEqual({ data: { search_articles: [{ id: 12 }] } });
  });

  it('has an aggregate field for roles that may aggregate the return table', async () => {
    const data = await fx.gql('{ search_articles_aggregate(args: {search: "engine"}) { aggregate { count max { rating } } } }');
    expect(data).toEqual({ data: { search_articles_aggregate: { aggregate: { count: 4, max: { rating: 4.5 } } } } });
    const user = await fx.gql('{ search_articles_aggregate(args: {search: "engine"}) { aggregate { count } } }', asUser(1));
    expect(user.errors[0].message).toBe("field 'search_articles_aggregate' not found in type: 'query_root'");
  });

  it('is not offered to a role that cannot read the return table', async () => {
    const data = await fx.gql('{ search_articles(args: {search: "x"}) { id } }', { ...admin, 'x-service-role': 'reader' });
    expect(data.errors[0].message).toBe("field 'search_articles' not found in type: 'query_root'");
  });

  it('gives a function returning one row a nullable object', async () => {
    expect(await fx.gql('{ top_article { id title } }')).toEqual({ data: { top_article: { id: 10, title: 'Engines' } } });
  });

  it('shows the args type in introspection: optional fields, required args', async () => {
    const data = await fx.gql(`{
      __type(name: "search_articles_args") { inputFields { name type { kind name } } }
      query: __type(name: "query_root") { fields { name args { name type { kind name ofType { name } } } } }
    }`);
    expect(data.data.__type.inputFields).toEqual([
      { name: 'search', type: { kind: 'SCALAR', name: 'String' } },
      { name: 'min_rating', type: { kind: 'SCALAR', name: 'numeric' } },
    ]);
    const field = data.data.query.fields.find((candidate: { name: string }) => candidate.name === 'search_articles');
    expect(field.args.map((arg: { name: string }) => arg.name)).toEqual(['args', 'distinct_on', 'limit', 'offset', 'order_by', 'where']);
    expect(field.args[0].type).toEqual({ kind: 'NON_NULL', name: null, ofType: { name: 'search_articles_args' } });
  });
});

describe('the session argument', () => {
  it('is hidden from args and receives x-service-user-id', async () => {
    const data = await fx.gql('{ my_articles(order_by: {id: asc}) { id author_id } }', asUser(2));
    expect(data).toEqual({ data: { my_articles: [{ id: 12, author_id: 2 }, { id: 14, author_id: 2 }] } });
    const introspected = await fx.gql('{ __type(name: "query_root") { fields { name args { name } } } }', asUser(2));
    const field = introspected.data.__type.fields.find((candidate: { name: string }) => candidate.name === 'my_articles');
    expect(field.args.map((arg: { name: string }) => arg.name)).not.toContain('args');
  });

  it('gets the session with lower-case keys, x-service-role included', async () => {
    const data = await fx.gql('{ whoami { name } }', { ...admin, 'X-Service-Role': 'user', 'X-SERVICE-USER-ID': '7' });
    expect(data).toEqual({ data: { whoami: [{ name: '7/user' }] } });
    expect(await fx.gql('{ whoami { name } }')).toEqual({ data: { whoami: [{ name: '?/admin' }] } });
  });
});

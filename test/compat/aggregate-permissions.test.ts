import { beforeAll, describe, expect, it } from 'vitest';
import { graphqlFailure as failure, trackTables, useSqlFixture } from './sql-fixture.js';

/**
 * Issue 19, aggregates under permissions, on the tables of Hasura's own `agg_perm` cases:
 * role `user` reads every author, article and post but at most one row of each at a time
 * (`limit: 1`) and may aggregate authors and posts; `user_with_filter` sees the articles
 * of its own author. As in Hasura, aggregates cover every row the filter allows while
 * the permission's limit caps the rows returned (`nodes`), and the filter always holds.
 */
const fixture = useSqlFixture(
  `
    create table author (id serial primary key, name text unique);
    create table article (id serial primary key, title text, author_id integer references author(id), is_published boolean);
    create table post (id serial primary key, title text, author_id integer references author(id));
    insert into author (name) values ('Author 1'), ('Author 2');
    insert into article (title, author_id, is_published) values ('Article 1', 1, false), ('Article 2', 1, true), ('Article 3', 2, true);
    insert into post (title, author_id) values ('Post 1', 1), ('Post 2', 1), ('Post 3', 1), ('Post 4', 2), ('Post 5', 2);
  `,
  [
    ...trackTables('author', 'article', 'post'),
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'posts', using: { foreign_key_constraint_on: { table: 'post', column: 'author_id' } } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: '*', filter: {}, allow_aggregations: true, limit: 1 } } },
    { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: '*', filter: {}, allow_aggregations: false, limit: 1 } } },
    { type: 'create_select_permission', args: { table: 'post', role: 'user', permission: { columns: '*', filter: {}, allow_aggregations: true, limit: 1 } } },
    { type: 'create_select_permission', args: { table: 'article', role: 'user_with_filter', permission: { columns: '*', filter: { author_id: { _eq: 'X-Service-User-Id' } }, allow_aggregations: true, limit: 1 } } },
  ],
);
const graphql = (body: unknown, headers?: Record<string, string>) => fixture().engine.graphql(body, headers);

const asUser = { 'x-service-role': 'user' };
const asFiltered = (id: string) => ({ 'x-service-role': 'user_with_filter', 'x-service-user-id': id });

describe('aggregates under a permission with a row limit', () => {
  it('counts every row the filter allows, and returns the limit\'s number of nodes (Hasura\'s author_agg_articles)', async () => {
    const answer = await graphql({ query: '{ author_aggregate { aggregate { count max { id } } nodes { id name articles { id title } } } }' }, asUser);
    expect(answer.json).toEqual({
      data: { author_aggregate: { aggregate: { count: 2, max: { id: 2 } }, nodes: [{ id: 1, name: 'Author 1', articles: [{ id: 1, title: 'Article 1' }] }] } },
    });
  });

  it('keeps the nodes in the order asked, capped, and applies a limit the query gives to the aggregate too', async () => {
    const ordered = await graphql({ query: '{ post_aggregate(order_by: {id: desc}) { aggregate { count } nodes { id } } }' }, asUser);
    expect(ordered.json).toEqual({ data: { post_aggregate: { aggregate: { count: 5 }, nodes: [{ id: 5 }] } } });
    const limited = await graphql({ query: '{ post_aggregate(limit: 3, order_by: {id: asc}) { aggregate { count sum { id } } } }' }, asUser);
    expect(limited.json).toEqual({ data: { post_aggregate: { aggregate: { count: 3, sum: { id: 6 } } } } });
  });

  it('still caps the rows of a list, and of nodes asked without aggregates', async () => {
    const list = await graphql({ query: '{ post(order_by: {id: asc}) { id } post_aggregate(order_by: {id: asc}) { nodes { id } } }' }, asUser);
    expect(list.json).toEqual({ data: { post: [{ id: 1 }], post_aggregate: { nodes: [{ id: 1 }] } } });
  });

  it('aggregates a relationship\'s rows the same way, and orders by them (Hasura\'s author_post_agg_order_by)', async () => {
    const nested = await graphql({ query: '{ author(order_by: {id: asc}) { id posts_aggregate { aggregate { count } nodes { id } } } }' }, asUser);
    expect(nested.json).toEqual({ data: { author: [{ id: 1, posts_aggregate: { aggregate: { count: 3 }, nodes: [{ id: 1 }] } }] } });
    const ordered = await graphql({ query: '{ author(order_by: {posts_aggregate: {count: asc}}) { id name posts { id title } } }' }, asUser);
    expect(ordered.json).toEqual({ data: { author: [{ id: 2, name: 'Author 2', posts: [{ id: 4, title: 'Post 4' }] }] } });
  });

  it('offers no aggregate of a table the role may not aggregate', async () => {
    const answer = await graphql({ query: '{ article_aggregate { aggregate { count } } }' }, asUser);
    expect(answer.json).toEqual(failure("field 'article_aggregate' not found in type: 'query_root'", '$.selectionSet.article_aggregate'));
  });
});

describe('aggregates under a permission filter', () => {
  it('count only the rows the filter allows (Hasura\'s article_agg_with_filter)', async () => {
    const first = await graphql({ query: '{ article_aggregate { aggregate { count } nodes { id } } }' }, asFiltered('1'));
    expect(first.json).toEqual({ data: { article_aggregate: { aggregate: { count: 2 }, nodes: [{ id: 1 }] } } });
    const second = await graphql({ query: '{ article_aggregate { aggregate { count max { id } } } }' }, asFiltered('2'));
    expect(second.json).toEqual({ data: { article_aggregate: { aggregate: { count: 1, max: { id: 3 } } } } });
  });
});

describe('a role that may aggregate a table but read none of its columns', () => {
  beforeAll(async () => {
    const setup = await fixture().engine.query({
      type: 'bulk',
      args: [
        { type: 'create_select_permission', args: { table: 'article', role: 'counter', permission: { columns: [], filter: { is_published: { _eq: true } }, allow_aggregations: true } } },
        { type: 'create_select_permission', args: { table: 'post', role: 'counter', permission: { columns: [], filter: {} } } },
      ],
    });
    expect(setup.status).toBe(200);
  });
  const asCounter = { 'x-service-role': 'counter' };

  it('counts the rows its filter allows (Hasura\'s article_agg_with_role_without_select_access)', async () => {
    const answer = await graphql({ query: '{ article_aggregate { aggregate { count } } }' }, asCounter);
    expect(answer.json).toEqual({ data: { article_aggregate: { aggregate: { count: 2 } } } });
    const filtered = await graphql({ query: '{ article_aggregate(where: {_not: {_and: []}}, limit: 1) { aggregate { count(distinct: true) } } }' }, asCounter);
    expect(filtered.json).toEqual({ data: { article_aggregate: { aggregate: { count: 0 } } } });
  });

  it('offers no columns, no column aggregates, no rows and no list of the table', async () => {
    const columns = await graphql({ query: '{ article_aggregate { aggregate { count(columns: [title]) } } }' }, asCounter);
    expect(columns.json).toEqual(failure("'count' has no argument named 'columns'", '$.selectionSet.article_aggregate.selectionSet.aggregate.selectionSet.count'));
    const max = await graphql({ query: '{ article_aggregate { aggregate { max { id } } } }' }, asCounter);
    expect(max.json).toEqual(failure("field 'max' not found in type: 'article_aggregate_fields'", '$.selectionSet.article_aggregate.selectionSet.aggregate.selectionSet.max'));
    const nodes = await graphql({ query: '{ article_aggregate { nodes { __typename } } }' }, asCounter);
    expect(nodes.json).toEqual(failure("field 'nodes' not found in type: 'article_aggregate'", '$.selectionSet.article_aggregate.selectionSet.nodes'));
    const list = await graphql({ query: '{ article { __typename } }' }, asCounter);
    expect(list.json).toEqual(failure("field 'article' not found in type: 'query_root'", '$.selectionSet.article'));
  });

  it('offers nothing of a table it may neither read nor aggregate', async () => {
    const answer = await graphql({ query: '{ post_aggregate { aggregate { count } } }' }, asCounter);
    expect(answer.json).toEqual(failure("field 'post_aggregate' not found in type: 'query_root'", '$.selectionSet.post_aggregate'));
  });
});

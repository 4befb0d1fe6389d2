import { describe, expect, it } from 'vitest';
import { graphqlFailure as failure, trackTables, useSqlFixture } from './sql-fixture.js';

/**
 * Issue 19, computed fields and functions in the remaining shapes Hasura v2 supports:
 * a SETOF-table computed field in `where` (some returned row matches) and in `order_by`
 * as `<field>_aggregate` (its rows counted or aggregated, as the role may read them), a
 * scalar computed field in `order_by`, and a function returning the rows of a tracked
 * view. A computed field taking arguments of its own is in neither, as in Hasura.
 * Role `reader` reads articles rated above 4 and may aggregate them; `counter` reads
 * every article but may not aggregate.
 */
const fixture = useSqlFixture(
  `
    create table author (id integer primary key, name text not null);
    create table article (id integer primary key, title text not null, author_id integer references author(id), published boolean not null, rating integer);
    insert into author values (1, 'Ada'), (2, 'Brian'), (3, 'Cy');
    insert into article values (1, 'a1', 1, true, 5), (2, 'a2', 1, true, 1), (3, 'a3', 1, false, 3), (4, 'b1', 2, true, 4);
    create function author_published(a author) returns setof article language sql stable as $$ select * from article where author_id = a.id and published $$;
    create function author_titled(a author, search text) returns setof article language sql stable as $$ select * from article where author_id = a.id and title like search $$;
    create function author_label(a author) returns text language sql stable as $$ select a.name || '!' $$;
    create view published_article as select * from article where published;
    create function top_published(min_rating integer) returns setof published_article language sql stable as $$ select * from published_article where rating >= min_rating $$;
  `,
  [
    ...trackTables('author', 'article', 'published_article'),
    { type: 'track_function', args: { schema: 'public', name: 'top_published' } },
    { type: 'add_computed_field', args: { table: 'author', name: 'published', definition: { function: 'author_published' } } },
    { type: 'add_computed_field', args: { table: 'author', name: 'titled', definition: { function: 'author_titled' } } },
    { type: 'add_computed_field', args: { table: 'author', name: 'label', definition: { function: 'author_label' } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'reader', permission: { columns: '*', filter: {}, computed_fields: ['label'] } } },
    { type: 'create_select_permission', args: { table: 'article', role: 'reader', permission: { columns: '*', filter: { rating: { _gt: 4 } }, allow_aggregations: true } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'counter', permission: { columns: '*', filter: {} } } },
    { type: 'create_select_permission', args: { table: 'article', role: 'counter', permission: { columns: '*', filter: {} } } },
  ],
);
const graphql = (body: unknown, headers?: Record<string, string>) => fixture().engine.graphql(body, headers);
const ids = (answer: { json: unknown }) => (answer.json as { data: { author: Array<{ id: number }> } }).data.author.map((row) => row.id);

describe('a SETOF-table computed field', () => {
  it('orders by the count of its rows, and by an aggregate of a column', async () => {
    const byCount = await graphql({ query: '{ author(order_by: [{published_aggregate: {count: desc}}, {id: asc}]) { id } }' });
    expect(ids(byCount)).toEqual([1, 2, 3]);
    const ascending = await graphql({ query: '{ author(order_by: {published_aggregate: {count: asc}}) { id } }' });
    expect(ids(ascending)).toEqual([3, 2, 1]);
    const byMax = await graphql({ query: '{ author(order_by: {published_aggregate: {max: {rating: asc_nulls_last}}}) { id } }' });
    expect(ids(byMax)).toEqual([2, 1, 3]);
  });

  it('counts only the rows the role may read, and is no order_by field for a role that may not aggregate them', async () => {
    const reader = await graphql({ query: '{ author(order_by: [{published_aggregate: {count: desc}}, {id: desc}]) { id } }' }, { 'x-service-role': 'reader' });
    expect(ids(reader)).toEqual([1, 3, 2]);
    const counter = await graphql({ query: '{ author(order_by: {published_aggregate: {count: desc}}) { id } }' }, { 'x-service-role': 'counter' });
    expect(counter.json).toEqual(failure("field 'published_aggregate' not found in type: 'author_order_by'", '$.selectionSet.author.args.order_by.published_aggregate'));
  });

  it('filters by its rows in where, under the role\'s permission on them', async () => {
    const admin = await graphql({ query: '{ author(where: {published: {rating: {_gte: 4}}}, order_by: {id: asc}) { id } }' });
    expect(ids(admin)).toEqual([1, 2]);
    const reader = await graphql({ query: '{ author(where: {published: {rating: {_gte: 4}}}, order_by: {id: asc}) { id } }' }, { 'x-service-role': 'reader' });
    expect(ids(reader)).toEqual([1]);
  });

  it('is in neither where nor order_by when it takes arguments of its own, as in Hasura', async () => {
    const order = await graphql({ query: '{ author(order_by: {titled_aggregate: {count: asc}}) { id } }' });
    expect(order.json).toEqual(failure("field 'titled_aggregate' not found in type: 'author_order_by'", '$.selectionSet.author.args.order_by.titled_aggregate'));
    const where = await graphql({ query: '{ author(where: {titled: {id: {_eq: 1}}}) { id } }' });
    expect(where.json).toEqual(failure("field 'titled' not found in type: 'author_bool_exp'", '$.selectionSet.author.args.where.titled'));
  });
});

describe('a scalar computed field', () => {
  it('orders rows, for a role it is permitted to', async () => {
    const answer = await graphql({ query: '{ author(order_by: {label: desc}) { id label } }' }, { 'x-service-role': 'reader' });
    expect(answer.json).toEqual({ data: { author: [{ id: 3, label: 'Cy!' }, { id: 2, label: 'Brian!' }, { id: 1, label: 'Ada!' }] } });
  });
});

describe('a function returning the rows of a tracked view', () => {
  it('is a root field over the view, with its aggregate', async () => {
    const answer = await graphql({ query: '{ top_published(args: {min_rating: 4}, order_by: {id: asc}) { id title } top_published_aggregate(args: {min_rating: 1}) { aggregate { count max { rating } } } }' });
    expect(answer.json).toEqual({ data: { top_published: [{ id: 1, title: 'a1' }, { id: 4, title: 'b1' }], top_published_aggregate: { aggregate: { count: 3, max: { rating: 5 } } } } });
  });
});

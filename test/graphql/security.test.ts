import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupGraphqlFixture, type GraphqlFixture } from './fixture.js';

/**
 * A role reads no row and no column outside its select permissions, by any route. The
 * golden data set's permissions (test/golden/metadata.json):
 * - anonymous: author {id, name} having a published article; article {id, author_id,
 *   title, rating} when published, at most 2 rows; no comments; no aggregates.
 * - user: author without `email`; article when published or their own (X-Service-User-Id);
 *   comment on published articles; aggregates allowed.
 * Articles 2 (Ada's) and 5 (Chandra's) are drafts; Chandra has no published article.
 */
let fixture: GraphqlFixture;
beforeAll(async () => {
  fixture = await setupGraphqlFixture();
});
afterAll(async () => {
  await fixture.close();
});

const anonymous = (query: string, variables?: Record<string, unknown>) => fixture.run(query, { role: 'anonymous', ...(variables ? { variables } : {}) });
const asUser = (id: string, query: string) => fixture.run(query, { role: 'user', sessionVariables: { 'x-service-user-id': id } });
const notFound = (field: string, type: string) => expect.objectContaining({ message: `field '${field}' not found in type: '${type}'` });

describe('hidden columns', () => {
  it('cannot be selected, even under an alias', async () => {
    expect((await anonymous('{ author { email } }')).body.errors).toEqual([notFound('email', 'author')]);
    expect((await anonymous('{ author { id contact: email } }')).body.errors).toEqual([notFound('email', 'author')]);
  });

  it('cannot be selected through a fragment or an inline fragment', async () => {
    expect((await anonymous('{ author { ...F } } fragment F on author { email }')).body.errors).toEqual([notFound('email', 'author')]);
    expect((await anonymous('{ author { ... on author { email } } }')).body.errors).toEqual([notFound('email', 'author')]);
  });

  it('cannot be selected through a relationship', async () => {
    expect((await anonymous('{ article { author { email } } }')).body.errors).toEqual([notFound('email', 'author')]);
  });

  it('cannot be filtered on, directly, through a relationship or in a variable', async () => {
    expect((await anonymous('{ author(where: {email: {_is_null: false}}) { id } }')).body.errors).toEqual([notFound('email', 'author_bool_exp')]);
    expect((await anonymous('{ article(where: {author: {email: {_like: "%"}}}) { id } }')).body.errors).toEqual([notFound('email', 'author_bool_exp')]);
    const viaVariable = await anonymous('query ($w: author_bool_exp) { author(where: $w) { id } }', { w: { email: { _eq: 'ada@example.com' } } });
    expect(viaVariable.body.errors?.[0]?.message).toContain('email');
    expect(viaVariable.statements).toHaveLength(0);
  });

  it('cannot be sorted or made distinct on', async () => {
    expect((await anonymous('{ author(order_by: {email: asc}) { id } }')).body.errors).toEqual([notFound('email', 'author_order_by')]);
    expect((await anonymous('{ author(distinct_on: email) { id } }')).body.errors?.[0]?.extensions.code).toBe('validation-failed');
  });

  it('cannot be aggregated', async () => {
    const user = '1';
    expect((await asUser(user, '{ author_aggregate { aggregate { max { email } } } }')).body.errors).toEqual([notFound('email', 'author_max_fields')]);
    expect((await asUser(user, '{ author_aggregate { aggregate { count(columns: [email]) } } }')).body.errors?.[0]?.extensions.code).toBe('validation-failed');
  });

  it('are absent from introspection', async () => {
    const run = await anonymous('{ __type(name: "author") { fields { name } } }');
    expect(run.body.data).toEqual({ __type: { fields: [{ name: 'id' }, { name: 'name' }, { name: 'articles' }] } });
    const boolExp = await anonymous('{ __type(name: "author_bool_exp") { inputFields { name } } }');
    expect(JSON.stringify(boolExp.body.data)).not.toContain('email');
  });
});

describe('hidden tables and root fields', () => {
  it('are absent from the schema, the query root and introspection', async () => {
    expect((await anonymous('{ comment { id } }')).body.errors).toEqual([notFound('comment', 'query_root')]);
    expect((await anonymous('{ article { comments { id } } }')).body.errors).toEqual([notFound('comments', 'article')]);
    expect((await anonymous('{ article_aggregate { aggregate { count } } }')).body.errors).toEqual([notFound('article_aggregate', 'query_root')]);
    const types = await anonymous('{ __schema { types { name } queryType { fields { name } } } }');
    const names = JSON.stringify(types.body.data);
    expect(names).not.toContain('comment');
    expect(names).not.toContain('_aggregate');
    expect(names).not.toContain('shelf');
  });
});

describe('hidden rows', () => {
  it('are filtered from root lists whatever the where says', async () => {
    expect((await anonymous('{ article(where: {id: {_in: [2, 5]}}) { id } }')).body.data).toEqual({ article: [] });
    expect((await anonymous('{ article(where: {_not: {title: {_eq: "x"}}}, order_by: {id: asc}) { id } }')).body.data).toEqual({ article: [{ id: 1 }, { id: 3 }] });
  });

  it('are not returned by primary key', async () => {
    expect((await asUser('2', '{ article_by_pk(id: 2) { id } }')).body.data).toEqual({ article_by_pk: null });
    expect((await asUser('1', '{ article_by_pk(id: 2) { id } }')).body.data).toEqual({ article_by_pk: { id: 2 } });
  });

  it('are filtered through array and object relationships', async () => {
    const authors = await asUser('2', '{ author(order_by: {id: asc}) { name articles(order_by: {id: asc}) { id } } }');
    expect(authors.body.data).toEqual({
      author: [
        { name: 'Ada', articles: [{ id: 1 }] },
        { name: 'Brian', articles: [{ id: 3 }, { id: 4 }] },
        { name: 'Chandra', articles: [] },
      ],
    });
    // Comment 4 is on Ada's draft: hidden from the user at the root, and its article is hidden from the comment.
    const comments = await asUser('2', '{ comment(order_by: {id: asc}) { id article { id } } }');
    expect(comments.body.data).toEqual({ comment: [{ id: 1, article: { id: 1 } }, { id: 2, article: { id: 1 } }, { id: 3, article: { id: 3 } }] });
  });

  it('do not count in aggregates, at the root or through relationships', async () => {
    expect((await asUser('3', '{ article_aggregate { aggregate { count } } }')).body.data).toEqual({ article_aggregate: { aggregate: { count: 4 } } });
    const perAuthor = await asUser('2', '{ author(order_by: {id: asc}) { articles_aggregate { aggregate { count } } } }');
    expect(perAuthor.body.data).toEqual({
      author: [1, 2, 0].map((count) => ({ articles_aggregate: { aggregate: { count } } })),
    });
  });

  it('do not match relationship filters', async () => {
    // Every author whose *visible* articles include a draft: none, for anonymous.
    expect((await anonymous('{ author(where: {articles: {title: {_eq: "Drafts"}}}) { id } }')).body.data).toEqual({ author: [] });
    expect((await anonymous('{ author(where: {articles: {title: {_eq: "Poetical Science"}}}) { id } }')).body.data).toEqual({ author: [] });
  });

  it('do not weigh in relationship orderings', async () => {
    // Visible to user 3: Ada 1 article, Brian 2, Chandra 1 (her own draft); unfiltered, Ada would tie Brian first.
    const run = await asUser('3', '{ author(order_by: [{articles_aggregate: {count: desc}}, {id: asc}]) { name } }');
    expect(run.body.data).toEqual({ author: [{ name: 'Brian' }, { name: 'Ada' }, { name: 'Chandra' }] });
  });

  it('beyond the permission limit are never returned', async () => {
    expect((await anonymous('{ article(limit: 100, order_by: {id: desc}) { id } }')).body.data).toEqual({ article: [{ id: 4 }, { id: 3 }] });
    expect((await anonymous('{ author(order_by: {id: asc}) { articles(order_by: {id: asc}) { id } } }')).body.data).toEqual({
      author: [{ articles: [{ id: 1 }] }, { articles: [{ id: 3 }, { id: 4 }] }],
    });
  });
});

describe('values are parameters', () => {
  it('a quote in a value is just a character', async () => {
    expect((await anonymous(`{ author(where: {name: {_eq: "x' or '1'='1"}}) { id } }`)).body.data).toEqual({ author: [] });
  });

  it('a session variable cannot widen a filter', async () => {
    const run = await asUser('1 or true', '{ article { id } }');
    expect(run.body.errors?.[0]?.extensions.code).toBe('data-exception');
    expect(run.body.data).toBeUndefined();
  });

  it('session variable names are matched case-insensitively', async () => {
    const run = await fixture.run('{ article(order_by: {id: asc}) { id } }', { role: 'user', sessionVariables: { 'X-SERVICE-USER-ID': '3' } });
    expect(run.body.data).toEqual({ article: [{ id: 1 }, { id: 3 }, { id: 4 }, { id: 5 }] });
  });
});

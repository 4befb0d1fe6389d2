import { describe, expect, it } from 'vitest';
import { graphqlFailure as failure, trackTables, useSqlFixture } from './sql-fixture.js';

/**
 * Issue 19, validation as lenient as Hasura v2's where its users depend on it, and no
 * further: an unused declared variable is fine; a variable's list items may be declared
 * nullable where the position wants them non-null, but a null item is still refused;
 * `offset` takes an integer written as a string (`limit` does not, as in Hasura); a
 * negative `limit` or `offset` is refused before any SQL with Hasura's `not-supported`.
 * Role `reader` sees two rows at most, whatever is asked.
 */
const fixture = useSqlFixture(
  `
    create table article (id integer primary key, title text not null);
    insert into article select n, 'title ' || n from generate_series(1, 5) as n;
  `,
  [
    ...trackTables('article'),
    { type: 'create_select_permission', args: { table: 'article', role: 'reader', permission: { columns: ['id', 'title'], filter: {}, limit: 2 } } },
  ],
);
const asReader = { 'x-service-role': 'reader' };
const graphql = (body: unknown, headers?: Record<string, string>) => fixture().engine.graphql(body, headers);

const ids = (answer: { json: unknown }) => ((answer.json as { data: { article: Array<{ id: number }> } }).data.article).map((row) => row.id);

describe('variables', () => {
  it('accepts a declared variable the operation does not use', async () => {
    const answer = await graphql({ query: 'query q($unused: Int, $title: String) { article(where: {id: {_eq: 1}}) { id } }', variables: { unused: 3 } });
    expect(answer.json).toEqual({ data: { article: [{ id: 1 }] } });
  });

  it('accepts a list of nullable items where non-null items are expected, when none is null', async () => {
    const answer = await graphql({ query: 'query q($ids: [Int]) { article(where: {id: {_in: $ids}}, order_by: {id: asc}) { id } }', variables: { ids: [2, 3] } });
    expect(answer.json).toEqual({ data: { article: [{ id: 2 }, { id: 3 }] } });
  });

  it('refuses a null item there, before any SQL, at the item\'s path', async () => {
    const answer = await graphql({ query: 'query q($ids: [Int]) { article(where: {id: {_in: $ids}}) { id } }', variables: { ids: [2, null] } });
    expect(answer.json).toEqual(failure('unexpected null value for type "Int"', '$.selectionSet.article.args.where.id._in[1]'));
  });

  it('still refuses a nullable variable where a non-null value is expected, and a variable of another type', async () => {
    const nullable = await graphql({ query: 'query q($id: Int) { article_by_pk(id: $id) { id } }', variables: { id: 1 } });
    expect(nullable.json).toEqual(failure("variable 'id' is declared as 'Int', but used where 'Int!' is expected", '$.selectionSet.article_by_pk.args.id'));
    const other = await graphql({ query: 'query q($ids: [String]) { article(where: {id: {_in: $ids}}) { id } }', variables: { ids: ['1'] } });
    expect(other.json).toEqual(failure("variable 'ids' is declared as '[String]', but used where '[Int!]' is expected", '$.selectionSet.article.args.where.id._in'));
  });

  it('accepts a nullable variable at a non-null position when it has a default, as the GraphQL spec and Hasura do', async () => {
    const answer = await graphql({ query: 'query q($id: Int = 4) { article_by_pk(id: $id) { id } }' });
    expect(answer.json).toEqual({ data: { article_by_pk: { id: 4 } } });
  });
});

describe('limit and offset', () => {
  it('takes an offset written as a string, literal or variable, as Hasura v2 does', async () => {
    const literal = await graphql({ query: '{ article(order_by: {id: asc}, offset: "3") { id } }' });
    expect(ids(literal)).toEqual([4, 5]);
    const variable = await graphql({ query: 'query q($o: Int) { article(order_by: {id: asc}, offset: $o) { id } }', variables: { o: '1' } });
    expect(ids(variable)).toEqual([2, 3, 4, 5]);
  });

  it('refuses an offset string that is not an integer, and a limit written as a string', async () => {
    const literal = await graphql({ query: '{ article(offset: "three") { id } }' });
    expect(literal.json).toEqual(failure('Int cannot represent non-integer value: "three"', '$.selectionSet.article.args.offset'));
    const variable = await graphql({ query: 'query q($o: Int) { article(offset: $o) { id } }', variables: { o: '1.5' } });
    expect((variable.json as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('validation-failed');
    const limit = await graphql({ query: '{ article(limit: "3") { id } }' });
    expect(limit.json).toEqual(failure('Int cannot represent non-integer value: "3"', '$.selectionSet.article.args.limit'));
  });

  it('refuses a negative limit or offset with not-supported, literal or variable, also after the same query ran with a good value', async () => {
    const literal = await graphql({ query: '{ article(limit: -1, offset: 1) { id } }' });
    expect(literal.json).toEqual(failure('unexpected negative value', '$.selectionSet.article.args.limit', 'not-supported'));
    const offset = await graphql({ query: '{ article(offset: "-2") { id } }' });
    expect(offset.json).toEqual(failure('unexpected negative value', '$.selectionSet.article.args.offset', 'not-supported'));
    const query = 'query q($l: Int) { article(order_by: {id: asc}, limit: $l) { id } }';
    expect(ids(await graphql({ query, variables: { l: 1 } }))).toEqual([1]);
    const negative = await graphql({ query, variables: { l: -1 } });
    expect(negative.json).toEqual(failure('unexpected negative value', '$.selectionSet.article.args.limit', 'not-supported'));
    expect(ids(await graphql({ query, variables: { l: 3 } }))).toEqual([1, 2, 3]);
  });

  it('never lets a role past its row limit, whatever the form of limit and offset', async () => {
    const query = 'query q($o: Int, $l: Int) { article(order_by: {id: asc}, limit: $l, offset: $o) { id } }';
    const answer = await graphql({ query, variables: { o: '1', l: 10 } }, asReader);
    expect(ids(answer)).toEqual([2, 3]);
    const unused = await graphql({ query: 'query q($x: Int) { article(order_by: {id: asc}, offset: "2") { id } }', variables: { x: 1 } }, asReader);
    expect(ids(unused)).toEqual([3, 4]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupGraphqlFixture, type GraphqlFixture } from './fixture.js';

/**
 * LIMIT and OFFSET are written into the statement as literals (ARCHITECTURE decision 5),
 * from a validated non-negative integer only; a negative one is refused before any SQL.
 */
let fixture: GraphqlFixture;
beforeAll(async () => {
  fixture = await setupGraphqlFixture();
});
afterAll(async () => {
  await fixture.close();
});

const ids = (rows: unknown) => (rows as Array<{ id: number }>).map((row) => row.id);

describe('LIMIT and OFFSET literals', () => {
  it('writes a literal limit and offset, given inline or as variables, and binds no parameter for them', async () => {
    const inline = await fixture.run('{ article(order_by: {id: asc}, limit: 2, offset: 1) { id } }');
    expect(ids((inline.body.data as { article: unknown }).article)).toEqual([2, 3]);
    expect(inline.statements[0]!.text).toMatch(/ limit 2 offset 1\)/);
    expect(inline.statements[0]!.values).toEqual([]);

    const query = 'query ($n: Int, $o: Int) { article(order_by: {id: asc}, limit: $n, offset: $o) { id } }';
    const first = await fixture.run(query, { variables: { n: 3, o: 0 } });
    const second = await fixture.run(query, { variables: { n: 1, o: 4 } });
    expect(ids((first.body.data as { article: unknown }).article)).toEqual([1, 2, 3]);
    expect(ids((second.body.data as { article: unknown }).article)).toEqual([5]);
    expect(first.statements[0]!.text).toMatch(/ limit 3 offset 0\)/);
    expect(second.statements[0]!.text).toMatch(/ limit 1 offset 4\)/);
    expect(second.statements[0]!.values).toEqual([]);
  });

  it('folds the permission limit into one literal, the smaller of the two', async () => {
    const query = 'query ($n: Int) { article(order_by: {id: asc}, limit: $n) { id } }';
    const above = await fixture.run(query, { role: 'anonymous', variables: { n: 10 } });
    const below = await fixture.run(query, { role: 'anonymous', variables: { n: 1 } });
    const none = await fixture.run(query, { role: 'anonymous', variables: { n: null } });
    expect(ids((above.body.data as { article: unknown }).article)).toEqual([1, 3]);
    expect(ids((below.body.data as { article: unknown }).article)).toEqual([1]);
    expect(ids((none.body.data as { article: unknown }).article)).toEqual([1, 3]);
    expect(above.statements[0]!.text).toMatch(/ limit 2\)/);
    expect(below.statements[0]!.text).toMatch(/ limit 1\)/);
    expect(none.statements[0]!.text).toMatch(/ limit 2\)/);
    for (const run of [above, below, none]) expect(run.statements[0]!.text).not.toContain('least(');
  });

  it('writes literals in nested relationships, aggregates and functions too', async () => {
    const run = await fixture.run(`{
      author(order_by: {id: asc}, limit: 1) { articles(order_by: {id: asc}, limit: 1, offset: 1) { id } }
      article_aggregate(limit: 3, offset: 1, order_by: {id: asc}) { aggregate { count } }
      search_comments(args: {pattern: "%"}, limit: 2, order_by: {id: asc}) { id }
    }`);
    expect(run.body.errors, run.text).toBeUndefined();
    expect(run.body.data).toEqual({
      author: [{ articles: [{ id: 2 }] }],
      article_aggregate: { aggregate: { count: 3 } },
      search_comments: [{ id: 1 }, { id: 2 }],
    });
    expect(run.statements[0]!.text).not.toMatch(/limit \$|offset \$|least\(/);
  });

  it('refuses a negative limit or offset before any SQL, inline or from a variable', async () => {
    const cases = [
      { query: '{ article(limit: -1) { id } }', path: '$.selectionSet.article.args.limit' },
      { query: '{ article(offset: -2) { id } }', path: '$.selectionSet.article.args.offset' },
      { query: 'query ($n: Int) { author { articles(limit: $n) { id } } }', variables: { n: -5 }, path: '$.selectionSet.author.selectionSet.articles.args.limit' },
      { query: 'query ($n: Int) { article_aggregate(offset: $n) { aggregate { count } } }', variables: { n: -1 }, path: '$.selectionSet.article_aggregate.args.offset' },
    ];
    for (const { query, variables, path } of cases) {
      const run = await fixture.run(query, variables === undefined ? {} : { variables });
      expect(run.body.errors, run.text).toEqual([{ message: 'unexpected negative value', extensions: { path, code: 'not-supported' } }]);
      expect(run.statements).toHaveLength(0);
    }
  });
});

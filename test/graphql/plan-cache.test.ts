import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LruCache } from '../../src/cache/lru.js';
import { setupGraphqlFixture, type GraphqlFixture } from './fixture.js';

/**
 * A compiled statement is reused across requests whose variables have the same shape:
 * values only change parameters, while variables that shape the SQL (objects, enums,
 * directive conditions, nullness) select another plan.
 */
let fixture: GraphqlFixture;
beforeAll(async () => {
  fixture = await setupGraphqlFixture();
});
afterAll(async () => {
  await fixture.close();
});

describe('plan reuse', () => {
  it('runs one prepared statement for every value of a parameter variable', async () => {
    const query = 'query ($id: Int!) { article_by_pk(id: $id) { title } }';
    const first = await fixture.run(query, { variables: { id: 1 } });
    const second = await fixture.run(query, { variables: { id: 3 } });
    expect(first.body.data).toEqual({ article_by_pk: { title: 'Notes on the Engine' } });
    expect(second.body.data).toEqual({ article_by_pk: { title: 'The C Book' } });
    expect(second.statements[0]!.text).toBe(first.statements[0]!.text);
    expect(second.statements[0]!.values).toEqual([3]);
  });

  it('compiles another statement when an object variable changes shape', async () => {
    const query = 'query ($w: author_bool_exp) { author(where: $w, order_by: {id: asc}) { id } }';
    const byName = await fixture.run(query, { variables: { w: { name: { _eq: 'Ada' } } } });
    const byId = await fixture.run(query, { variables: { w: { id: { _gt: 1 } } } });
    expect(byName.body.data).toEqual({ author: [{ id: 1 }] });
    expect(byId.body.data).toEqual({ author: [{ id: 2 }, { id: 3 }] });
    expect(byId.statements[0]!.text).not.toBe(byName.statements[0]!.text);
  });

  it('follows @include conditions given as variables', async () => {
    const query = 'query ($more: Boolean!) { author_by_pk(id: 1) { name email @include(if: $more) } }';
    expect((await fixture.run(query, { variables: { more: true } })).body.data).toEqual({ author_by_pk: { name: 'Ada', email: 'ada@example.com' } });
    expect((await fixture.run(query, { variables: { more: false } })).body.data).toEqual({ author_by_pk: { name: 'Ada' } });
    expect((await fixture.run(query, { variables: { more: true } })).body.data).toEqual({ author_by_pk: { name: 'Ada', email: 'ada@example.com' } });
  });

  it('treats a null limit as no limit and a given one as a parameter', async () => {
    const query = 'query ($n: Int) { author(limit: $n, order_by: {id: asc}) { id } }';
    expect((await fixture.run(query, { variables: { n: null } })).body.data).toEqual({ author: [{ id: 1 }, { id: 2 }, { id: 3 }] });
    expect((await fixture.run(query, { variables: { n: 1 } })).body.data).toEqual({ author: [{ id: 1 }] });
    expect((await fixture.run(query, { variables: { n: 2 } })).body.data).toEqual({ author: [{ id: 1 }, { id: 2 }] });
  });

  it('binds session variables per request into a shared statement', async () => {
    const query = '{ article_aggregate { aggregate { count } } }';
    const own = (id: string) => fixture.run(query, { role: 'user', sessionVariables: { 'x-service-user-id': id } });
    const ada = await own('1');
    const chandra = await own('3');
    // Published articles are 1, 3 and 4; Ada also sees her draft 2, Chandra hers, 5.
    expect(ada.body.data).toEqual({ article_aggregate: { aggregate: { count: 4 } } });
    expect(chandra.body.data).toEqual({ article_aggregate: { aggregate: { count: 4 } } });
    expect(chandra.statements[0]!.text).toBe(ada.statements[0]!.text);
    expect(chandra.statements[0]!.values).toContain('3');
  });
});

describe('response bytes', () => {
  it('carry Postgres JSON unparsed: a bigint beyond 2^53 keeps every digit', async () => {
    const run = await fixture.run('{ article_by_pk(id: 1) { views } }');
    expect(run.text).toBe('{"data":{"article_by_pk" : {"views" : 9007199254740993}}}');
  });
});

describe('the document cache', () => {
  it('evicts the entry used longest ago once full', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    cache.set('c', 4);
    cache.set('d', 5);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('c'), cache.get('d')]).toEqual([4, 5]);
  });
});

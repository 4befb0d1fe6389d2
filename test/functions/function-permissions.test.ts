import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, asUser, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/**
 * SERVICE_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false (compat-facts 6.2 "Function
 * permissions", 9): a role queries a function only with an explicit function permission,
 * besides read access to the return table; admin is not affected.
 */
let fx: FunctionsFixture;

beforeAll(async () => {
  fx = await startFunctionsFixture({ SERVICE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'false' });
  const tracked = await fx.query({
    type: 'bulk',
    args: [
      { type: 'track_function', args: { schema: 'public', name: 'search_articles' } },
      { type: 'track_function', args: 'stable_articles' },
      { type: 'create_select_permission', args: { table: 'article', role: 'reader', permission: { columns: ['id'], filter: {}, allow_aggregations: true } } },
    ],
  });
  expect(tracked.json).toEqual(Array(3).fill({ message: 'success' }));
});

afterAll(async () => {
  await fx?.stop();
});

const notFound = (field: string) => `field '${field}' not found in type: 'query_root'`;

describe('function permissions that are not inferred', () => {
  it('are reported by the config API', async () => {
    const config = await fx.engine.get('/v1alpha1/config', admin);
    expect(config.json.is_function_permissions_inferred).toBe(false);
  });

  it('hide a function from a role that may read its return table but has no function permission', async () => {
    const data = await fx.gql('{ stable_articles { id } }', asUser(1));
    expect(data.errors[0].message).toBe(notFound('stable_articles'));
    const aggregate = await fx.gql('{ stable_articles_aggregate { aggregate { count } } }', { ...admin, 'x-service-role': 'reader' });
    expect(aggregate.errors[0].message).toBe(notFound('stable_articles_aggregate'));
  });

  it('still serve admin', async () => {
    expect(await fx.gql('{ stable_articles(where: {id: {_eq: 12}}) { id } }')).toEqual({ data: { stable_articles: [{ id: 12 }] } });
  });

  it('let a role query the function once it is granted, with the return table\'s filter', async () => {
    const granted = await fx.query({
      type: 'bulk',
      args: [
        { type: 'create_function_permission', args: { function: 'stable_articles', role: 'user' } },
        { type: 'create_function_permission', args: { function: 'stable_articles', role: 'reader' } },
      ],
    });
    expect(granted.json).toEqual(Array(2).fill({ message: 'success' }));
    // User 2 sees the published articles and its own: 10, 12, 14 are published, 12 and 14 are its own.
    expect(await fx.gql('{ stable_articles(order_by: {id: asc}) { id } }', asUser(2))).toEqual({ data: { stable_articles: [{ id: 10 }, { id: 12 }, { id: 14 }] } });
    expect(await fx.gql('{ stable_articles_aggregate { aggregate { count } } }', { ...admin, 'x-service-role': 'reader' })).toEqual({
      data: { stable_articles_aggregate: { aggregate: { count: 5 } } },
    });
    // A permission is per function: search_articles stays hidden.
    expect((await fx.gql('{ search_articles(args: {search: "x"}) { id } }', asUser(2))).errors[0].message).toBe(notFound('search_articles'));
  });
});

describe('function permissions by default', () => {
  it('are inferred, as the config API says', async () => {
    const inferred = await startFunctionsFixture();
    try {
      expect((await inferred.engine.get('/v1alpha1/config', admin)).json.is_function_permissions_inferred).toBe(true);
      await inferred.query({ type: 'track_function', args: 'stable_articles' });
      expect(await inferred.gql('{ stable_articles(where: {id: {_eq: 11}}) { id } }', asUser(1))).toEqual({ data: { stable_articles: [{ id: 11 }] } });
    } finally {
      await inferred.stop();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { startFixtureServer, type FixtureServer } from '../remote/fixture-server.js';
import { legacyClient, modernClient, type Watch } from './clients.js';

/**
 * Every kind of query root field as a subscription, per role, refreshed by the engine's
 * own mutations; streams in cursor order over both protocols; a subscription planned
 * again (or ended) when the metadata changes; and the refusals of what is not served.
 */
const SECRET = 'root-fields-secret';
const admin = { 'x-service-admin-secret': SECRET };
const asUser = (tenant: string) => ({ ...admin, 'x-service-role': 'user', 'x-service-tenant': tenant });
let db: TestDatabase;
let engine: TestEngine;
let remote: FixtureServer;

beforeAll(async () => {
  db = await createTestDatabase();
  remote = await startFixtureServer();
  await db.sql(`
    create table author (id int primary key, name text not null, tenant text not null);
    create table article (id int primary key, author_id int not null references author(id), title text not null, rating int not null, tenant text not null);
    insert into author values (1, 'Ada', 'acme'), (2, 'Brian', 'acme'), (3, 'Cleo', 'globex');
    insert into article values (10, 1, 'Engines', 5, 'acme'), (11, 1, 'Engine notes', 3, 'acme'), (12, 2, 'Pipes', 4, 'acme'), (13, 3, 'Engine room', 2, 'globex');
    create function search_articles(search text) returns setof article
      language sql stable as $$ select * from article where title ilike '%' || search || '%' $$;
    create function tenant_articles(service_session json) returns setof article
      language sql stable as $$ select * from article where tenant = service_session ->> 'x-service-tenant' $$;
    create function author_article_count(author_row author) returns bigint
      language sql stable as $$ select count(*) from article where author_id = author_row.id $$;
  `);
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET } });
  for (const operation of [
    { type: 'track_table', args: { table: 'author' } },
    { type: 'track_table', args: { table: 'article' } },
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
    { type: 'track_function', args: 'search_articles' },
    { type: 'track_function', version: 2, args: { function: 'tenant_articles', configuration: { session_argument: 'service_session' } } },
    { type: 'add_computed_field', args: { table: 'author', name: 'article_count', definition: { function: 'author_article_count' } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], computed_fields: ['article_count'], filter: { tenant: { _eq: 'X-Service-Tenant' } } } } },
    { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'rating', 'author_id'], filter: { tenant: { _eq: 'X-Service-Tenant' } }, allow_aggregations: true } } },
    { type: 'add_remote_schema', args: { name: 'people', definition: { url: remote.url } } },
  ]) {
    const result = await engine.query(operation);
    expect(result.status, `${JSON.stringify(operation)}: ${result.text}`).toBe(200);
  }
});

afterAll(async () => {
  await engine?.stop();
  await remote?.stop();
  await db?.drop();
});

const mutate = async (query: string) => {
  const { json } = await engine.graphql({ query });
  expect(json.errors).toBeUndefined();
};

/** The last result once it equals `expected` (results keep coming until it does, or the wait ends). */
async function settlesTo(watch: Watch, expected: unknown, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let count = watch.results.length; Date.now() < deadline; count = watch.results.length + 1) {
    const results = await watch.waitFor(count, Math.max(1, deadline - Date.now())).catch(() => watch.results);
    if (JSON.stringify(results.at(-1)) === JSON.stringify(expected)) return;
    if (watch.error !== undefined || watch.completed) break;
  }
  expect(watch.results.at(-1)).toEqual(expected);
}

describe('every query root field as a live query', () => {
  it('answers each kind at once, per role, and again after a mutation through the engine', async () => {
    const adminClient = modernClient(engine.url, admin);
    const acme = modernClient(engine.url, asUser('acme'));
    const byPk = adminClient.subscribe('subscription { article_by_pk(id: 12) { title author { name } } }');
    const aggregate = acme.subscribe('subscription { article_aggregate { aggregate { count max { rating } } } }');
    const search = adminClient.subscribe('subscription S($term: String!) { search_articles(args: {search: $term}, order_by: {id: asc}) { id } }', { term: 'engine' });
    const mine = acme.subscribe('subscription { tenant_articles(order_by: {id: asc}) { id } }');
    const nested = acme.subscribe(`subscription {
      author(order_by: {id: asc}) { name article_count articles(where: {rating: {_gte: 3}}, order_by: {rating: desc}, limit: 1, offset: 0) { title } }
    }`);
    const distinct = adminClient.subscribe('subscription { article(distinct_on: author_id, order_by: [{author_id: asc}, {rating: desc}]) { author_id title } }');

    expect((await byPk.waitFor(1))[0]).toEqual({ data: { article_by_pk: { title: 'Pipes', author: { name: 'Brian' } } } });
    expect((await aggregate.waitFor(1))[0]).toEqual({ data: { article_aggregate: { aggregate: { count: 3, max: { rating: 5 } } } } });
    expect((await search.waitFor(1))[0]).toEqual({ data: { search_articles: [{ id: 10 }, { id: 11 }, { id: 13 }] } });
    expect((await mine.waitFor(1))[0]).toEqual({ data: { tenant_articles: [{ id: 10 }, { id: 11 }, { id: 12 }] } });
    expect((await nested.waitFor(1))[0]).toEqual({
      data: { author: [{ name: 'Ada', article_count: 2, articles: [{ title: 'Engines' }] }, { name: 'Brian', article_count: 1, articles: [{ title: 'Pipes' }] }] },
    });
    expect((await distinct.waitFor(1))[0]).toEqual({ data: { article: [{ author_id: 1, title: 'Engines' }, { author_id: 2, title: 'Pipes' }, { author_id: 3, title: 'Engine room' }] } });

    await mutate(`mutation {
      insert_article(objects: [{id: 14, author_id: 2, title: "Engine bay", rating: 9, tenant: "acme"}]) { affected_rows }
      update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Bea"}) { id }
    }`);

    await settlesTo(byPk, { data: { article_by_pk: { title: 'Pipes', author: { name: 'Bea' } } } });
    await settlesTo(aggregate, { data: { article_aggregate: { aggregate: { count: 4, max: { rating: 9 } } } } });
    await settlesTo(search, { data: { search_articles: [{ id: 10 }, { id: 11 }, { id: 13 }, { id: 14 }] } });
    await settlesTo(mine, { data: { tenant_articles: [{ id: 10 }, { id: 11 }, { id: 12 }, { id: 14 }] } });
    await settlesTo(nested, {
      data: { author: [{ name: 'Ada', article_count: 2, articles: [{ title: 'Engines' }] }, { name: 'Bea', article_count: 2, articles: [{ title: 'Engine bay' }] }] },
    });
    await settlesTo(distinct, { data: { article: [{ author_id: 1, title: 'Engines' }, { author_id: 2, title: 'Engine bay' }, { author_id: 3, title: 'Engine room' }] } });

    await adminClient.close();
    await acme.close();
    await mutate('mutation { delete_article_by_pk(id: 14) { id } update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Brian"}) { id } }');
  });

  it('never sends a result equal to the last one sent', async () => {
    const { subscribe, close } = modernClient(engine.url, admin);
    const watch = subscribe('subscription { article(where: {rating: {_gte: 4}}, order_by: {id: asc}) { id } }');
    expect(await watch.waitFor(1)).toEqual([{ data: { article: [{ id: 10 }, { id: 12 }] } }]);
    // Changes to the table that leave this result as it was: the poller fetches, and sends nothing.
    await mutate('mutation { update_article(where: {id: {_in: [11, 13]}}, _set: {title: "renamed"}) { affected_rows } }');
    await db.sql('update article set rating = rating where id = 10');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(watch.results).toHaveLength(1);
    await db.sql('update article set rating = 1 where id = 12');
    await settlesTo(watch, { data: { article: [{ id: 10 }] } });
    expect(watch.results).toHaveLength(2);
    await close();
    await db.sql("update article set rating = 4 where id = 12; update article set title = 'Engine notes' where id = 11; update article set title = 'Engine room' where id = 13");
  });

  it('filters rows per subscriber by its session variables, in one shared plan', async () => {
    const acme = legacyClient(engine.url, asUser('acme'));
    const globex = legacyClient(engine.url, asUser('globex'));
    const query = 'subscription { article(order_by: {id: asc}) { id } }';
    const [ofAcme, ofGlobex] = [acme.subscribe(query), globex.subscribe(query)];
    expect((await ofAcme.waitFor(1))[0]).toEqual({ data: { article: [{ id: 10 }, { id: 11 }, { id: 12 }] } });
    expect((await ofGlobex.waitFor(1))[0]).toEqual({ data: { article: [{ id: 13 }] } });
    await db.sql("insert into article values (15, 3, 'Globex news', 1, 'globex')");
    await settlesTo(ofGlobex, { data: { article: [{ id: 13 }, { id: 15 }] } });
    expect(ofAcme.results).toHaveLength(1);
    acme.close();
    globex.close();
    await db.sql('delete from article where id = 15');
  });
});

describe('streaming subscriptions', () => {
  const STREAM = 'subscription { article_stream(batch_size: 2, cursor: {initial_value: {id: 0}, ordering: ASC}) { id title } }';

  it('send the rows after the cursor in batches, then each new row as it comes (graphql-transport-ws)', async () => {
    const { subscribe, close } = modernClient(engine.url, admin);
    const stream = subscribe(STREAM);
    expect(await stream.waitFor(2)).toEqual([
      { data: { article_stream: [{ id: 10, title: 'Engines' }, { id: 11, title: 'Engine notes' }] } },
      { data: { article_stream: [{ id: 12, title: 'Pipes' }, { id: 13, title: 'Engine room' }] } },
    ]);
    await mutate('mutation { insert_article_one(object: {id: 20, author_id: 1, title: "Later", rating: 1, tenant: "acme"}) { id } }');
    expect((await stream.waitFor(3))[2]).toEqual({ data: { article_stream: [{ id: 20, title: 'Later' }] } });
    // A row before the cursor is never sent.
    await db.sql("insert into article values (16, 1, 'Behind the cursor', 1, 'acme')");
    await db.sql("insert into article values (21, 1, 'After it', 1, 'acme')");
    expect((await stream.waitFor(4))[3]).toEqual({ data: { article_stream: [{ id: 21, title: 'After it' }] } });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(stream.results).toHaveLength(4);
    await close();
    await db.sql('delete from article where id in (16, 20, 21)');
  });

  it('keep a cursor per subscriber, with the role filter (legacy protocol)', async () => {
    const globex = legacyClient(engine.url, asUser('globex'));
    const stream = globex.subscribe('subscription { article_stream(batch_size: 10, cursor: {initial_value: {id: 12}}, where: {rating: {_lt: 10}}) { id } }');
    expect((await stream.waitFor(1))[0]).toEqual({ data: { article_stream: [{ id: 13 }] } });
    await db.sql("insert into article values (30, 1, 'acme only', 1, 'acme'), (31, 3, 'globex too', 1, 'globex'), (32, 3, 'too high', 10, 'globex')");
    expect((await stream.waitFor(2))[1]).toEqual({ data: { article_stream: [{ id: 31 }] } });
    globex.close();
    await db.sql('delete from article where id >= 30');
  });

  it('refuse a cursor on a column the role may not read', async () => {
    const { subscribe, close } = modernClient(engine.url, asUser('acme'));
    const stream = subscribe('subscription { article_stream(batch_size: 1, cursor: {initial_value: {tenant: "a"}}) { id } }');
    await stream.waitFor(1);
    expect(String((stream.error as { message?: string }[] | undefined)?.[0]?.message ?? stream.error)).toContain('tenant');
    await close();
  });
});

describe('the subscription schema', () => {
  it("is the role's query schema, shown by introspection as subscription_root", async () => {
    const fields = async (headers: Record<string, string>) => {
      const { json } = await engine.graphql({ query: '{ __schema { subscriptionType { name fields { name } } } }' }, headers);
      return json.data.__schema.subscriptionType;
    };
    const ofAdmin = await fields(admin);
    expect(ofAdmin.name).toBe('subscription_root');
    expect(ofAdmin.fields.map((field: { name: string }) => field.name).sort()).toEqual(
      ['article', 'article_aggregate', 'article_by_pk', 'article_stream', 'author', 'author_aggregate', 'author_by_pk', 'author_stream', 'search_articles', 'search_articles_aggregate', 'tenant_articles', 'tenant_articles_aggregate'].sort(),
    );
    const ofUser = (await fields(asUser('acme'))).fields.map((field: { name: string }) => field.name).sort();
    expect(ofUser).toEqual(['article', 'article_aggregate', 'article_by_pk', 'article_stream', 'author', 'author_by_pk', 'author_stream', 'search_articles', 'search_articles_aggregate', 'tenant_articles', 'tenant_articles_aggregate'].sort());
  });

  it("refuses a remote server's subscription field with Hasura's error, over the socket", async () => {
    const { subscribe, close } = modernClient(engine.url, admin);
    const ticks = subscribe('subscription { ticks }');
    await ticks.waitFor(1);
    expect(ticks.error).toEqual([{ message: 'subscription to remote server is not supported', extensions: { path: '$', code: 'not-supported' } }]);
    await close();
  });

  it('plans a running subscription again when the metadata changes, and ends it when the role loses the table', async () => {
    const { subscribe, close } = modernClient(engine.url, asUser('acme'));
    const watch = subscribe('subscription { article(where: {id: {_eq: 10}}) { id title } }');
    expect((await watch.waitFor(1))[0]).toEqual({ data: { article: [{ id: 10, title: 'Engines' }] } });
    // A narrower filter: the running subscription follows it.
    const narrower = { columns: ['id', 'title'], filter: { _and: [{ tenant: { _eq: 'X-Service-Tenant' } }, { rating: { _gt: 5 } }] } };
    const replaced = await engine.query({ type: 'bulk', args: [{ type: 'drop_select_permission', args: { table: 'article', role: 'user' } }, { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: narrower } }] });
    expect(replaced.status).toBe(200);
    expect((await watch.waitFor(2))[1]).toEqual({ data: { article: [] } });
    expect((await engine.query({ type: 'drop_select_permission', args: { table: 'article', role: 'user' } })).status).toBe(200);
    // The subscription ends with a last result that says why, then completes.
    await watch.waitFor(4);
    expect(watch.results[2]).toEqual({ data: null, errors: [{ message: "field 'article' not found in type: 'subscription_root'", extensions: { path: '$.selectionSet.article', code: 'validation-failed' } }] });
    expect(watch.completed).toBe(true);
    await close();
    expect(
      (await engine.query({ type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'rating', 'author_id'], filter: { tenant: { _eq: 'X-Service-Tenant' } }, allow_aggregations: true } } })).status,
    ).toBe(200);
  });
});

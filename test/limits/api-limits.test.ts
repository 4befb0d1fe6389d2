import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, testPrefix, type TestEngine } from '../harness/engine.js';
import { modernClient } from '../subscriptions/clients.js';

/**
 * API limits (issue 14), in Hasura's metadata shape: set_api_limits / remove_api_limits,
 * carried by export and replace; depth, node, batch and time limits per role; the rate
 * limit counted in JetStream KV across instances; admin exempt.
 */
let database: TestDatabase;
let engine: TestEngine;
/** A second instance of the same cluster (same prefix, database and NATS). */
let peer: TestEngine;

const SETUP_SQL = `
  create table author (id integer primary key, name text not null);
  create table article (id integer primary key, author_id integer not null references author(id), title text not null);
  insert into author values (1, 'Ada'), (2, 'Brian');
  insert into article values (10, 1, 'On engines'), (11, 2, 'On looms');
  create function slow_authors(seconds float8) returns setof author language sql stable as $$ select * from author where pg_sleep(seconds) is not null $$;
`;

const user = (id = '1', extra: Record<string, string> = {}) => ({ 'x-service-role': 'user', 'x-service-user-id': id, ...extra });
const editor = { 'x-service-role': 'editor' };

const DEPTH_3 = '{ author { articles { author { id } } } }';
const DEPTH_1 = '{ author { id name } }';

async function setLimits(args: unknown) {
  const answer = await engine.query({ type: 'set_api_limits', args });
  expect(answer.json).toEqual({ message: 'success' });
  // A metadata operation brings an instance up to the stored version first (read-your-writes).
  await peer.query({ type: 'export_metadata', args: {} });
}

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql(SETUP_SQL);
  const prefix = testPrefix();
  // As behind a proxy that sets x-forwarded-for.
  const env = { SERVICE_GRAPHQL_TRUST_PROXY_HEADERS: 'true' };
  engine = await startTestEngine({ databaseUrl: database.url, prefix, env });
  peer = await startTestEngine({ databaseUrl: database.url, prefix, env });
  const permission = { columns: ['id', 'name'], filter: {} };
  const setup = await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'track_function', args: { schema: 'public', name: 'slow_authors' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      ...['user', 'editor'].flatMap((role) => [
        { type: 'create_select_permission', args: { table: 'author', role, permission } },
        { type: 'create_select_permission', args: { table: 'article', role, permission: { columns: ['id', 'title'], filter: {} } } },
      ]),
    ],
  });
  expect(setup.json).toEqual(Array(9).fill({ message: 'success' }));
});

afterAll(async () => {
  await peer?.stop();
  await engine?.stop();
  await database?.drop();
});

describe('the metadata', () => {
  it('sets, exports, replaces and removes api_limits in Hasura\'s shape', async () => {
    await setLimits({ depth_limit: { global: 5, per_role: { user: 3 } }, rate_limit: { global: { max_reqs_per_min: 100, unique_params: 'ip' } }, time_limit: { global: 2.5 } });
    const exported = (await engine.query({ type: 'export_metadata', args: {} })).json;
    expect(exported.api_limits).toEqual({
      disabled: false,
      depth_limit: { global: 5, per_role: { user: 3 } },
      time_limit: { global: 2.5, per_role: {} },
      rate_limit: { global: { max_reqs_per_min: 100, unique_params: 'IP' }, per_role: {} },
    });
    expect(Object.keys(exported.api_limits)).toEqual(['disabled', 'depth_limit', 'time_limit', 'rate_limit']);

    expect((await engine.query({ type: 'remove_api_limits', args: {} })).json).toEqual({ message: 'success' });
    expect((await engine.query({ type: 'export_metadata', args: {} })).json).not.toHaveProperty('api_limits');

    expect((await engine.query({ type: 'replace_metadata', args: exported })).json).toEqual({ message: 'success' });
    expect((await engine.query({ type: 'export_metadata', args: {} })).json).toEqual(exported);
    // The other instance serves the limits it did not set itself, once the change's broadcast reaches it.
    const deep = { query: '{ author { articles { author { articles { id } } } } }' };
    let refused: unknown;
    for (let attempt = 0; attempt < 50 && refused === undefined; attempt++) {
      refused = (await peer.graphql(deep, user())).json.errors?.[0];
      if (refused === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refused).toEqual({ message: 'node depth limit exceeded', extensions: { path: '$', code: 'bad-request' } });
    await engine.query({ type: 'remove_api_limits', args: {} });
  });

  it.each([
    ['unique_params that is no session variable', { rate_limit: { global: { max_reqs_per_min: 1, unique_params: ['user-id'] } } }, 'parse-failed', "Not a valid value. Should be either: 'IP' or a list of Hasura session variables"],
    ['unique_params naming the role', { rate_limit: { global: { max_reqs_per_min: 1, unique_params: ['x-service-role'] } } }, 'parse-failed', "Not a valid value. Should be either: 'IP' or a list of Hasura session variables"],
    ['unique_params of another string', { rate_limit: { global: { max_reqs_per_min: 1, unique_params: 'cookie' } } }, 'parse-failed', "Not a valid value. Should be either: 'IP' or a list of Hasura session variables"],
  ])('refuses %s with Hasura\'s message', async (_what, args, code, message) => {
    const answer = await engine.query({ type: 'set_api_limits', args });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code, error: message });
  });

  it.each([
    ['a negative depth', { depth_limit: { global: -1 } }],
    ['a limit without global', { node_limit: { per_role: { user: 3 } } }],
    ['a fractional node count', { node_limit: { global: 1.5 } }],
    ['a time limit of zero', { time_limit: { global: 0 } }],
    ['an unknown limit', { query_limit: { global: 1 } }],
    ['a rate limit without max_reqs_per_min', { rate_limit: { global: { unique_params: 'IP' } } }],
    ['a per-role value of the wrong type', { batch_limit: { global: 1, per_role: { user: 'two' } } }],
    ['an empty role name', { depth_limit: { global: 1, per_role: { '': 2 } } }],
  ])('refuses %s, leaving the limits as they were', async (_what, args) => {
    const answer = await engine.query({ type: 'set_api_limits', args });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toMatch(/parse-failed|validation-failed|invalid/);
    expect((await engine.query({ type: 'export_metadata', args: {} })).json).not.toHaveProperty('api_limits');
  });

  it('refuses a replace_metadata whose api_limits are malformed', async () => {
    const current = (await engine.query({ type: 'export_metadata', args: {} })).json;
    const answer = await engine.query({ type: 'replace_metadata', args: { ...current, api_limits: { disabled: false, rate_limit: { global: { max_reqs_per_min: 5, unique_params: ['x-service-role'] } } } } });
    expect(answer.status).toBe(400);
    expect(answer.json.path).toBe('$.args.api_limits.rate_limit.global.unique_params');
  });
});

describe('depth and node limits', () => {
  afterAll(() => engine.query({ type: 'remove_api_limits', args: {} }));

  it('refuse a query deeper than the role\'s depth limit, before any SQL', async () => {
    await setLimits({ depth_limit: { global: 2, per_role: { editor: 3 } } });
    expect((await engine.graphql({ query: DEPTH_1 }, user())).json.data.author).toHaveLength(2);
    expect((await engine.graphql({ query: DEPTH_3 }, user())).json).toEqual({ errors: [{ message: 'node depth limit exceeded', extensions: { path: '$', code: 'bad-request' } }] });
    // Fragments and inline fragments add no depth, but what they hold does.
    const viaFragments = 'query { author { ...A } } fragment A on author { articles { ... on article { author { id } } } }';
    expect((await engine.graphql({ query: viaFragments }, user())).json.errors[0].message).toBe('node depth limit exceeded');
    expect((await engine.graphql({ query: DEPTH_3 }, editor)).json.data.author).toHaveLength(2);
    expect((await engine.graphql({ query: DEPTH_3 })).json.data.author).toHaveLength(2);
  });

  it('bind a role named after an Object.prototype member like any other', async () => {
    await setLimits({ batch_limit: { global: 1, per_role: { user: 5 } } });
    for (const role of ['constructor', 'toString', '__proto__']) {
      const answer = await engine.graphql([{ query: '{ __typename }' }, { query: '{ __typename }' }], { 'x-service-role': role });
      expect(answer.json).toEqual({ errors: [{ message: 'too many batched requests in a single request', extensions: { path: '$', code: 'bad-request' } }] });
    }
  });

  it('do not count introspection', async () => {
    const answer = await engine.graphql({ query: '{ __schema { types { fields { type { ofType { name } } } } } }' }, user());
    expect(answer.json.errors).toBeUndefined();
  });

  it('refuse a query with more nodes than the node limit', async () => {
    await setLimits({ node_limit: { global: 2 } });
    // author and articles: 2 nodes; aliases count each time.
    expect((await engine.graphql({ query: '{ author { id articles { id } } }' }, user())).json.errors).toBeUndefined();
    const aliased = '{ a: author { id } b: author { id } c: author { id } }';
    expect((await engine.graphql({ query: aliased }, user())).json).toEqual({ errors: [{ message: 'too many nodes in a single query', extensions: { path: '$', code: 'bad-request' } }] });
  });

  it('apply to subscriptions too', async () => {
    await setLimits({ depth_limit: { global: 1 } });
    const client = modernClient(engine.url, user());
    try {
      const watch = client.subscribe(`subscription ${DEPTH_3}`);
      await watch.waitFor(1);
      expect(watch.error).toEqual([{ message: 'node depth limit exceeded', extensions: { path: '$', code: 'bad-request' } }]);
    } finally {
      await client.close();
    }
  });

  it('do not bind when disabled', async () => {
    await setLimits({ disabled: true, depth_limit: { global: 1 } });
    expect((await engine.graphql({ query: DEPTH_3 }, user())).json.data.author).toHaveLength(2);
  });
});

describe('the batch limit', () => {
  afterAll(() => engine.query({ type: 'remove_api_limits', args: {} }));

  it('refuses a batch of more operations than the limit, and serves one within it', async () => {
    await setLimits({ batch_limit: { global: 2 } });
    const two = await engine.graphql([{ query: DEPTH_1 }, { query: DEPTH_1 }], user());
    expect(two.json).toHaveLength(2);
    const three = await engine.graphql([{ query: DEPTH_1 }, { query: DEPTH_1 }, { query: DEPTH_1 }], user());
    expect(three.json).toEqual({ errors: [{ message: 'too many batched requests in a single request', extensions: { path: '$', code: 'bad-request' } }] });
    expect((await engine.graphql([{ query: DEPTH_1 }, { query: DEPTH_1 }, { query: DEPTH_1 }])).json).toHaveLength(3);
  });
});

describe('the time limit', () => {
  afterAll(() => engine.query({ type: 'remove_api_limits', args: {} }));

  it('cancels the role\'s statement when its seconds are up', async () => {
    await setLimits({ time_limit: { global: 30, per_role: { user: 0.5 } } });
    const started = Date.now();
    const answer = await engine.graphql({ query: '{ slow_authors(args: {seconds: 20}) { id } }' }, user());
    expect(answer.json).toEqual({ errors: [{ message: 'operation timed out', extensions: { path: '$', code: 'time-limit-exceeded' } }] });
    expect(Date.now() - started).toBeLessThan(5000);
    const short = await engine.graphql({ query: '{ slow_authors(args: {seconds: 0.1}) { id } }' }, editor);
    expect(short.json.data.slow_authors).toHaveLength(2);
  });
});

describe('the rate limit', () => {
  afterAll(() => engine.query({ type: 'remove_api_limits', args: {} }));

  it('counts a role\'s operations across the cluster\'s instances', async () => {
    await setLimits({ rate_limit: { global: { max_reqs_per_min: 4 } } });
    const answers = [];
    for (const target of [engine, peer, engine, peer, engine, peer]) answers.push((await target.graphql({ query: DEPTH_1 }, user())).json);
    expect(answers.slice(0, 4).every((answer) => answer.data !== undefined)).toBe(true);
    expect(answers.slice(4)).toEqual(Array(2).fill({ errors: [{ message: 'rate limit of 4 exceeded', extensions: { path: '$', code: 'rate-limit-exceeded' } }] }));
    // Another role has its own count; admin is never limited.
    expect((await peer.graphql({ query: DEPTH_1 }, editor)).json.data).toBeDefined();
    expect((await peer.graphql({ query: DEPTH_1 })).json.data).toBeDefined();
  });

  it('counts per client IP, as the proxy reports it, when unique_params is IP', async () => {
    await setLimits({ rate_limit: { global: { max_reqs_per_min: 1, unique_params: 'IP' } } });
    const from = (ip: string) => user('1', { 'x-forwarded-for': `${ip}, 10.0.0.1` });
    expect((await engine.graphql({ query: DEPTH_1 }, from('192.0.2.1'))).json.data).toBeDefined();
    expect((await peer.graphql({ query: DEPTH_1 }, from('192.0.2.1'))).json.errors[0].extensions.code).toBe('rate-limit-exceeded');
    expect((await peer.graphql({ query: DEPTH_1 }, from('192.0.2.2'))).json.data).toBeDefined();
  });

  it('counts per session variable values, per role', async () => {
    await setLimits({ rate_limit: { global: { max_reqs_per_min: 10 }, per_role: { user: { max_reqs_per_min: 2, unique_params: ['X-Service-User-Id'] } } } });
    const batch = [{ query: DEPTH_1 }, { query: DEPTH_1 }];
    expect((await engine.graphql(batch, user('5'))).json).toHaveLength(2);
    // Each operation of a batch counts.
    expect((await engine.graphql({ query: DEPTH_1 }, user('5'))).json.errors[0].message).toBe('rate limit of 2 exceeded');
    expect((await engine.graphql({ query: DEPTH_1 }, user('6'))).json.data).toBeDefined();
  });
});

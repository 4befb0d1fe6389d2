import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { http, startTestEngine, type TestEngine } from '../harness/engine.js';
import { openRaw } from '../subscriptions/raw-socket.js';

const SECRET = 'bad-input-secret';
const admin = { 'x-service-admin-secret': SECRET };
const asUser = { ...admin, 'x-service-role': 'user' };
let db: TestDatabase;
let engine: TestEngine;

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };
const doc = { schema: 'public', name: 'doc' };

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id serial primary key, name text not null);
    create table article (id serial primary key, author_id int references author(id), title text);
    create table doc (id serial primary key, data jsonb);
    insert into author (name) values ('Ann');
    insert into article (author_id, title) values (1, 'First');
    insert into doc (data) values ('{"a": {"b": 1}}');
  `);
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET } });
  const tracked = await engine.query({
    type: 'replace_metadata',
    args: {
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'postgres',
          configuration: { connection_info: { database_url: { from_env: 'SERVICE_GRAPHQL_DATABASE_URL' } } },
          tables: [
            { table: author, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }], select_permissions: [{ role: 'user', permission: { columns: '*', filter: {} } }] },
            { table: article, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }], select_permissions: [{ role: 'user', permission: { columns: '*', filter: {} } }] },
            { table: doc },
          ],
        },
      ],
    },
  });
  expect(tracked.json).toEqual({ message: 'success' });
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

/** The engine still answers, promptly, after a bad input. */
async function expectStillServing(): Promise<void> {
  const started = performance.now();
  const result = await engine.graphql({ query: '{ author { name } }' });
  expect(result.json).toEqual({ data: { author: [{ name: 'Ann' }] } });
  expect(performance.now() - started).toBeLessThan(2000);
  const health = await engine.get('/healthz', {});
  expect(health.text).toBe('OK');
}

/** `{"_and": {"_and": ... {leaf} ...}}`, `depth` levels of `_and`. */
function nestedAnd(depth: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let filter = leaf;
  for (let i = 0; i < depth; i++) filter = { _and: filter };
  return filter;
}

/** A JSON text of `depth` nested arrays, built as text: JSON.stringify would overflow first. */
const nestedArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('request JSON nested too deep', () => {
  it('is refused on /v1/query with 400 bad-request, at 101 levels, 100 000 levels too', async () => {
    for (const depth of [101, 100_000]) {
      const result = await http('POST', `${engine.url}/v1/query`, `{"type":"export_metadata","args":{"x":${nestedArrays(depth - 2)}}}`, admin);
      expect(result.status).toBe(400);
      expect(result.json).toEqual({ path: '$', error: 'request JSON is nested deeper than the limit of 100 levels', code: 'bad-request' });
      await expectStillServing();
    }
  });

  it('is not refused at 100 levels, nor for brackets inside strings', async () => {
    const result = await http('POST', `${engine.url}/v1/query`, `{"type":"export_metadata","args":{"x":${nestedArrays(98)}}}`, admin);
    expect(result.json.code).not.toBe('bad-request');
    const brackets = await engine.graphql({ query: `{ author(where: {name: {_eq: "${'{['.repeat(5000)}"}}) { name } }` });
    expect(brackets.json).toEqual({ data: { author: [] } });
  });

  it('is refused on /v1/graphql in the GraphQL envelope, variables 10 000 deep included', async () => {
    const body = `{"query":"query ($w: author_bool_exp) { author(where: $w) { name } }","variables":{"w":${'{"_and":'.repeat(10_000)}{}${'}'.repeat(10_000)}}}`;
    const result = await http('POST', `${engine.url}/v1/graphql`, body, admin);
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ errors: [{ message: 'request JSON is nested deeper than the limit of 100 levels', extensions: { path: '$', code: 'bad-request' } }] });
    await expectStillServing();
  });

  it('serves a where of 90 levels given as variables', async () => {
    const result = await engine.graphql({ query: 'query ($w: author_bool_exp) { author(where: $w) { name } }', variables: { w: nestedAnd(90, { name: { _eq: 'Ann' } }) } }, asUser);
    expect(result.json).toEqual({ data: { author: [{ name: 'Ann' }] } });
  });

  it('refuses a permission filter 5 000 levels deep as a 400, leaving the metadata as it was', async () => {
    const before = await engine.query({ type: 'export_metadata', args: {} });
    const body = `{"type":"create_select_permission","args":{"table":"doc","role":"user","permission":{"columns":"*","filter":${'{"_and":'.repeat(5000)}{}${'}'.repeat(5000)}}}}`;
    const result = await http('POST', `${engine.url}/v1/query`, body, admin);
    expect(result.status).toBe(400);
    expect(result.json.code).toBe('bad-request');
    expect((await engine.query({ type: 'export_metadata', args: {} })).json).toEqual(before.json);
    await expectStillServing();
  });

  it('takes a permission filter 80 levels deep and applies it', async () => {
    let filter: Record<string, unknown> = { id: { _eq: 1 } };
    for (let i = 0; i < 80; i++) filter = { _not: filter };
    const result = await engine.query({ type: 'create_select_permission', args: { table: 'doc', role: 'user', permission: { columns: ['id'], filter } } });
    expect(result.json).toEqual({ message: 'success' });
    expect((await engine.graphql({ query: '{ doc { id } }' }, asUser)).json).toEqual({ data: { doc: [{ id: 1 }] } });
    await engine.query({ type: 'drop_select_permission', args: { table: 'doc', role: 'user' } });
  });
});

describe('GraphQL documents nested too deep', () => {
  const refusal = (what: string) => ({ errors: [{ message: `the query nests ${what} deeper than the limit of 100 levels`, extensions: { path: '$.query', code: 'validation-failed' } }] });

  it('refuses 10 000 nested braces before parsing', async () => {
    const result = await engine.graphql({ query: `${'{ a '.repeat(10_000)}${'}'.repeat(10_000)}` });
    expect(result.json).toEqual(refusal('brackets'));
    await expectStillServing();
  });

  it('refuses a where literal nested 150 deep, and a list value 150 deep', async () => {
    const where = `${'{_and: '.repeat(150)}{}${'}'.repeat(150)}`;
    expect((await engine.graphql({ query: `{ author(where: ${where}) { name } }` }, asUser)).json).toEqual(refusal('brackets'));
    expect((await engine.graphql({ query: `{ author(where: {id: {_in: ${'['.repeat(150)}1${']'.repeat(150)}}}) { name } }` })).json).toEqual(refusal('brackets'));
    await expectStillServing();
  });

  it('refuses relationships nested 101 deep, and serves 98', async () => {
    const nested = (levels: number): string => {
      let selection = 'id';
      for (let i = levels; i > 0; i--) selection = `${i % 2 === 1 ? 'articles' : 'author'} { ${selection} }`;
      return `{ author { ${selection} } }`;
    };
    expect((await engine.graphql({ query: nested(101) }, asUser)).json).toEqual(refusal('brackets'));
    const served = await engine.graphql({ query: nested(96) }, asUser);
    expect(served.json.errors).toBeUndefined();
    expect(served.json.data.author).toHaveLength(1);
  });

  it('refuses a chain of fragments, each shallow, that nests selections 150 deep', async () => {
    const fragments = Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? `fragment F${i} on author { articles { ...F${i + 1} } }` : `fragment F${i} on article { author { ...F${i + 1} } }`));
    fragments.push('fragment F150 on author { id }');
    const result = await engine.graphql({ query: `{ author { ...F0 } } ${fragments.join(' ')}` }, asUser);
    expect(result.json).toEqual(refusal('selections'));
    await expectStillServing();
  });

  it('refuses a chain of 5 000 spreads without fields, without overflowing', async () => {
    const fragments = Array.from({ length: 5000 }, (_, i) => `fragment F${i} on author { ...F${i + 1} }`);
    fragments.push('fragment F5000 on author { id }');
    const result = await engine.graphql({ query: `{ author { ...F0 } } ${fragments.join(' ')}` });
    expect(result.json).toEqual(refusal('selections'));
    await expectStillServing();
  });

  it('refuses a chain of 6 000 unused fragments, which validation alone would overflow on', async () => {
    const fragments = Array.from({ length: 6000 }, (_, i) => `fragment F${i} on author { ...F${i + 1} }`);
    fragments.push('fragment F6000 on author { id }');
    const result = await engine.graphql({ query: `{ author { id } } ${fragments.join(' ')}` });
    expect(result.json).toEqual(refusal('selections'));
    await expectStillServing();
  });

  it('answers a fragment cycle with validation-failed, not a hang', async () => {
    const result = await engine.graphql({ query: '{ author { ...A } } fragment A on author { articles { author { ...B } } } fragment B on author { ...A }' });
    expect(result.json.errors[0].extensions.code).toBe('validation-failed');
    await expectStillServing();
  });

  it('serves a fragment spread many times at a shallow depth', async () => {
    const result = await engine.graphql({ query: `{ author { ...N ...N ...N } } fragment N on author { name articles { title } }` }, asUser);
    expect(result.json).toEqual({ data: { author: [{ name: 'Ann', articles: [{ title: 'First' }] }] } });
  });
});

describe('malformed jsonb paths', () => {
  it.each([['$["\\u12"]'], ['$.a['], ['$[1'], ['a..b'], ['$["unterminated']])('answer %s with validation-failed at the argument', async (path) => {
    const result = await engine.graphql({ query: 'query ($p: String) { doc { data(path: $p) } }', variables: { p: path } });
    expect(result.json.errors).toHaveLength(1);
    expect(result.json.errors[0].extensions.code).toBe('validation-failed');
    await expectStillServing();
  });

  it('serves a good path', async () => {
    expect((await engine.graphql({ query: '{ doc { data(path: "$.a.b") } }' })).json).toEqual({ data: { doc: [{ data: 1 }] } });
  });
});

describe('bad input over WebSocket', () => {
  it('refuses deep variables and deep documents and keeps the socket serving', async () => {
    const raw = await openRaw(engine.url, ['graphql-transport-ws']);
    raw.send({ type: 'connection_init', payload: { headers: admin } });
    await raw.next((frame) => frame.type === 'connection_ack');
    raw.socket.send(`{"type":"subscribe","id":"deep","payload":{"query":"subscription ($w: author_bool_exp) { author(where: $w) { name } }","variables":{"w":${'{"_and":'.repeat(5000)}{}${'}'.repeat(5000)}}}}`);
    const deep = await raw.next((frame) => frame.id === 'deep');
    expect(deep.type).toBe('error');
    expect(deep.payload[0].extensions.code).toBe('bad-request');
    raw.send({ type: 'subscribe', id: 'braces', payload: { query: `subscription ${'{ a '.repeat(5000)}${'}'.repeat(5000)}` } });
    const braces = await raw.next((frame) => frame.id === 'braces');
    expect(braces).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'validation-failed' } }] });
    raw.send({ type: 'subscribe', id: 'good', payload: { query: 'subscription { author { name } }' } });
    expect(await raw.next((frame) => frame.id === 'good')).toMatchObject({ type: 'next', payload: { data: { author: [{ name: 'Ann' }] } } });
    raw.socket.close();
    await expectStillServing();
  });
});

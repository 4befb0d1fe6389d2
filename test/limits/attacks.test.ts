import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

/**
 * The attacks of issue 14, on tiny data, as a non-admin role: refused by a node or depth
 * limit when one is set, else bounded by jit off, the role's time limit and the cancel.
 * Before, 250 aliases ran 37.6 s inside JIT compilation, and a 248-byte fan-out query ran
 * on for minutes after its client had gone while the engine buffered 400 MB for nobody.
 */
let database: TestDatabase;
let engine: TestEngine;

const SETUP_SQL = `
  create table users (id integer primary key, name text not null);
  create table articles (id integer primary key, author_id integer not null references users(id), title text not null);
  create table comments (id integer primary key, article_id integer not null references articles(id), body text not null);
  insert into users select g, 'user ' || g from generate_series(1, 30) g;
  insert into articles select g, 1 + g % 30, 'article ' || g from generate_series(1, 300) g;
  insert into comments select g, 1 + g % 300, 'comment ' || g from generate_series(1, 600) g;
`;

const reader = { 'x-service-role': 'reader' };

/** The engine's statements now running on this database. */
async function runningStatements(): Promise<number> {
  const found = await database.sql(
    "select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name like 'service-graphql-schema-%' and state = 'active'",
  );
  return (found.rows[0] as { n: number }).n;
}

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql(SETUP_SQL);
  // With JIT on, the alias flood alone took 37.6 s: 15 s tells the two apart even on a loaded machine.
  engine = await startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_STATEMENT_TIMEOUT: '15' } });
  const all = (table: string, columns: string[]) => ({ type: 'create_select_permission', args: { table, role: 'reader', permission: { columns, filter: {} } } });
  const setup = await engine.query({
    type: 'bulk',
    args: [
      ...['users', 'articles', 'comments'].map((table) => ({ type: 'track_table', args: { table } })),
      { type: 'create_object_relationship', args: { table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'users', name: 'articles', using: { foreign_key_constraint_on: { table: 'articles', column: 'author_id' } } } },
      { type: 'create_object_relationship', args: { table: 'comments', name: 'article', using: { foreign_key_constraint_on: 'article_id' } } },
      all('users', ['id', 'name']),
      all('articles', ['id', 'title']),
      all('comments', ['id', 'body']),
    ],
  });
  expect(setup.json).toEqual(Array(9).fill({ message: 'success' }));
});

afterAll(async () => {
  await engine?.stop();
  await database?.drop();
});

const aliasFlood = `{ ${Array.from({ length: 250 }, (_, index) => `a${index}: comments(limit: 1) { article { author { articles(limit: 1) { id } } } }`).join(' ')} }`;
const fanOut = '{ users { articles { author { articles { author { articles { author { articles { author { articles { id title } } } } } } } } } } }';

async function withLimits(limits: unknown, run: () => Promise<void>): Promise<void> {
  expect((await engine.query({ type: 'set_api_limits', args: limits })).json).toEqual({ message: 'success' });
  try {
    await run();
  } finally {
    await engine.query({ type: 'remove_api_limits', args: {} });
  }
}

describe('an alias flood', () => {
  it('is answered within the statement timeout: no JIT compilation of the one large statement', async () => {
    const answer = await engine.graphql({ query: aliasFlood }, reader);
    expect(answer.json.errors).toBeUndefined();
    expect(Object.keys(answer.json.data)).toHaveLength(250);
  });

  it('is refused before any SQL by a node limit, when one is set', async () => {
    await withLimits({ node_limit: { global: 100 } }, async () => {
      const answer = await engine.graphql({ query: aliasFlood }, reader);
      expect(answer.json).toEqual({ errors: [{ message: 'too many nodes in a single query', extensions: { path: '$', code: 'bad-request' } }] });
    });
  });
});

describe('a fan-out query nine levels deep', () => {
  it('is cancelled when its time is up: the backend stops, no result is buffered, another user is served meanwhile', async () => {
    await withLimits({ time_limit: { global: 2 } }, async () => {
      const rssBefore = process.memoryUsage().rss;
      let attackAnswered = false;
      const attack = engine.graphql({ query: fanOut }, reader).then((answer) => ((attackAnswered = true), answer));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const other = await engine.graphql({ query: '{ users_by_pk(id: 1) { name } }' }, { 'x-service-role': 'reader', 'x-service-user-id': '2' });
      expect(other.json).toEqual({ data: { users_by_pk: { name: 'user 1' } } });
      expect(attackAnswered).toBe(false);
      const answer = await attack;
      expect(answer.json).toEqual({ errors: [{ message: 'operation timed out', extensions: { path: '$', code: 'time-limit-exceeded' } }] });
      // Free again within a second of the answer.
      const freed = Date.now();
      while ((await runningStatements()) > 0 && Date.now() - freed < 1000) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await runningStatements()).toBe(0);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    });
  });

  it('is refused before any SQL by a depth limit, when one is set', async () => {
    await withLimits({ depth_limit: { global: 5 } }, async () => {
      const answer = await engine.graphql({ query: fanOut }, reader);
      expect(answer.json).toEqual({ errors: [{ message: 'node depth limit exceeded', extensions: { path: '$', code: 'bad-request' } }] });
    });
  });
});

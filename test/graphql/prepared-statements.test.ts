import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkConsistency } from '../../actors/schema/consistency/check.js';
import { buildGraphqlEngine, type GraphqlEngine } from '../../actors/schema/execution/engine.js';
import { introspectCatalog } from '../../src/pg/catalog.js';
import { createPool, type Pool, type PoolClient } from '../../src/pg/pool.js';
import { queryNamed, STATEMENTS_PER_CONNECTION } from '../../src/pg/prepared-statements.js';
import { makeSession } from '../../src/session/session.js';
import { testBoundedPool } from '../harness/bounded-pool.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { goldenMetadata } from './fixture.js';

/**
 * LIMIT and OFFSET are literals (ARCHITECTURE decision 5), so every distinct value is a
 * named statement of its own: each connection keeps at most STATEMENTS_PER_CONNECTION of
 * them prepared, deallocating the least recently used, and one used again after its
 * eviction is prepared again and answers right.
 */
let database: TestDatabase;
let pool: Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql(readFileSync(new URL('../golden/seed.sql', import.meta.url), 'utf8'));
});
afterAll(async () => {
  await database.drop();
});
// One connection per test: every statement of the test lands on it, and none of another test's.
beforeEach(() => {
  pool = createPool(database.url, { max: 1, applicationName: 'prepared-statements-test' });
});
afterEach(async () => {
  await pool.end();
});

/** What the server holds prepared on the pool's one connection, and what node-postgres believes it has parsed there. */
async function preparedOnConnection(): Promise<{ server: string[]; client: string[] }> {
  const client = await pool.connect();
  try {
    const result = await client.query<{ name: string }>('select name from pg_prepared_statements order by name');
    const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements;
    return { server: result.rows.map((row) => row.name), client: Object.keys(parsed).sort() };
  } finally {
    client.release();
  }
}

async function withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await work(client);
  } finally {
    client.release();
  }
}

const numbered = (n: number) => ({ name: `test_${n}`, text: `select ${n} + $1::int as "n"`, values: [1] });

describe('prepared statements per connection', () => {
  it('keeps at most the capacity prepared, deallocating the least recently used, and prepares an evicted one again', async () => {
    const capacity = 20;
    await withClient(async (client) => {
      for (let n = 0; n < 20; n++) await queryNamed(client, numbered(n), capacity);
      // Used again: the most recent now, so it outlives the eviction below.
      await queryNamed(client, numbered(0), capacity);
      for (let n = 20; n < 30; n++) await queryNamed(client, numbered(n), capacity);
    });
    const { server, client } = await preparedOnConnection();
    expect(server).toHaveLength(capacity);
    expect(server).toEqual(client);
    expect(server).toContain('test_0');
    expect(server).not.toContain('test_1');
    expect(server).toContain('test_29');

    const again = await withClient((pooled) => queryNamed<{ n: number }>(pooled, numbered(1), capacity));
    expect(again.rows).toEqual([{ n: 2 }]);
    expect((await preparedOnConnection()).server).toContain('test_1');
  });

  it('does not count a statement that failed to parse, and counts one that failed when executed', async () => {
    const capacity = 2;
    await withClient(async (client) => {
      await expect(queryNamed(client, { name: 'test_unparsable', text: 'select from nowhere_at_all', values: [] }, capacity)).rejects.toThrow(/nowhere_at_all/);
      await expect(queryNamed(client, { name: 'test_division', text: 'select 1 / $1::int', values: [0] }, capacity)).rejects.toThrow(/division by zero/);
      await queryNamed(client, numbered(100), capacity);
      await queryNamed(client, numbered(101), capacity);
    });
    // The failed execution was prepared, so it was the one to go; the unparsable one never was.
    expect((await preparedOnConnection()).server).toEqual(['test_100', 'test_101']);
  });

  it('deallocates inside a transaction for good: a rollback does not bring the statements back', async () => {
    const capacity = 3;
    await withClient(async (client) => {
      for (let n = 200; n < 203; n++) await queryNamed(client, numbered(n), capacity);
      await client.query('begin');
      await queryNamed(client, numbered(203), capacity);
      await client.query('rollback');
      expect((await queryNamed<{ n: number }>(client, numbered(200), capacity)).rows).toEqual([{ n: 201 }]);
    });
    const { server, client } = await preparedOnConnection();
    expect(server).toEqual(['test_200', 'test_202', 'test_203']);
    expect(server).toEqual(client);
  });
});

describe('the engine over many distinct offsets', () => {
  let engine: GraphqlEngine;
  beforeAll(async () => {
    const catalog = await introspectCatalog(database.pool);
    engine = buildGraphqlEngine(checkConsistency(goldenMetadata(), catalog).consistent, catalog);
  });

  async function articlesAt(offset: number): Promise<unknown> {
    const bytes = await engine.execute(
      { query: 'query ($o: Int) { article(order_by: {id: asc}, limit: 1, offset: $o) { id } }', variables: { o: offset }, operationName: null },
      makeSession('admin', {}),
      { db: testBoundedPool(pool, database.url, 1), requestId: 'test' },
    );
    return JSON.parse(new TextDecoder().decode(bytes));
  }

  it('keeps its connection within the bound and answers right after an eviction', async () => {
    const offsets = STATEMENTS_PER_CONNECTION + 60;
    for (let offset = 0; offset < offsets; offset++) await articlesAt(offset);
    const { server, client } = await preparedOnConnection();
    expect(server.length).toBeGreaterThan(STATEMENTS_PER_CONNECTION - STATEMENTS_PER_CONNECTION / 10 - 1);
    expect(server.length).toBeLessThanOrEqual(STATEMENTS_PER_CONNECTION);
    expect(server).toEqual(client);
    // Offset 0's statement was the first to go; used again, it is prepared again.
    expect(await articlesAt(0)).toEqual({ data: { article: [{ id: 1 }] } });
    expect(await articlesAt(2)).toEqual({ data: { article: [{ id: 3 }] } });
  });
});
